"""ResilientModel.stream: completion order, the in-flight bound, refills, errors, cancelling."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from gasp.backends import (
    CandidateScore,
    Capability,
    ChatMessage,
    GenerationRequest,
    GenerationResponse,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    ScoreRequest,
    ScoreResponse,
    StopReason,
)
from gasp.errors import BackendError

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.0, max_delay_s=0.0, jitter=0.0, timeout_s=5.0)

Request = GenerationRequest | ScoreRequest


def gen(key: str) -> GenerationRequest:
    return GenerationRequest(key, (ChatMessage("user", key),))


def score(key: str) -> ScoreRequest:
    return ScoreRequest(key, key, (" a",))


class Scripted(ModelBackend):
    """Answers after a per-key delay (default 0), or raises a per-key exception."""

    capabilities = frozenset({Capability.GENERATE, Capability.SCORE})

    def __init__(
        self,
        delays: dict[str, float] | None = None,
        errors: dict[str, BaseException] | None = None,
        *,
        batching: bool = False,
        batch_size: int = 4,
    ) -> None:
        self.model_id = "test/scripted"
        self.delays = delays or {}
        self.errors = errors or {}
        self.supports_batching = batching
        self.batch_size = batch_size
        self.in_flight = 0
        self.max_in_flight = 0
        self.cancelled: list[str] = []
        self.batches: list[list[str]] = []

    async def _wait(self, keys: list[str]) -> None:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = max(self.delays.get(k, 0.0) for k in keys)
            if delay:
                await asyncio.sleep(delay)
            for key in keys:
                if key in self.errors:
                    raise self.errors[key]
        except asyncio.CancelledError:
            self.cancelled.extend(keys)
            raise
        finally:
            self.in_flight -= 1

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        await self._wait([request.key])
        return GenerationResponse(request.key, StopReason.STOP, self.model_id)

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse]:
        self.batches.append([r.key for r in requests])
        await self._wait([r.key for r in requests])
        return [GenerationResponse(r.key, StopReason.STOP, self.model_id) for r in requests]

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        await self._wait([request.key])
        return self._scored(request)

    async def score_batch(self, requests: Sequence[ScoreRequest]) -> list[ScoreResponse]:
        self.batches.append([r.key for r in requests])
        await self._wait([r.key for r in requests])
        return [self._scored(r) for r in requests]

    def _scored(self, request: ScoreRequest) -> ScoreResponse:
        scores = tuple(CandidateScore(c, -1.0, (c,), (), False) for c in request.candidates)
        return ScoreResponse(scores, self.model_id)


class Source:
    """Hands out its queue; records how many requests were taken and the limits asked."""

    def __init__(self, requests: Sequence[Request] = ()) -> None:
        self.queue = list(requests)
        self.taken = 0
        self.limits: list[int] = []

    def take(self, limit: int) -> list[Request]:
        self.limits.append(limit)
        out, self.queue = self.queue[:limit], self.queue[limit:]
        self.taken += len(out)
        return out


async def _drain(model: ResilientModel, source: Source) -> list[tuple[Request, object]]:
    return [pair async for pair in model.stream(source)]


def test_pairs_come_in_completion_order_and_match_their_requests() -> None:
    backend = Scripted(delays={"slow": 0.05, "mid": 0.02})
    source = Source([gen("slow"), score("mid"), gen("fast")])
    pairs = asyncio.run(_drain(ResilientModel(backend, retry=FAST), source))
    assert [r.key for r, _ in pairs] == ["fast", "mid", "slow"]
    for request, response in pairs:
        if isinstance(request, ScoreRequest):
            assert isinstance(response, ScoreResponse) and response.ok
        else:
            assert isinstance(response, GenerationResponse) and response.text == request.key


def test_in_flight_calls_are_bounded() -> None:
    backend = Scripted(delays={f"k{i}": 0.005 for i in range(30)})
    source = Source([gen(f"k{i}") if i % 2 else score(f"k{i}") for i in range(30)])
    model = ResilientModel(backend, max_concurrency=3, retry=FAST)

    async def run() -> int:
        most_outstanding = 0
        yielded = 0
        async for _ in model.stream(source):
            yielded += 1
            most_outstanding = max(most_outstanding, source.taken - yielded)
        return most_outstanding

    most_outstanding = asyncio.run(run())
    assert backend.max_in_flight == 3  # the backend never sees more than max_concurrency
    assert most_outstanding <= 2 * 3  # at most 2 * max_concurrency calls under way
    assert source.taken == 30 and set(source.limits) == {1}


def test_the_source_is_asked_again_after_each_yield() -> None:
    source = Source([score("k0")])
    model = ResilientModel(Scripted(), retry=FAST)

    async def run() -> list[str]:
        seen = []
        async for request, _ in model.stream(source):
            seen.append(request.key)
            n = len(seen)
            if n < 5:  # each answer makes the next request ready
                source.queue.append(score(f"k{n}") if n % 2 else gen(f"k{n}"))
        return seen

    assert asyncio.run(run()) == ["k0", "k1", "k2", "k3", "k4"]
    assert source.limits[-1] == 1 and source.queue == []


def test_batching_backends_get_units_of_one_kind() -> None:
    backend = Scripted(batching=True, batch_size=4)
    requests: list[Request] = [gen(f"g{i}") if i % 3 else score(f"s{i}") for i in range(12)]
    source = Source(requests)
    pairs = asyncio.run(_drain(ResilientModel(backend, retry=FAST), source))
    assert sorted(r.key for r, _ in pairs) == sorted(r.key for r in requests)
    assert set(source.limits) == {4}
    for batch in backend.batches:
        assert len(batch) <= 4
        assert len({key[0] for key in batch}) == 1  # all g... or all s...


def test_a_fatal_error_yields_what_completed_then_cancels_and_raises() -> None:
    backend = Scripted(
        delays={"slow": 5.0},
        errors={"bad": BackendError("test/scripted: authentication failed")},
    )
    source = Source([gen("slow"), gen("ok1"), score("bad"), score("ok2")])
    model = ResilientModel(backend, max_concurrency=4, retry=FAST)
    seen: list[str] = []

    async def run() -> None:
        async for request, _ in model.stream(source):
            seen.append(request.key)

    with pytest.raises(BackendError, match="authentication"):
        asyncio.run(run())
    assert sorted(seen) == ["ok1", "ok2"]
    assert backend.cancelled == ["slow"]


def test_leaving_the_loop_early_cancels_calls_under_way() -> None:
    backend = Scripted(delays={"slow1": 5.0, "slow2": 5.0})
    source = Source([gen("slow1"), gen("fast"), score("slow2")])
    model = ResilientModel(backend, retry=FAST)

    async def run() -> str:
        stream = model.stream(source)
        async for request, _ in stream:
            await stream.aclose()
            return request.key
        raise AssertionError("nothing yielded")

    assert asyncio.run(run()) == "fast"
    assert sorted(backend.cancelled) == ["slow1", "slow2"]


def test_an_empty_source_ends_the_stream_at_once() -> None:
    assert asyncio.run(_drain(ResilientModel(Scripted(), retry=FAST), Source())) == []


def test_generate_many_still_yields_responses_only() -> None:
    model = ResilientModel(Scripted(delays={"a": 0.02}), retry=FAST)

    async def run() -> list[str]:
        return [r.text async for r in model.generate_many([gen("a"), gen("b")])]

    assert asyncio.run(run()) == ["b", "a"]
