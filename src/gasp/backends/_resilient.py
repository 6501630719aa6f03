"""The one wrapper that owns concurrency, retries, rate limits and timeouts."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Protocol, cast

import numpy as np

from gasp.backends._admission import CallClock
from gasp.backends._base import Capability, ModelBackend
from gasp.backends._faults import FaultAction, FaultDecision, classify_error
from gasp.backends._messages import (
    AnyRequest,
    AnyResponse,
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
    error_response,
)
from gasp.backends._retry import RetryPolicy
from gasp.errors import BackendError, ConfigError, GaspError

logger = logging.getLogger("gasp.backends")

SleepFn = Callable[[float], Awaitable[None]]


class RequestSource(Protocol):
    """Where :meth:`ResilientModel.stream` pulls its requests from."""

    def take(self, limit: int) -> Sequence[GenerationRequest | ScoreRequest]:
        """Up to `limit` requests ready now ([] when none is ready right now)."""
        ...


class _ListSource:
    """A fixed list of requests, handed out in order."""

    def __init__(self, requests: Sequence[AnyRequest]) -> None:
        self._requests = list(requests)
        self._next = 0

    def take(self, limit: int) -> list[AnyRequest]:
        taken = self._requests[self._next : self._next + limit]
        self._next += len(taken)
        return taken


class ResilientModel:
    """Wraps a :class:`ModelBackend` with bounded concurrency, retries and timeouts.

    :meth:`generate` never raises for a transient fault: it retries with
    exponential backoff and jitter (waiting at least a server's ``Retry-After``;
    a rate limit pauses every request of this wrapper, not only the one that hit
    it) and, after the last attempt, returns a response with
    :attr:`StopReason.ERROR` and ``error`` set. :meth:`score` does the same for
    score requests (an error :class:`ScoreResponse`), and :meth:`stream` runs
    both kinds from a :class:`RequestSource`. Every response records its
    ``attempts`` and the ``fault_kinds`` met on the way. Only errors the user
    must fix (authentication, unknown model, unreachable server, a missing
    model file) raise :class:`~gasp.errors.BackendError`.

    Args:
        backend: the model to call.
        max_concurrency: most calls to the backend in flight at once (requests,
            or batches for batching backends).
        retry: the retry and timeout policy.
        batch_size: requests per call for backends with ``supports_batching``
            (default: the backend's :meth:`~ModelBackend.preferred_batch_size`,
            which may load the model to choose it).
        seed: seeds the jitter of the backoff delays.
        sleep: the coroutine used to wait (tests pass a recorder).
    """

    def __init__(
        self,
        backend: ModelBackend,
        *,
        max_concurrency: int = 16,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 - frozen dataclass
        batch_size: int | None = None,
        seed: int = 0,
        sleep: SleepFn = asyncio.sleep,
    ) -> None:
        if max_concurrency < 1:
            raise ConfigError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if batch_size is None and backend.supports_batching:
            batch_size = backend.preferred_batch_size()
        size = backend.batch_size if batch_size is None else batch_size
        if size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {size}")
        self.backend = backend
        self.max_concurrency = max_concurrency
        self.retry = retry
        self.batch_size = size if backend.supports_batching else 1
        self._sleep = sleep
        self._rng = np.random.default_rng(seed)
        self._semaphore: asyncio.Semaphore | None = None
        self._semaphore_loop: asyncio.AbstractEventLoop | None = None
        self._cooldown_until = 0.0
        #: Calls to the backend in flight now, and the most seen at once.
        self.in_flight = 0
        self.max_in_flight = 0
        #: Faults met so far, by kind, over every request.
        self.fault_counts: collections.Counter[str] = collections.Counter()

    @property
    def model_id(self) -> str:
        """The wrapped backend's model identifier."""
        return self.backend.model_id

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """Generate one response, retrying transient faults; see the class docstring."""
        (response,) = await self._run([request])
        return cast(GenerationResponse, response)

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        """Score one request, retrying transient faults like :meth:`generate`.

        After the last attempt it returns a response with ``error`` set and no
        scores.
        """
        (response,) = await self._run([request])
        return cast(ScoreResponse, response)

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What the wrapped backend can do."""
        return self.backend.capabilities

    def check_score_request(self, request: ScoreRequest) -> None:
        """Refuse up front a request the backend cannot score (see the backend's method)."""
        self.backend.check_score_request(request)

    async def generate_many(
        self, requests: Sequence[GenerationRequest]
    ) -> AsyncIterator[GenerationResponse]:
        """Yield one response per request, in the order they complete.

        At most ``max_concurrency`` backend calls run at once; batching backends
        get the requests in batches of ``batch_size``. Leaving the loop early
        cancels the calls still running. A fatal error cancels the rest and
        raises :class:`~gasp.errors.BackendError`.
        """
        async for _, response in self.stream(_ListSource(requests)):
            yield response  # type: ignore[misc]

    async def stream(self, source: RequestSource) -> AsyncIterator[tuple[AnyRequest, AnyResponse]]:
        """Yield ``(request, response)`` pairs in completion order, pulling from ``source``.

        Up to ``2 * max_concurrency`` calls (one request, or for batching backends
        up to ``batch_size`` requests of one kind) are kept under way, at most
        ``max_concurrency`` of them at the backend at once. ``source.take`` is
        called again after every yield, since the consumer may have made new
        requests ready; the stream ends when it returns ``[]`` and nothing is
        under way. A fatal :class:`~gasp.errors.BackendError` first yields every
        response already completed, then cancels the rest and raises. Leaving the
        loop early cancels the calls under way.
        """
        window = 2 * self.max_concurrency
        ready: collections.deque[list[AnyRequest]] = collections.deque()
        pending: set[asyncio.Task[list[tuple[AnyRequest, AnyResponse]]]] = set()
        try:
            self._refill(source, ready, pending, window)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                # Retrieve every exception first, so none is left unretrieved on a task.
                failures = [exc for exc in (t.exception() for t in done) if exc is not None]
                completed = [t.result() for t in done if t.exception() is None]
                for i, pairs in enumerate(completed):
                    for j, pair in enumerate(pairs):
                        yield pair
                        if not failures:
                            # units completed but not yet yielded still count in the window
                            waiting = len(completed) - i - (j == len(pairs) - 1)
                            self._refill(source, ready, pending, window - waiting)
                if failures:
                    raise failures[0]
                self._refill(source, ready, pending, window)
        finally:
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    async def aclose(self) -> None:
        """Release the backend's connections or device memory."""
        await self.backend.aclose()

    async def __aenter__(self) -> ResilientModel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- internals -------------------------------------------------------------

    def _refill(
        self,
        source: RequestSource,
        ready: collections.deque[list[AnyRequest]],
        pending: set[asyncio.Task[list[tuple[AnyRequest, AnyResponse]]]],
        window: int,
    ) -> None:
        """Start calls until ``window`` are under way or the source has nothing ready."""
        while len(pending) < window:
            if not ready:
                taken = source.take(self.batch_size)
                if not taken:
                    return
                scores: list[AnyRequest] = [r for r in taken if isinstance(r, ScoreRequest)]
                generations: list[AnyRequest] = [
                    r for r in taken if not isinstance(r, ScoreRequest)
                ]
                ready.extend(unit for unit in (generations, scores) if unit)
            pending.add(asyncio.create_task(self._run_pairs(ready.popleft())))

    async def _run_pairs(self, unit: list[AnyRequest]) -> list[tuple[AnyRequest, AnyResponse]]:
        responses = await self._run(unit)
        return list(zip(unit, responses, strict=True))

    async def _run(self, batch: list[AnyRequest]) -> list[AnyResponse]:
        faults: list[str] = []
        loop = asyncio.get_running_loop()
        deadline = None if self.retry.deadline_s is None else loop.time() + self.retry.deadline_s
        for attempt in range(1, self.retry.max_attempts + 1):
            await self._wait_cooldown(deadline)
            timeout = None if self.retry.timeout_s is None else self.retry.timeout_s * len(batch)
            if deadline is not None:
                left = max(deadline - loop.time(), 0.001)
                timeout = left if timeout is None else min(timeout, left)
            clock = CallClock(timeout)
            try:
                responses = await self._call(batch, clock)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                decision = classify_error(exc)
                if decision.action is FaultAction.FATAL:
                    if isinstance(exc, GaspError):
                        raise
                    raise BackendError(f"{self.model_id}: {decision.message}") from None
                faults.append(decision.kind)
                self.fault_counts[decision.kind] += 1
                give_up = (
                    decision.action is FaultAction.GIVE_UP or attempt == self.retry.max_attempts
                )
                delay = 0.0
                if not give_up:
                    delay = self.retry.wait_s(
                        attempt, float(self._rng.random()), decision.retry_after_s
                    )
                if deadline is not None and loop.time() + delay >= deadline:
                    # no attempt would start before the deadline: give up now, saying why
                    give_up = True
                    decision = dataclasses.replace(
                        decision,
                        message=f"{decision.message or decision.kind}; the request's deadline "
                        f"of {self.retry.deadline_s:g} s has passed or would before another try",
                    )
                if give_up:
                    # a note, not a warning: the run's summary (or its one-line error when
                    # every request failed) counts the failed requests by kind
                    logger.info(
                        "%s: giving up after %d attempt(s): %s",
                        self.model_id,
                        attempt,
                        decision.kind,
                    )
                    return [self._error_response(r, decision, attempt, faults) for r in batch]
                await self._back_off(delay, decision)
                continue
            return [
                dataclasses.replace(
                    r,
                    attempts=attempt,
                    fault_kinds=(*faults, *r.fault_kinds),
                    latency_s=r.latency_s if r.latency_s is not None else clock.compute_s,
                    queue_s=clock.queue_s,
                )
                for r in responses
            ]
        raise AssertionError("unreachable: the loop returns on its last attempt")

    async def _call(self, batch: list[AnyRequest], clock: CallClock) -> list[AnyResponse]:
        """One attempt; its timeout runs from when the batch reaches the model (``clock``)."""
        single = len(batch) == 1 and not self.backend.supports_batching
        responses: Sequence[AnyResponse]
        async with self._bound():
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                async with clock.running(self.backend.reports_model_turn):
                    if isinstance(batch[0], ScoreRequest):
                        scores = cast(list[ScoreRequest], batch)
                        if single:
                            return [await self.backend.score(scores[0])]
                        responses = await self.backend.score_batch(scores)
                    else:
                        generations = cast(list[GenerationRequest], batch)
                        if single:
                            return [await self.backend.generate(generations[0])]
                        responses = await self.backend.generate_batch(generations)
            finally:
                self.in_flight -= 1
        if len(responses) != len(batch):
            raise RuntimeError(
                f"backend returned {len(responses)} responses for {len(batch)} requests"
            )
        return list(responses)

    def _bound(self) -> asyncio.Semaphore:
        """The concurrency bound of the running event loop (one wrapper may outlive a loop)."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._semaphore_loop is not loop:
            self._semaphore = asyncio.Semaphore(self.max_concurrency)
            self._semaphore_loop = loop
        return self._semaphore

    async def _back_off(self, delay: float, decision: FaultDecision) -> None:
        if decision.action is FaultAction.RATE_LIMIT:
            # Every request of this wrapper waits, this one included (at the top of its
            # next attempt), so the server sees no calls until the cool-down is over.
            loop = asyncio.get_running_loop()
            self._cooldown_until = max(self._cooldown_until, loop.time() + delay)
            return
        await self._sleep(delay)

    async def _wait_cooldown(self, deadline: float | None = None) -> None:
        """Wait out the wrapper's cool-down (a server's rate limit), never past
        ``deadline`` (the request's own)."""
        now = asyncio.get_running_loop().time()
        until = self._cooldown_until if deadline is None else min(self._cooldown_until, deadline)
        if until > now:
            await self._sleep(until - now)

    def _error_response(
        self,
        request: AnyRequest,
        decision: FaultDecision,
        attempts: int,
        faults: list[str],
    ) -> AnyResponse:
        detail = f"{decision.kind}: {decision.message}" if decision.message else decision.kind
        error = f"{detail} (after {attempts} attempt(s))"
        asked = decision.retry_after_s
        if asked is not None and asked > self.retry.max_delay_s:  # capped: said so
            error += (
                f"; the server asked to wait {asked:g} s (Retry-After), gasp waits at most "
                f"{self.retry.max_delay_s:g} s per attempt"
            )
        return error_response(request, self.model_id, error, tuple(faults), attempts)
