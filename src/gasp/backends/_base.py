"""The contract between the runner and every model backend.

A backend only translates a :class:`GenerationRequest` (or a
:class:`ScoreRequest`, where it has :attr:`Capability.SCORE`) into a call to a
model and the answer back into a :class:`GenerationResponse` (or
:class:`ScoreResponse`). Concurrency, retries, timeouts
and rate limits live once, in the wrapper around it. Refusals, truncation and
content filtering are data on the response (its :class:`StopReason`), never
exceptions.
"""

from __future__ import annotations

import abc
import asyncio
import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gasp.errors import BackendError, ConfigError


class Capability(enum.StrEnum):
    """What a backend can be asked to do."""

    GENERATE = "generate"  # sample a continuation of a chat prompt
    SCORE = "score"  # the log-probability of given continuations


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


#: The providers that can score, as named in capability errors.
SCORING_PROVIDERS = "embedded, hf, vllm, openai, openai-compatible (approximate), mock/scoring"

_CAPABILITY_VERBS = {
    Capability.GENERATE: "generate text",
    Capability.SCORE: "score continuations",
}


class ModelBackend(abc.ABC):
    """A model behind one async call; subclasses translate requests, nothing more."""

    #: The resolved model identifier recorded in the run manifest.
    model_id: str
    #: Local backends batch; API backends are called once per request concurrently.
    supports_batching: bool = False
    #: Requests per :meth:`generate_batch` call the wrapper sends when batching.
    batch_size: int = 16
    #: What this backend can be asked to do.
    capabilities: frozenset[Capability] = frozenset({Capability.GENERATE})
    #: The engine and precision that generate, where a backend offers several (recorded
    #: in the manifest; a run resumes only on the engine that began it).
    generation_engine: str | None = None
    #: Whether the model has a chat template; one without (a base model) gets a study's
    #: completion form under ``prompt_form=auto``.
    has_chat_template: bool = True
    #: Whether the backend reports when a call reaches its model (it takes the model's
    #: lock with :func:`~gasp.backends._admission.model_turn`): the wrapper's timeout and
    #: latency then start there, not while the call waits for the lock.
    reports_model_turn: bool = False

    def preferred_batch_size(self) -> int:
        """Requests per :meth:`generate_batch` call; a local backend may choose it on its device."""
        return self.batch_size

    def batching_note(self) -> str:
        """How this backend batches, for the run summary ("" for backends that do not batch)."""
        return f"{self.batch_size} requests per batch" if self.supports_batching else ""

    @abc.abstractmethod
    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """Generate one response. Transient faults raise; the wrapper retries them."""

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse]:
        """Generate several responses; local backends override this to batch on the device."""
        return [await self.generate(r) for r in requests]

    def check_score_request(self, request: ScoreRequest) -> None:
        """Raise :class:`ConfigError` for a request this backend cannot score faithfully.

        The runner calls it for every request before sending any; the default
        accepts everything a scoring backend is given and refuses everything
        where the backend cannot score at all.
        """
        require_capability(self, Capability.SCORE)

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        """Score one request's candidates. Backends that can score override this."""
        require_capability(self, Capability.SCORE)
        raise NotImplementedError  # pragma: no cover - require_capability raised

    async def score_batch(self, requests: Sequence[ScoreRequest]) -> list[ScoreResponse]:
        """Score several requests; local backends override this to batch on the device."""
        return [await self.score(r) for r in requests]

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections or device memory."""


def require_capability(backend: object, capability: Capability, reason_context: str = "") -> None:
    """Raise :class:`BackendError` (one line) unless ``backend`` has ``capability``.

    ``backend`` is a :class:`ModelBackend` or anything with ``capabilities`` and
    ``model_id`` (such as :class:`~gasp.backends.ResilientModel`);
    ``reason_context`` says why it is needed (for example ``"study occugender"``).
    """
    capabilities = getattr(backend, "capabilities", frozenset({Capability.GENERATE}))
    if capability in capabilities:
        return
    model_id = getattr(backend, "model_id", type(backend).__name__)
    verb = _CAPABILITY_VERBS.get(capability, str(capability))
    why = f" for {reason_context}" if reason_context else ""
    tail = f"; backends that can: {SCORING_PROVIDERS}" if capability is Capability.SCORE else ""
    raise BackendError(f"{model_id} cannot {verb}{why} (capability '{capability}'){tail}")


def generate_by_decoding(
    requests: Sequence[GenerationRequest],
    generate_group: Callable[[list[GenerationRequest]], list[GenerationResponse]],
) -> list[GenerationResponse]:
    """One response per request, in order: ``generate_group`` once per decoding setting.

    A local engine decodes a whole call with one temperature, top-p, token limit and
    set of stop strings, so a batch mixing settings is split by them.
    """
    groups: dict[tuple[float, float, int, tuple[str, ...]], list[int]] = {}
    for i, r in enumerate(requests):
        d = r.decoding
        groups.setdefault((d.temperature, d.top_p, d.max_tokens, r.stop), []).append(i)
    out: list[GenerationResponse | None] = [None] * len(requests)
    for indices in groups.values():
        answers = generate_group([requests[i] for i in indices])
        for i, response in zip(indices, answers, strict=True):
            out[i] = response
    return [r for r in out if r is not None]


class ThreadedBatchBackend(ModelBackend):
    """A local backend whose blocking batch call runs in a worker thread.

    Subclasses implement :meth:`_generate_sync`; one request is a batch of one. They
    run one batch at a time on their model, holding its lock with
    :func:`~gasp.backends._admission.model_turn`.
    """

    supports_batching = True
    reports_model_turn = True

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """Generate one response (a batch of one)."""
        (response,) = await self.generate_batch([request])
        return response

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse]:
        """Generate a batch in a worker thread, leaving the event loop free."""
        return await asyncio.to_thread(self._generate_sync, list(requests))

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        """Score one request (a batch of one)."""
        (response,) = await self.score_batch([request])
        return response

    async def score_batch(self, requests: Sequence[ScoreRequest]) -> list[ScoreResponse]:
        """Score a batch in a worker thread, leaving the event loop free."""
        require_capability(self, Capability.SCORE)
        return await asyncio.to_thread(self._score_sync, list(requests))

    @abc.abstractmethod
    def _generate_sync(self, requests: list[GenerationRequest]) -> list[GenerationResponse]:
        """Generate one response per request, in order (blocking)."""

    def _score_sync(self, requests: list[ScoreRequest]) -> list[ScoreResponse]:
        """Score one response per request, in order (blocking); scoring backends override."""
        require_capability(self, Capability.SCORE)
        raise NotImplementedError  # pragma: no cover - require_capability raised
