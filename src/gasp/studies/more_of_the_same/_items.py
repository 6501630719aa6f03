"""The More of the Same study as runner items: one item per (template, subject,
condition) cell, with Algorithm 5 as its stopping rule."""

from __future__ import annotations

import re

from gasp.runner import Completion, Item, StudyPlan
from gasp.studies.more_of_the_same._model import STUDY_KIND, Cell, Study
from gasp.studies.more_of_the_same._stopping import AdaptiveStopping

#: Where a base model's answer ends in the completion form: its first paragraph.
COMPLETION_STOP = ("\n\n",)

#: Instructions rewritten as the line that opens what they ask for (first match wins):
#: "Generate a persona of a nurse" -> "Here is a persona of a nurse."; "Describe a nurse
#: as if you are writing a biography" -> "Here is a biography of a nurse.".
_OPENERS = (
    (re.compile(r"^describe (.+?) as if you (?:are|were) writing (an? \w+)$", re.I), r"\2 of \1"),
    (re.compile(r"^describe (.+)$", re.I), r"a description of \1"),
    (re.compile(r"^(?:generate|write|create|give|tell) (?:me )?(.+)$", re.I), r"\1"),
)


def completion_text(prompt: str) -> str:
    """The completion form of a cell's prompt: the line that opens the text the prompt asks
    for (``Here is a persona of a nurse who is a woman.``) and a blank line, which a base
    model follows with that text; a prompt of another shape is kept as its own line."""
    text = prompt.strip().rstrip(".!")
    for pattern, replacement in _OPENERS:
        if pattern.match(text):
            return f"Here is {pattern.sub(replacement, text)}.\n\n"
    return (text if text.endswith(("?", ":")) else text + ".") + "\n\n"


def cell_item(cell: Cell, n: int) -> Item:
    """The item of one cell: key (template, subject, condition), its prompt, its
    completion form, and the attributes the analysis reads (template, subject,
    condition, named_gender)."""
    return Item(
        key=cell.key,
        prompt=cell.prompt,
        attributes={
            "template": cell.template,
            "subject": cell.subject.name,
            "condition": cell.condition.name,
            "named_gender": cell.condition.named_gender,
        },
        n=n,
        completion=Completion(completion_text(cell.prompt), COMPLETION_STOP),
    )


def study_plan(study: Study) -> StudyPlan:
    """The runner's view of ``study``: its cells in study order and Algorithm 5."""
    rule = study.stopping
    return StudyPlan(
        kind=STUDY_KIND,
        name=study.name,
        items=tuple(cell_item(cell, study.n) for cell in study.cells()),
        spec=study.to_dict(),
        stopping=AdaptiveStopping(
            adaptive=rule.adaptive,
            min_share=rule.min_share,
            batch_size=rule.first_batch(study.n),
            cap=rule.cap(study.n),
            genders=rule.genders,
        ),
        system_prompt=study.system_prompt,
    )
