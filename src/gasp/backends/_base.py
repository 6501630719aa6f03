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
from collections.abc import Callable, Sequence

from gasp.backends._messages import (
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
)
from gasp.errors import BackendError


class Capability(enum.StrEnum):
    """What a backend can be asked to do."""

    GENERATE = "generate"  # sample a continuation of a chat prompt
    SCORE = "score"  # the log-probability of given continuations


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
