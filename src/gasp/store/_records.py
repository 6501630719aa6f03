"""The rows a run store holds, as frozen dataclasses, and their conversion to table rows."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gasp.errors import DataError

ITEM_KINDS: tuple[str, ...] = ("generate", "score")
STOP_REASONS: tuple[str, ...] = ("stop", "length", "content_filter", "refusal", "error")
SCORE_STATUSES: tuple[str, ...] = ("ok", "error")
ITEM_STATUSES: tuple[str, ...] = ("complete", "skipped", "capped", "incomplete")

#: Column names of the store's DataFrames that an item attribute may not take.
RESERVED_NAMES: frozenset[str] = frozenset(
    {
        "run_id", "study", "item_id", "ordinal", "kind", "prompt", "messages", "candidates",
        "attributes", "sample_index", "seed", "text", "stop_reason", "error", "fault_kinds",
        "model_id", "prompt_tokens", "completion_tokens", "latency_s", "attempts",
        "created_at", "candidate", "logprob", "n_tokens", "tokens", "token_ids",
        "approximate", "status", "reason", "n_samples", "counts", "updated_at",
    }
)  # fmt: skip


def utc_now() -> str:
    """The current UTC time in ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: Any) -> str:
    """JSON as the store writes it: key order kept, non-ASCII text kept as is."""
    return json.dumps(value, ensure_ascii=False)


def stored_json(raw: Any, what: str, kind: type | None = None) -> Any:
    """Parse the JSON of a store's column (``what`` names it for the message); text that
    is not JSON, nested too deep to read, or (with ``kind``) of another type is a
    :class:`DataError` in one line (a store edited or damaged by hand)."""
    try:
        value = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        raise DataError(f"{what} is damaged: not JSON ({str(raw)[:40]!r})") from None
    if kind is not None and not isinstance(value, kind):
        raise DataError(f"{what} is damaged: a JSON {type(value).__name__}, not a {kind.__name__}")
    return value


#: The largest integer an SQLite column holds (a signed 64-bit integer).
MAX_STORED_INT = 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(value: str | None) -> str | None:
    """``value`` as UTF-8 can hold it: each lone surrogate (``\\ud800``, which a server's
    JSON may carry) becomes U+FFFD, the replacement character, as a UTF-8 decoder
    writes an invalid sequence; any other text is kept as sent."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return value


def storable_count(value: Any) -> int | None:
    """A token count as a column holds it: a whole number from 0 to :data:`MAX_STORED_INT`
    (a larger one is stored as that maximum); anything else (negative, fractional,
    NaN, not a number) as NULL."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        value = int(value)
    if not isinstance(value, int) or value < 0:
        return None
    return min(value, MAX_STORED_INT)


def storable_real(value: Any) -> float | None:
    """A duration as a column holds it: a finite number, else NULL."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def storable_logprob(value: Any) -> float | None:
    """A log-probability as a column holds it: a number from minus infinity (probability
    0) to 0; NaN, positive infinity or anything not a number as NULL (not seen). A
    positive finite value, which only rounding makes, is kept."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if math.isnan(number) or number == math.inf:
        return None
    return number


