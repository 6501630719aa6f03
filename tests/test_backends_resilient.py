"""The wrapper: retries, Retry-After, timeouts, bounded concurrency, batching."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence

import pytest

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    GenerationResponse,
    MockBackend,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    StopReason,
    TransientBackendError,
)
from gasp.errors import BackendError, ConfigError

FAST = RetryPolicy(max_attempts=4, base_delay_s=0.0, max_delay_s=0.0, jitter=0.0, timeout_s=5.0)


def _request(key: str, prompt: str = "Describe a nurse.", **decoding: float) -> GenerationRequest:
    return GenerationRequest(
        key=key,
        messages=(ChatMessage("user", prompt),),
        decoding=DecodingConfig(**decoding),  # type: ignore[arg-type]
    )


async def _collect(model: ResilientModel, requests: Sequence[GenerationRequest]) -> list:
    return [r async for r in model.generate_many(requests)]


class Scripted(ModelBackend):
    """Raises the scripted exceptions in turn, then answers."""

    def __init__(self, script: Sequence[BaseException]) -> None:
        self.model_id = "test/scripted"
        self.script = list(script)
        self.calls = 0

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.calls += 1
        if self.script:
            raise self.script.pop(0)
        return GenerationResponse(text="fine", stop_reason=StopReason.STOP, model_id=self.model_id)


class Recorder:
    """A sleep that records its delays and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def test_transient_faults_are_retried_and_recorded() -> None:
    backend = Scripted([TransientBackendError("empty"), TimeoutError()])
    model = ResilientModel(backend, retry=FAST)
    response = asyncio.run(model.generate(_request("a")))
    assert response.text == "fine"
    assert response.attempts == 3
    assert response.fault_kinds == ("empty", "timeout")
    assert backend.calls == 3
    assert model.fault_counts == {"empty": 1, "timeout": 1}


def test_last_attempt_returns_an_error_response() -> None:
    backend = Scripted([TransientBackendError("server_error")] * 10)
    response = asyncio.run(ResilientModel(backend, retry=FAST).generate(_request("a")))
    assert response.stop_reason is StopReason.ERROR
    assert response.attempts == FAST.max_attempts
    assert response.fault_kinds == ("server_error",) * FAST.max_attempts
    assert response.error is not None and "server_error" in response.error
    assert backend.calls == FAST.max_attempts


def test_rejected_request_gives_up_at_once() -> None:
    backend = Scripted([KeyError("bug")])
    response = asyncio.run(ResilientModel(backend, retry=FAST).generate(_request("a")))
    assert response.stop_reason is StopReason.ERROR
    assert (response.attempts, response.fault_kinds) == (1, ("unexpected",))
    assert backend.calls == 1


def test_fatal_error_raises_backend_error() -> None:
    backend = Scripted([BackendError("model x not found")])
    with pytest.raises(BackendError, match="model x not found"):
        asyncio.run(ResilientModel(backend, retry=FAST).generate(_request("a")))


def test_backoff_is_exponential_and_honours_retry_after() -> None:
    faults = [
        TransientBackendError("server_error"),
        TransientBackendError("server_error"),
        TransientBackendError("rate_limit", retry_after_s=0.75),
    ]
    sleep = Recorder()
    policy = RetryPolicy(max_attempts=5, base_delay_s=0.01, max_delay_s=1.0, jitter=0.0)
    model = ResilientModel(Scripted(faults), retry=policy, sleep=sleep)
    response = asyncio.run(model.generate(_request("a")))
    assert response.attempts == 4
    # two backoffs (0.01 s, 0.02 s), then the server's 0.75 s instead of 0.04 s
    assert sleep.delays == pytest.approx([0.01, 0.02, 0.75], abs=1e-3)


def test_real_sleep_waits_at_least_retry_after() -> None:
    backend = Scripted([TransientBackendError("rate_limit", retry_after_s=0.2)])
    model = ResilientModel(backend, retry=RetryPolicy(base_delay_s=0.0, jitter=0.0))

    async def timed() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await model.generate(_request("a"))
        return loop.time() - start

    assert asyncio.run(timed()) >= 0.2


