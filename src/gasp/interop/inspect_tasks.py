"""gasp's generation studies as Inspect AI tasks: ``inspect eval gasp/<study>``.

Registered through the ``inspect_ai`` entry point group (``gasp =
"gasp.interop.inspect_tasks"`` in gasp's ``pyproject.toml``). Each sample is one item
of the study: its prompt (after the study's system prompt, if any), its attributes
and ``item_id`` in the sample's metadata; every item is answered ``n`` times
(Inspect's epochs) with the study's decoding settings. ``-T quick=true`` runs the
reduced study of ``gasp run --quick``, ``-T n=N`` sets the answers per prompt, any
other ``-T KEY=VALUE`` is a study option (as ``--study-option``). ``gasp analyze
LOG.eval`` reads the study from the log's task name and analyses the answers.
Scoring studies are refused (an Inspect task cannot ask for prompt log-probabilities).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.solver import generate

from gasp.interop._plan import study_samples

#: The metadata key naming the study of a sample.
STUDY_KEY = "gasp_study"


def _flag(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in {"1", "true", "yes"}


def study_task(study: str, quick: Any = False, n: Any = None, **options: Any) -> Task:
    """The Inspect task of study ``study`` (see the module docstring)."""
    plan = study_samples(study, quick=_flag(quick), n=None if n is None else int(n), **options)
    samples = []
    for ordinal, item in enumerate(plan.items):
        messages: list[Any] = [ChatMessageUser(content=item.prompt)]
        if plan.system_prompt:
            messages.insert(0, ChatMessageSystem(content=plan.system_prompt))
        samples.append(
            Sample(
                input=messages,
                id=f"{ordinal:06d}",
                metadata={**item.attributes, "item_id": item.item_id, STUDY_KEY: study},
            )
        )
    return Task(
        dataset=MemoryDataset(samples, name=study),
        solver=generate(),
        epochs=plan.n,
        config=GenerateConfig(**plan.decoding),
        metadata={STUDY_KEY: study, "fixed_n": plan.fixed},
    )


@task(name="marked-personas")
def marked_personas(quick: Any = False, n: Any = None, **options: Any) -> Task:
    """Marked Personas: personas and stories of race x gender groups."""
    return study_task("marked-personas", quick, n, **options)


@task(name="pronoun-pairs")
def pronoun_pairs(quick: Any = False, n: Any = None, **options: Any) -> Task:
    """Paired pronoun prompts about two professions (he / she / they)."""
    return study_task("pronoun-pairs", quick, n, **options)


@task(name="narratives")
def narratives(quick: Any = False, n: Any = None, **options: Any) -> Task:
    """Narrative openings about professions: the protagonist's name and gender."""
    return study_task("narratives", quick, n, **options)


@task(name="more-of-the-same")
def more_of_the_same(quick: Any = False, n: Any = None, **options: Any) -> Task:
    """More of the Same: stories about occupations (exactly n per prompt; the adaptive
    stopping of ``gasp run`` is not applied)."""
    return study_task("more-of-the-same", quick, n, **options)