@dataclass(frozen=True)
class ItemRecord:
    """One item of a study: a request with its attributes (a row of ``items``).

    ``prompt`` is the user prompt (or the raw context text of a scoring request);
    ``messages`` the chat messages as (role, content) pairs when the request is a chat,
    None for raw text; ``candidates`` the continuations a ``score`` item compares (a
    ``generate`` item has none). ``attributes`` (template, subject, condition, ...)
    become columns of :meth:`RunStore.samples`, in their order.
    """

    item_id: str
    ordinal: int
    kind: str
    prompt: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    messages: tuple[tuple[str, str], ...] | None = None
    candidates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        where = f"item {self.item_id!r}"
        if not isinstance(self.item_id, str) or not self.item_id:
            raise DataError(f"an item needs a non-empty string id, got {self.item_id!r}")
        if self.kind not in ITEM_KINDS:
            raise DataError(f"{where}: kind must be 'generate' or 'score', got {self.kind!r}")
        if self.kind == "score" and not self.candidates:
            raise DataError(f"{where}: a score item needs candidates")
        if self.kind == "generate" and self.candidates:
            raise DataError(f"{where}: a generate item has no candidates")
        if len(set(self.candidates)) != len(self.candidates):
            raise DataError(f"{where}: candidates must be distinct")
        if not all(isinstance(c, str) for c in self.candidates):
            raise DataError(f"{where}: candidates must be strings")
        for message in self.messages or ():
            if len(message) != 2 or not all(isinstance(part, str) for part in message):
                raise DataError(f"{where}: messages must be (role, content) string pairs")
        for key in self.attributes:
            if not isinstance(key, str) or key in RESERVED_NAMES:
                raise DataError(f"{where}: {key!r} cannot be an attribute name")

    def as_row(self) -> tuple[Any, ...]:
        """Values in the order of :data:`ITEM_COLUMNS` (JSON for the structured ones)."""
        messages = (
            None
            if self.messages is None
            else dumps([{"role": role, "content": content} for role, content in self.messages])
        )
        candidates = dumps(list(self.candidates)) if self.kind == "score" else None
        return (
            self.item_id,
            int(self.ordinal),
            self.kind,
            self.prompt,
            messages,
            candidates,
            dumps(dict(self.attributes)),
        )

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> ItemRecord:
        """Rebuild a record from the values of :data:`ITEM_COLUMNS`."""
        item_id, ordinal, kind, prompt, messages, candidates, attributes = row
        where = f"the stored item {item_id!r}"
        try:
            return cls(
                item_id=item_id,
                ordinal=int(ordinal),
                kind=kind,
                prompt=prompt,
                attributes=stored_json(attributes, f"{where}'s attributes", dict),
                messages=None
                if messages is None
                else tuple(
                    (m["role"], m["content"])
                    for m in stored_json(messages, f"{where}'s messages", list)
                ),
                candidates=()
                if candidates is None
                else tuple(stored_json(candidates, f"{where}'s candidates", list)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{where} is damaged ({type(exc).__name__}: {exc})") from None


@dataclass(frozen=True)
class SampleRecord:
    """One generation: a row of ``samples``, unique on (item_id, sample_index)."""

    item_id: str
    sample_index: int
    seed: int | None
    text: str | None
    stop_reason: str
    error: str | None = None
    fault_kinds: str | None = None
    model_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    attempts: int = 1
    created_at: str = ""
    queue_s: float | None = None

    def as_row(self, now: str = "") -> tuple[Any, ...]:
        """Values in the order of :data:`SAMPLE_COLUMNS`; ``now`` (or the current time) when
        the record has no ``created_at``."""
        now = now or utc_now()
        return (
            self.item_id,
            self.sample_index,
            self.seed,
            storable_text(self.text),
            self.stop_reason,
            *_answer_columns(self, now, (self.prompt_tokens, self.completion_tokens)),
        )


@dataclass(frozen=True)
class ScoreRecord:
    """The log-probability of one candidate: a row of ``scores``.

    Unique on (item_id, sample_index, candidate). ``tokens`` (and ``token_ids`` where
    the backend gives them) are the candidate's tokens the log-probability sums over;
    ``approximate`` marks a value not computed exactly (for example from top-k
    log-probabilities). ``logprob`` is None for an error row and when the candidate
    was not seen.
    """

    item_id: str
    sample_index: int
    candidate: str
    logprob: float | None
    tokens: tuple[str, ...] = ()
    token_ids: tuple[int, ...] | None = None
    approximate: bool = False
    status: str = "ok"
    error: str | None = None
    fault_kinds: str | None = None
    model_id: str | None = None
    prompt_tokens: int | None = None
    latency_s: float | None = None
    attempts: int = 1
    created_at: str = ""
    queue_s: float | None = None

    @property
    def n_tokens(self) -> int | None:
        """Number of tokens scored: of ``token_ids`` or ``tokens``; None when neither."""
        if self.token_ids is not None:
            return len(self.token_ids)
        return len(self.tokens) if self.tokens else None

    def as_row(self, now: str = "") -> tuple[Any, ...]:
        """Values in the order of :data:`SCORE_COLUMNS`; ``now`` (or the current time) when
        the record has no ``created_at``."""
        now = now or utc_now()
        return (
            self.item_id,
            self.sample_index,
            self.candidate,
            storable_logprob(self.logprob),
            self.n_tokens,
            dumps([storable_text(str(t)) for t in self.tokens]),
            None if self.token_ids is None else dumps([int(t) for t in self.token_ids]),
            int(bool(self.approximate)),
            self.status,
            *_answer_columns(self, now, (self.prompt_tokens,)),
        )


def _answer_columns(
    record: SampleRecord | ScoreRecord, now: str, tokens: tuple[int | None, ...]
) -> tuple[Any, ...]:
    """The columns every answer's row ends with, as stored: its error, faults and model,
    its token counts (``tokens``), latency, attempts, time (``now`` when it has none)
    and wait in the queue."""
    return (
        storable_text(record.error),
        storable_text(record.fault_kinds),
        storable_text(record.model_id),
        *(storable_count(count) for count in tokens),
        storable_real(record.latency_s),
        storable_count(record.attempts) or 1,
        record.created_at or now,
        storable_real(record.queue_s),
    )


@dataclass(frozen=True)
class ItemStateRecord:
    """The runner's decision for an item: a row of ``item_states``.

    ``counts`` holds the tallies behind the decision (for example the generations
    associated with women and men, ``{"F": 12, "M": 40}``), or None.
    """

    item_id: str
    status: str
    reason: str | None
    n_samples: int
    counts: Mapping[str, int] | None = None

    def as_row(self, now: str = "") -> tuple[Any, ...]:
        """Values in the order of :data:`ITEM_STATE_COLUMNS`, updated ``now`` (or the
        current time)."""
        now = now or utc_now()
        counts = None if self.counts is None else dumps(dict(self.counts))
        return (self.item_id, self.status, self.reason, self.n_samples, counts, now)
