"""A scripted, deterministic backend for tests and dry runs (``mock/<script>``)."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gasp.backends._base import Capability, ModelBackend, require_capability
from gasp.backends._faults import TransientBackendError
from gasp.backends._messages import (
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
    StopReason,
    cut_at_stop,
)
from gasp.backends._mock_scoring import TableScorer, parse_boost, parse_table
from gasp.backends._options import Options
from gasp.backends._personas import PersonaMix, persona_text, stable_int, stable_uniform
from gasp.errors import BackendError

Responder = Callable[[GenerationRequest], "str | GenerationResponse"]
Scorer = Callable[[ScoreRequest], ScoreResponse]

MOCK_SCRIPTS = ("echo", "personas", "constant", "scoring")


class MockBackend(ModelBackend):
    """Answers each request with ``responder(request)``, optionally slow or flaky.

    A responder returning a string gets it wrapped in a response: truncated to
    ``max_tokens`` whitespace-separated words (stop reason ``LENGTH``) or kept
    whole (``STOP``). A responder may also return a full
    :class:`GenerationResponse` (for refusals, content filtering ...).
    ``failure_rate`` injects transient ``server_error`` faults, decided by a hash
    of (seed, request key, attempt) so runs are reproducible whatever the order.
    With a ``scorer`` the backend can also score (:attr:`Capability.SCORE`);
    score requests get the same latency and injected faults.
    """

    def __init__(
        self,
        responder: Responder,
        *,
        model_id: str = "mock/custom",
        latency_s: float = 0.0,
        failure_rate: float = 0.0,
        seed: int = 0,
        supports_batching: bool = False,
        batch_size: int = 16,
        scorer: Scorer | None = None,
        latency_per_word_s: float = 0.0,
    ) -> None:
        self.responder = responder
        #: Extra latency per word of a generation request's messages (a longer prompt,
        #: a system prompt say, takes longer, as on a real engine).
        self.latency_per_word_s = latency_per_word_s
        self.scorer = scorer
        if scorer is not None:
            self.capabilities = frozenset({Capability.GENERATE, Capability.SCORE})
        self.model_id = model_id
        self.latency_s = latency_s
        self.failure_rate = failure_rate
        self.seed = seed
        self.supports_batching = supports_batching
        self.batch_size = batch_size
        #: Calls received per request key (attempts included).
        self.calls: collections.Counter[str] = collections.Counter()
        #: Sizes of the batches received by :meth:`generate_batch`.
        self.batch_sizes: list[int] = []

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """Answer one request after ``latency_s`` (and ``latency_per_word_s`` per word of
        its messages), or raise an injected fault."""
        await self._wait([request])
        return self._answer(request)

    async def _wait(self, requests: Sequence[GenerationRequest]) -> None:
        words = sum(len(m.content.split()) for r in requests for m in r.messages)
        delay = self.latency_s + self.latency_per_word_s * words
        if delay > 0:
            await asyncio.sleep(delay)

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse]:
        """Answer a batch at once (one latency for the whole batch, and the per-word
        latency of all its requests' words)."""
        self.batch_sizes.append(len(requests))
        await self._wait(requests)
        for request in requests[1:]:
            self.calls[request.key] += 1
        # the whole batch fails or succeeds together, decided by its first request
        return [self._answer(requests[0])] + [self._respond(r) for r in requests[1:]]

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        """Score one request after ``latency_s``, or raise an injected fault."""
        require_capability(self, Capability.SCORE)
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        self._maybe_fail(request.key)
        return self._score(request)

    async def score_batch(self, requests: Sequence[ScoreRequest]) -> list[ScoreResponse]:
        """Score a batch at once; it fails or succeeds together, decided by its first request."""
        require_capability(self, Capability.SCORE)
        self.batch_sizes.append(len(requests))
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        for request in requests[1:]:
            self.calls[request.key] += 1
        self._maybe_fail(requests[0].key)
        return [self._score(r) for r in requests]

    def _score(self, request: ScoreRequest) -> ScoreResponse:
        if self.scorer is None:  # pragma: no cover - require_capability checked
            raise AssertionError("no scorer")
        return self.scorer(request)

    def _maybe_fail(self, key: str) -> None:
        self.calls[key] += 1
        attempt = self.calls[key]
        if self.failure_rate > 0 and (
            stable_uniform(self.seed, "fault", key, attempt) < self.failure_rate
        ):
            raise TransientBackendError("server_error", "injected failure")

    def _answer(self, request: GenerationRequest) -> GenerationResponse:
        self._maybe_fail(request.key)
        return self._respond(request)

    def _respond(self, request: GenerationRequest) -> GenerationResponse:
        out = self.responder(request)
        if isinstance(out, GenerationResponse):
            return out
        words = out.split()
        limit = request.decoding.max_tokens
        stop = StopReason.STOP
        if len(words) > limit:
            out, stop = " ".join(words[:limit]), StopReason.LENGTH
        out, cut = cut_at_stop(out, request.stop)
        if cut:
            out, stop = out.strip(), StopReason.STOP
        prompt_words = len(request.completion.split()) if request.completion is not None else 0
        return GenerationResponse(
            text=out,
            stop_reason=stop,
            model_id=self.model_id,
            prompt_tokens=prompt_words + sum(len(m.content.split()) for m in request.messages),
            completion_tokens=min(len(words), limit),
        )


def request_rng(seed: int, request: GenerationRequest) -> np.random.Generator:
    """A generator determined by the backend seed, the request key and its seed."""
    extra = -1 if request.seed is None else request.seed
    return np.random.default_rng([seed, stable_int(request.key), stable_int(extra)])


def make_mock_backend(script: str, options: Mapping[str, Any] | None = None) -> MockBackend:
    """Build ``mock/<script>``: ``echo``, ``personas``, ``constant`` or ``scoring``.

    Options: ``seed``, ``latency_s``, ``latency_per_word_s`` (more per word of a
    generation request's messages), ``failure_rate``, ``batching`` (bool),
    ``batch_size``; for ``personas`` also ``female_share``, ``nonbinary_share``,
    ``bias`` and ``sentences`` (see :class:`PersonaMix`); for ``constant``
    ``text``; for ``scoring`` ``table``, ``unknown_p`` and ``boost`` (see
    :class:`~gasp.backends._mock_scoring.TableScorer`). ``mock/scoring`` answers
    generation requests with the constant text.
    """
    opts = Options(options, provider=f"mock/{script}")
    seed = opts.get_int("seed", 0, minimum=0)
    latency_s = opts.get_float("latency_s", 0.0, minimum=0.0)
    per_word = opts.get_float("latency_per_word_s", 0.0, minimum=0.0)
    failure_rate = opts.get_float("failure_rate", 0.0, minimum=0.0, maximum=1.0)
    batching = opts.get_bool("batching", False)
    batch_size = opts.get_int("batch_size", 16, minimum=1)
    responder: Responder
    scorer: Scorer | None = None
    if script == "echo":

        def responder(request: GenerationRequest) -> str:
            return request.prompt

    elif script == "personas":
        mix = PersonaMix(
            female_share=opts.get_float("female_share", 0.5, minimum=0.0, maximum=1.0),
            nonbinary_share=opts.get_float("nonbinary_share", 0.0, minimum=0.0, maximum=1.0),
            bias=opts.get_float("bias", 0.0, minimum=0.0, maximum=1.0),
            sentences=opts.get_int("sentences", 4, minimum=1),
        )

        def responder(request: GenerationRequest) -> str:
            return persona_text(request.prompt, request_rng(seed, request), mix)

    elif script in {"constant", "scoring"}:
        text = opts.get_str("text", "A constant answer.")

        def responder(request: GenerationRequest) -> str:
            return text

        if script == "scoring":
            table = parse_table(opts.get_raw("table"), provider="mock/scoring")
            unknown_p = opts.get_float("unknown_p", 0.01, minimum=1e-12, maximum=1.0)
            boosts = parse_boost(opts.get_raw("boost"), provider="mock/scoring")
            scorer = TableScorer(f"mock/{script}", table, unknown_p, boosts)

    else:
        raise BackendError(
            f"unknown mock script {script!r}; choose one of: "
            + ", ".join(f"mock/{s}" for s in MOCK_SCRIPTS)
        )
    opts.reject_unknown()
    return MockBackend(
        responder,
        model_id=f"mock/{script}",
        latency_s=latency_s,
        failure_rate=failure_rate,
        seed=seed,
        supports_batching=batching,
        batch_size=batch_size,
        scorer=scorer,
        latency_per_word_s=per_word,
    )
