"""What the runner and a backend exchange: requests, answers and their parts.

A :class:`GenerationRequest` asks for a continuation of a chat prompt and a
:class:`GenerationResponse` carries it back; a :class:`ScoreRequest` asks for the
log-probabilities of given continuations and a :class:`ScoreResponse` carries them. How
an answer ended is its :class:`StopReason` (refusals, truncation and content filtering
are data, never exceptions); a failed request still gets an answer
(:func:`error_response`).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from gasp.errors import ConfigError


class StopReason(enum.StrEnum):
    """Why a generation ended."""

    STOP = "stop"  # the model finished on its own
    LENGTH = "length"  # truncated at max_tokens
    CONTENT_FILTER = "content_filter"  # the provider filtered the output
    REFUSAL = "refusal"  # the model declined to answer
    ERROR = "error"  # no usable answer after every retry


@dataclass(frozen=True)
class DecodingConfig:
    """Validated decoding settings shared by every backend."""

    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and 0.0 <= self.temperature <= 2.0):
            raise ConfigError(f"temperature must be between 0 and 2, got {self.temperature}")
        if not (math.isfinite(self.top_p) and 0.0 < self.top_p <= 1.0):
            raise ConfigError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if self.seed is not None and self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed}")


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat prompt."""

    role: str
    content: str


@dataclass(frozen=True)
class GenerationRequest:
    """One sample to generate.

    ``key`` identifies the sample uniquely within a run (it includes the sample
    index, so repeated samples of one prompt stay distinct). ``seed`` is the
    per-sample seed derived from the run seed and the key, where the backend
    supports seeding.

    A request is a chat (``messages``, rendered with the model's chat template) or,
    with ``completion`` set, raw text the model continues (no template; ``messages``
    is then empty): a study's completion form for a base model. ``stop`` strings end
    the answer: its text is cut before the first of them (stop reason ``stop``), so a
    base model's continuation ends where the answer does.
    """

    key: str
    messages: tuple[ChatMessage, ...]
    decoding: DecodingConfig = field(default_factory=DecodingConfig)
    seed: int | None = None
    completion: str | None = None
    stop: tuple[str, ...] = ()

    @property
    def prompt(self) -> str:
        """The text to continue, or the content of the last user message (the prompt as
        written in the study)."""
        if self.completion is not None:
            return self.completion
        return self.messages[-1].content if self.messages else ""


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to the first of the ``stop`` strings, and whether one was found."""
    ends = [i for i in (text.find(s) for s in stop if s) if i >= 0]
    if not ends:
        return text, False
    return text[: min(ends)], True


@dataclass(frozen=True)
class GenerationResponse:
    """What a backend returned for one request."""

    text: str
    stop_reason: StopReason
    model_id: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    error: str | None = None
    attempts: int = 1
    fault_kinds: tuple[str, ...] = ()
    queue_s: float | None = None


@dataclass(frozen=True)
class ScoreRequest:
    """Candidate continuations of one context, each scored independently.

    ``context`` is raw text (no chat template) or chat messages (the chat template
    is applied with the generation prompt added, so each candidate continues the
    assistant turn). ``key`` identifies the request uniquely within a run.
    """

    key: str
    context: str | tuple[ChatMessage, ...]
    candidates: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.candidates:
            raise ConfigError(f"score request {self.key!r} has no candidates")


@dataclass(frozen=True)
class CandidateScore:
    """The score of one candidate continuation.

    ``logprob`` is the sum of the log-probabilities of the candidate's tokens (the
    chain rule), or ``None`` where an approximate backend did not see the
    candidate among the top log-probabilities. ``tokens`` are the continuation's
    tokens as the tokenizer or provider gives them, ``token_ids`` their ids where
    known (else ``()``). ``approximate`` marks first-token top-logprob scores.
    """

    candidate: str
    logprob: float | None
    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]
    approximate: bool


@dataclass(frozen=True)
class ScoreResponse:
    """What a backend returned for one :class:`ScoreRequest`.

    ``scores`` holds one entry per candidate in the request's order; it is empty
    and ``error`` is set when no usable answer came after every retry.
    """

    scores: tuple[CandidateScore, ...]
    model_id: str
    error: str | None = None
    prompt_tokens: int | None = None
    latency_s: float | None = None
    attempts: int = 1
    fault_kinds: tuple[str, ...] = ()
    queue_s: float | None = None

    @property
    def ok(self) -> bool:
        """True when the scores are usable (no error)."""
        return self.error is None


#: A request or answer of either kind.
AnyRequest = GenerationRequest | ScoreRequest
AnyResponse = GenerationResponse | ScoreResponse


def error_response(
    request: AnyRequest,
    model_id: str,
    error: str,
    fault_kinds: tuple[str, ...],
    attempts: int = 1,
) -> AnyResponse:
    """The failed answer to ``request``: no text (or no scores), ``error`` set."""
    if isinstance(request, ScoreRequest):
        return ScoreResponse(
            scores=(), model_id=model_id, error=error, attempts=attempts, fault_kinds=fault_kinds
        )
    return GenerationResponse(
        text="",
        stop_reason=StopReason.ERROR,
        model_id=model_id,
        error=error,
        attempts=attempts,
        fault_kinds=fault_kinds,
    )
