"""A system-prompt variant of a study: the same items, a system prompt added.

A variant is how a mitigation is tested (for example a debiasing instruction): every
chat item gets ``text`` as its system prompt (before the study's own, if any), and
every raw-text context (score items of a raw-mode study) and every completion form
(:class:`~gasp.runner.Completion`) gets ``text`` as its first line, the way a debiasing
prompt precedes a raw prompt. Item keys are unchanged, so
the variant's items pair with the plain model's.
"""

from __future__ import annotations

import dataclasses

from gasp.errors import ConfigError
from gasp.runner._items import Item, Plannable, StudyPlan, as_plan


def with_system_prompt(plan: StudyPlan | Plannable, text: str) -> StudyPlan:
    """``plan`` with ``text`` added as the system prompt of every item (see the module)."""
    if not text.strip():
        raise ConfigError("a system-prompt variant needs a non-empty prompt")
    base = as_plan(plan)
    items = tuple(_with_first_line(item, text) for item in base.items)
    system = f"{text}\n\n{base.system_prompt}" if base.system_prompt else text
    return dataclasses.replace(base, items=items, system_prompt=system)


def _with_first_line(item: Item, text: str) -> Item:
    """``item`` with ``text`` leading its raw context or its completion form."""
    if not item.chat:
        return dataclasses.replace(item, prompt=f"{text}\n{item.prompt}")
    if item.completion is not None:
        lead = dataclasses.replace(item.completion, text=f"{text}\n{item.completion.text}")
        return dataclasses.replace(item, completion=lead)
    return item


@dataclasses.dataclass(frozen=True)
class SystemPromptVariant:
    """A study (anything :class:`Plannable`) run with a system prompt added."""

    study: StudyPlan | Plannable
    text: str

    def to_plan(self) -> StudyPlan:
        """The study's plan with the variant's system prompt."""
        return with_system_prompt(self.study, self.text)


__all__ = ["SystemPromptVariant", "with_system_prompt"]
