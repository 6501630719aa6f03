"""The prompt form of a run: a study's chat prompts, or their completion form.

A study gives each generation item a chat prompt and, where it has one, a completion
form (:class:`~gasp.runner.Completion`: text for a base model to continue and the
stop strings that end its answer). The run's prompt form decides which is sent:
``chat``, ``completion``, or ``auto``, which takes the completion form for a model
without a chat template (:attr:`ModelBackend.has_chat_template`, told from the
model's files for a model string) and the chat prompts otherwise. In the completion
form an item becomes a raw-text item (its prompt the text to continue, its ``stop``
strings set); the study's own system prompt is not sent (the completion text stands
for it), while a system-prompt variant's text already leads the completion text
(:func:`gasp.runner.with_system_prompt`). The resolved form is recorded in the run
manifest (``prompt_form``) and is part of a run's identity.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gasp.backends import ModelBackend, has_chat_template
from gasp.errors import ConfigError
from gasp.runner._items import CHAT, COMPLETION, Item, RequestKind, StudyPlan


def _generation_items(plan: StudyPlan) -> list[Item]:
    return [item for item in plan.items if item.kind is RequestKind.GENERATE and item.chat]


def model_has_chat_template(
    model: str | ModelBackend, options: Mapping[str, Any] | None = None
) -> bool:
    """Whether ``model`` (a model string or a backend) has a chat template."""
    if isinstance(model, str):
        return has_chat_template(model, options)
    return bool(getattr(model, "has_chat_template", True))


def resolve_prompt_form(
    plan: StudyPlan, model: str | ModelBackend, options: Mapping[str, Any] | None = None
) -> str:
    """``chat`` or ``completion``: the plan's form, ``auto`` resolved for ``model``.

    ``auto`` is ``chat`` for a plan with no chat generation item (scoring studies keep
    their own raw or chat contexts) or where an item has no completion form."""
    items = _generation_items(plan)
    if plan.prompt_form != "auto":
        return plan.prompt_form
    if not items or any(item.completion is None for item in items):
        return CHAT
    return CHAT if model_has_chat_template(model, options) else COMPLETION


def completion_plan(plan: StudyPlan) -> StudyPlan:
    """``plan`` in its completion form (every chat generation item sent as its text to
    continue); :class:`ConfigError` when an item has none."""
    items = []
    for item in plan.items:
        if item.kind is RequestKind.GENERATE and item.chat:
            if item.completion is None:
                raise ConfigError(
                    f"study {plan.name!r} has no completion form for item {item.item_id}; "
                    "use prompt_form=chat"
                )
            item = dataclasses.replace(
                item,
                prompt=item.completion.text,
                chat=False,
                stop=item.completion.stop,
                completion=None,
            )
        items.append(item)
    return dataclasses.replace(plan, items=tuple(items), prompt_form=COMPLETION)


def apply_prompt_form(
    plan: StudyPlan, model: str | ModelBackend, options: Mapping[str, Any] | None = None
) -> StudyPlan:
    """``plan`` as the run sends it: its prompt form resolved for ``model`` and, for the
    completion form, its items turned into text to continue."""
    form = resolve_prompt_form(plan, model, options)
    if form == COMPLETION:
        return completion_plan(plan)
    return dataclasses.replace(plan, prompt_form=CHAT)


__all__ = ["apply_prompt_form", "completion_plan", "model_has_chat_template", "resolve_prompt_form"]
