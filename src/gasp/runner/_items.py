"""What a study hands the runner: items, a request kind, n per item and a stopping rule.

An :class:`Item` is one prompt (or raw context) plus named attributes (``template``,
``subject``, ``race``, ``pronoun``, ...). The runner never reads an attribute: it
requests samples ``0, 1, ...`` of each item until the study's :class:`StoppingRule`
says the item is done, and the store keeps the attributes beside the answers.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from gasp.errors import ConfigError

#: The most requests one run may plan (its items' largest sample counts, summed). The
#: runner holds an entry of about 200 bytes per planned request (the queue and the set
#: of samples asked for), so this bounds a run's memory at about a gigabyte; a larger
#: study is split into several runs (for example by occupations or templates).
MAX_PLANNED_REQUESTS = 5_000_000

NEED = "need"
COMPLETE = "complete"
SKIPPED = "skipped"
CAPPED = "capped"


class RequestKind(enum.StrEnum):
    """What is asked of the model for an item."""

    GENERATE = "generate"  # free text
    SCORE = "score"  # the log-probability of each candidate continuation


#: How a study's generation prompts are sent: ``chat`` (the model's chat template),
#: ``completion`` (text a base model continues, cut where the answer ends) or ``auto``
#: (completion for a model without a chat template, else chat).
PROMPT_FORMS = ("auto", "chat", "completion")
CHAT, COMPLETION = "chat", "completion"


@dataclass(frozen=True)
class Completion:
    """The completion form of a generation item: ``text`` for a base model to continue
    (the answer is what follows it) and the ``stop`` strings that end the answer."""

    text: str
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "stop", tuple(self.stop))
        if not self.text.strip():
            raise ConfigError("a completion form needs text to continue")


@dataclass(frozen=True)
class Item:
    """One unit of a study: a prompt and its attributes, requested ``n`` times.

    ``key`` identifies the item within its study (its ``item_id`` is the key as JSON
    and per-sample seeds derive from it). ``chat`` items are sent as a user message
    (after the study's system prompt, if any); other items are raw text contexts,
    which scoring accepts and generation sends as text to continue (a study's completion
    form, cut at ``stop``). ``candidates`` are the continuations of a score item.
    ``completion`` is the completion form of a chat generation item, which the runner
    sends instead of the chat prompt when the run's prompt form is ``completion``.
    """

    key: tuple[str, ...]
    prompt: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    kind: RequestKind = RequestKind.GENERATE
    n: int = 1
    candidates: tuple[str, ...] = ()
    chat: bool = True
    completion: Completion | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", tuple(str(k) for k in self.key))
        object.__setattr__(self, "attributes", dict(self.attributes))
        object.__setattr__(self, "kind", RequestKind(self.kind))
        object.__setattr__(self, "candidates", tuple(self.candidates))
        if not self.key:
            raise ConfigError("an item needs a non-empty key")
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ConfigError(f"item {self.item_id}: n must be a positive integer, got {self.n!r}")
        if self.kind is RequestKind.SCORE:
            if not self.candidates:
                raise ConfigError(f"score item {self.item_id} has no candidates")
            if len(set(self.candidates)) != len(self.candidates):
                raise ConfigError(f"score item {self.item_id} repeats a candidate")
        elif self.candidates:
            raise ConfigError(f"generate item {self.item_id} must not have candidates")
        object.__setattr__(self, "stop", tuple(self.stop))
        if self.kind is RequestKind.SCORE and (self.completion is not None or self.stop):
            raise ConfigError(f"score item {self.item_id}: a completion form is for generation")

    @property
    def item_id(self) -> str:
        """The key as canonical JSON (the item's id in the run store)."""
        return item_id(self.key)

    def messages(self, system_prompt: str | None) -> tuple[tuple[str, str], ...] | None:
        """The chat messages of this item as (role, content) pairs; None for raw text."""
        if not self.chat:
            return None
        user = (("user", self.prompt),)
        return (("system", system_prompt), *user) if system_prompt else user


def item_id(key: Iterable[str]) -> str:
    """The store id of the item with ``key``: the key as JSON (``["persona", "nurse", "man"]``)."""
    return json.dumps([str(k) for k in key], ensure_ascii=False)


@dataclass(frozen=True)
class Decision:
    """Where an item stands: ``need`` (with the sample indices to request next),
    ``complete``, ``skipped`` or ``capped``; ``counts`` are the rule's own tallies."""

    status: str
    missing: tuple[int, ...] = ()
    reason: str | None = None
    n_samples: int = 0
    counts: dict[str, int] = field(default_factory=dict)


class ItemProgress(Protocol):
    """The stopping rule's state for one item."""

    #: True when the item's sample count depends on its answers.
    adaptive: bool

    def decide(self, answers: Mapping[int, str]) -> Decision:
        """What the item needs, given its successful answers by sample index (texts of
        generations; empty strings for scores)."""
        ...

    def expected_total(self) -> int:
        """A running estimate of the samples this item will take (for progress bars)."""
        ...

    def bounds(self) -> tuple[int, int]:
        """Fewest and most samples the item can take (for dry runs)."""
        ...


@runtime_checkable
class StoppingRule(Protocol):
    """Decides, per item, which samples are needed next and when the item is done."""

    def start(self, item: Item) -> ItemProgress:
        """A fresh state for ``item``."""
        ...


class _FixedProgress:
    adaptive = False

    def __init__(self, n: int) -> None:
        self.n = n

    def decide(self, answers: Mapping[int, str]) -> Decision:
        missing = tuple(i for i in range(self.n) if i not in answers)
        return Decision(NEED if missing else COMPLETE, missing, None, self.n - len(missing))

    def expected_total(self) -> int:
        return self.n

    def bounds(self) -> tuple[int, int]:
        return self.n, self.n


class FixedN:
    """The default stopping rule: exactly ``item.n`` samples of every item."""

    def start(self, item: Item) -> ItemProgress:
        """Samples ``0 .. item.n - 1``."""
        return _FixedProgress(item.n)


@dataclass(frozen=True)
class StudyPlan:
    """A study expanded for the runner.

    ``kind`` is the registered study type (``more-of-the-same``) and ``name`` the
    study's own name; ``spec`` is the study as plain data, recorded in the run
    manifest (a resumed run must present the same). ``system_prompt`` precedes every
    chat item. ``options`` are the study's resolved option values, recorded in the
    manifest beside the spec (not part of a run's identity: the spec is).
    ``prompt_form`` (one of :data:`PROMPT_FORMS`) says how generation items are sent;
    the runner resolves ``auto`` for the model (:func:`gasp.runner.apply_prompt_form`).
    """

    kind: str
    name: str
    items: tuple[Item, ...]
    spec: Mapping[str, Any]
    stopping: StoppingRule = field(default_factory=FixedN)
    system_prompt: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    prompt_form: str = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", tuple(self.items))
        if self.prompt_form not in PROMPT_FORMS:
            raise ConfigError(
                f"prompt form must be one of {', '.join(PROMPT_FORMS)}, got {self.prompt_form!r}"
            )
        if not self.items:
            raise ConfigError(f"study {self.name!r} has no items")
        seen: set[tuple[str, ...]] = set()
        for item in self.items:
            if item.key in seen:
                raise ConfigError(f"study {self.name!r} has two items with key {item.item_id}")
            seen.add(item.key)
        planned = self.planned_requests()
        if planned > MAX_PLANNED_REQUESTS:
            raise ConfigError(
                f"study {self.name!r} plans {planned:,} requests ({len(self.items):,} items, "
                f"up to {max(item.n for item in self.items):,} samples each); one run holds "
                f"at most {MAX_PLANNED_REQUESTS:,}: lower --n or split the run"
            )

    def planned_requests(self) -> int:
        """The most requests the plan can make: each item's largest sample count, summed."""
        return sum(self.stopping.start(item).bounds()[1] for item in self.items)

    def to_plan(self) -> StudyPlan:
        """The plan itself (a plan is :class:`Plannable` too)."""
        return self

    @property
    def kinds(self) -> tuple[RequestKind, ...]:
        """The request kinds the items need, in the order first met."""
        return tuple(dict.fromkeys(item.kind for item in self.items))


@runtime_checkable
class Plannable(Protocol):
    """Anything that expands into a :class:`StudyPlan` (a study object)."""

    def to_plan(self) -> StudyPlan:
        """The items, stopping rule and manifest spec of this study."""
        ...


def as_plan(study: StudyPlan | Plannable) -> StudyPlan:
    """``study`` as a plan (a plan is returned as it is)."""
    if isinstance(study, StudyPlan):
        return study
    if isinstance(study, Plannable):
        return study.to_plan()
    raise ConfigError(f"cannot run {type(study).__name__}: not a study")