def test_rate_limit_pauses_the_other_requests() -> None:
    class LimitedOnce(ModelBackend):
        model_id = "test/limited"

        def __init__(self) -> None:
            self.started: dict[str, float] = {}
            self.limited = False

        async def generate(self, request: GenerationRequest) -> GenerationResponse:
            now = asyncio.get_running_loop().time()
            if not self.limited:
                self.limited = True
                raise TransientBackendError("rate_limit", retry_after_s=0.3)
            self.started.setdefault(request.key, now)
            await asyncio.sleep(0.01)
            return GenerationResponse("ok", StopReason.STOP, self.model_id)

    backend = LimitedOnce()
    model = ResilientModel(backend, max_concurrency=1, retry=RetryPolicy(jitter=0.0))

    async def run() -> float:
        start = asyncio.get_running_loop().time()
        await _collect(model, [_request(f"k{i}") for i in range(3)])
        return min(backend.started.values()) - start

    assert asyncio.run(run()) >= 0.29


def test_timeout_is_a_retried_fault() -> None:
    class SlowOnce(ModelBackend):
        model_id = "test/slow"
        calls = 0

        async def generate(self, request: GenerationRequest) -> GenerationResponse:
            self.calls += 1
            if self.calls == 1:
                await asyncio.sleep(5)
            return GenerationResponse("ok", StopReason.STOP, self.model_id)

    policy = RetryPolicy(max_attempts=3, base_delay_s=0.0, jitter=0.0, timeout_s=0.05)
    response = asyncio.run(ResilientModel(SlowOnce(), retry=policy).generate(_request("a")))
    assert (response.text, response.attempts, response.fault_kinds) == ("ok", 2, ("timeout",))


def test_generate_many_answers_each_request_exactly_once() -> None:
    backend = MockBackend(lambda r: r.key, failure_rate=0.3, seed=3)
    model = ResilientModel(backend, max_concurrency=4, retry=FAST)
    requests = [_request(f"k{i}") for i in range(60)]
    responses = asyncio.run(_collect(model, requests))
    texts = [r.text for r in responses if r.stop_reason is StopReason.STOP]
    errors = [r for r in responses if r.stop_reason is StopReason.ERROR]
    assert len(responses) == 60
    assert len(texts) == len(set(texts)) == 60 - len(errors)
    # every call the backend received is one attempt recorded on a response
    assert sum(backend.calls.values()) == sum(r.attempts for r in responses)
    injected = sum(len(r.fault_kinds) for r in responses)
    assert injected == model.fault_counts["server_error"] > 0


def test_concurrency_never_exceeds_the_bound() -> None:
    class Counting(ModelBackend):
        model_id = "test/counting"
        active = 0
        peak = 0

        async def generate(self, request: GenerationRequest) -> GenerationResponse:
            self.active += 1
            self.peak = max(self.peak, self.active)
            await asyncio.sleep(0.005)
            self.active -= 1
            return GenerationResponse("ok", StopReason.STOP, self.model_id)

    backend = Counting()
    model = ResilientModel(backend, max_concurrency=3, retry=FAST)
    responses = asyncio.run(_collect(model, [_request(f"k{i}") for i in range(30)]))
    assert len(responses) == 30
    assert backend.peak == model.max_in_flight == 3


def test_direct_generate_calls_share_the_bound() -> None:
    backend = MockBackend(lambda r: "ok", latency_s=0.01)
    model = ResilientModel(backend, max_concurrency=2, retry=FAST)

    async def run() -> list[GenerationResponse]:
        return await asyncio.gather(*(model.generate(_request(f"k{i}")) for i in range(10)))

    assert len(asyncio.run(run())) == 10
    assert model.max_in_flight == 2


def test_batching_backends_get_batches() -> None:
    backend = MockBackend(lambda r: r.key, supports_batching=True, batch_size=4)
    model = ResilientModel(backend, retry=FAST)
    responses = asyncio.run(_collect(model, [_request(f"k{i}") for i in range(10)]))
    assert sorted(r.text for r in responses) == sorted(f"k{i}" for i in range(10))
    assert backend.batch_sizes == [4, 4, 2]
    other = MockBackend(lambda r: r.key, supports_batching=True)
    asyncio.run(_collect(ResilientModel(other, retry=FAST, batch_size=3), [_request("a")] * 7))
    assert other.batch_sizes == [3, 3, 1]


def test_a_failed_batch_is_retried_whole() -> None:
    backend = MockBackend(lambda r: r.key, supports_batching=True, failure_rate=0.5, seed=1)
    model = ResilientModel(backend, retry=RetryPolicy(max_attempts=20, base_delay_s=0.0))
    responses = asyncio.run(_collect(model, [_request(f"k{i}") for i in range(8)]))
    assert sorted(r.text for r in responses) == sorted(f"k{i}" for i in range(8))
    assert len({r.attempts for r in responses}) == 1  # one batch, one attempt count


