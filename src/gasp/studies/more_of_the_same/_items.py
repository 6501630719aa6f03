"""The More of the Same study as runner items: one item per (template, subject,
condition) cell, with Algorithm 5 as its stopping rule."""

from __future__ import annotations

from gasp.runner import Item, StudyPlan
from gasp.studies.more_of_the_same._model import STUDY_KIND, Cell, Study
from gasp.studies.more_of_the_same._stopping import AdaptiveStopping


def cell_item(cell: Cell, n: int) -> Item:
    """The item of one cell: key (template, subject, condition), its prompt, and the
    attributes the analysis reads (template, subject, condition, named_gender)."""
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