def test_fatal_error_in_generate_many_cancels_the_rest() -> None:
    class FailsOnThird(ModelBackend):
        model_id = "test/fatal"
        calls = 0

        async def generate(self, request: GenerationRequest) -> GenerationResponse:
            self.calls += 1
            if request.key == "k2":
                raise BackendError("authentication failed")
            await asyncio.sleep(1)
            return GenerationResponse("ok", StopReason.STOP, self.model_id)

    backend = FailsOnThird()
    model = ResilientModel(backend, max_concurrency=3, retry=FAST)

    async def run() -> None:
        await _collect(model, [_request(f"k{i}") for i in range(50)])

    loop_started = asyncio.new_event_loop()
    try:
        with pytest.raises(BackendError, match="authentication"):
            loop_started.run_until_complete(asyncio.wait_for(run(), timeout=0.5))
        assert not [t for t in asyncio.all_tasks(loop_started) if not t.done()]
    finally:
        loop_started.close()
    assert backend.calls < 10


def test_leaving_generate_many_early_cancels_pending_calls() -> None:
    backend = MockBackend(lambda r: r.key, latency_s=0.01)
    model = ResilientModel(backend, max_concurrency=2, retry=FAST)

    async def run() -> list[str]:
        seen = []
        stream = model.generate_many([_request(f"k{i}") for i in range(100)])
        async for response in stream:
            seen.append(response.text)
            if len(seen) == 3:
                break
        await stream.aclose()  # type: ignore[attr-defined]
        await asyncio.sleep(0.05)
        return seen

    assert len(asyncio.run(run())) == 3
    assert sum(backend.calls.values()) <= 3 + 4  # the window is twice the bound


def test_responder_responses_are_kept_and_long_text_truncated() -> None:
    refusal = GenerationResponse("I cannot help with that.", StopReason.REFUSAL, "mock/custom")
    backend = MockBackend(lambda r: refusal if r.key == "no" else "one two three four")
    model = ResilientModel(backend, retry=FAST)

    async def run() -> dict[str, GenerationResponse]:
        keys = ["no", "short"]
        requests = [_request(k, max_tokens=2) for k in keys]
        out = await asyncio.gather(*(model.generate(r) for r in requests))
        return dict(zip(keys, out, strict=True))

    got = asyncio.run(run())
    assert got["no"].stop_reason is StopReason.REFUSAL
    assert (got["short"].text, got["short"].stop_reason) == ("one two", StopReason.LENGTH)
    assert got["short"].completion_tokens == 2


def test_bad_wrapper_settings_are_config_errors() -> None:
    backend = MockBackend(lambda r: "x")
    with pytest.raises(ConfigError):
        ResilientModel(backend, max_concurrency=0)
    with pytest.raises(ConfigError):
        ResilientModel(backend, batch_size=0)


def test_fault_counts_sum_over_kinds() -> None:
    backend = Scripted(
        [TransientBackendError("empty"), TransientBackendError("malformed"), TimeoutError()]
    )
    model = ResilientModel(backend, retry=FAST)
    response = asyncio.run(model.generate(_request("a")))
    assert collections.Counter(response.fault_kinds) == model.fault_counts


def test_simultaneous_fatal_errors_leave_no_unretrieved_exception(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import gc

    class AllFatal(ModelBackend):
        model_id = "test/all-fatal"

        async def generate(self, request: GenerationRequest) -> GenerationResponse:
            raise BackendError("authentication failed")

    model = ResilientModel(AllFatal(), max_concurrency=8, retry=FAST)
    with pytest.raises(BackendError):
        asyncio.run(_collect(model, [_request(f"k{i}") for i in range(8)]))
    gc.collect()
    assert "never retrieved" not in caplog.text


def test_one_wrapper_serves_several_event_loops() -> None:
    backend = MockBackend(lambda r: r.key, latency_s=0.001)
    model = ResilientModel(backend, max_concurrency=1, retry=FAST)
    for _ in range(2):  # the bound must not stay tied to the first loop
        responses = asyncio.run(_collect(model, [_request(f"k{i}") for i in range(4)]))
        assert len(responses) == 4
