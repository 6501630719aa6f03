"""The fleet's routing, draining and probing, on scripted in-process endpoints."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gasp.backends import (
    ChatMessage,
    FleetBackend,
    GenerationRequest,
    GenerationResponse,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    StopReason,
    TransientBackendError,
    classify_error,
    resolve_backend,
)
from gasp.errors import BackendError, ConfigError
from gasp.runner import Item, RunOptions, StudyPlan, generate


class Scripted(ModelBackend):
    """An endpoint whose answers a test controls: ``fail`` raises, ``gate`` holds answers."""

    model_id = "scripted/m"

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0
        self.fail: Callable[[], Exception] | None = None
        self.gate: asyncio.Event | None = None
        self.up = True
        self.pings = 0

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.calls += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.fail is not None:
            raise self.fail()
        return GenerationResponse(text=self.name, stop_reason=StopReason.STOP, model_id="m")

    async def ping(self) -> None:
        self.pings += 1
        if not self.up:
            raise ConnectionRefusedError("down")


def _request(i: int) -> GenerationRequest:
    return GenerationRequest(key=str(i), messages=(ChatMessage("user", f"p{i}"),))


def _fleet(names: str, **options: Any) -> tuple[FleetBackend, tuple[Scripted, ...]]:
    """A fleet of scripted endpoints, one named by each letter of ``names``, at
    ``http://<letter>/v1``, in that order."""
    endpoints = tuple(Scripted(name) for name in names)
    return FleetBackend([(f"http://{e.name}/v1", e) for e in endpoints], **options), endpoints


async def _text_or_fault(fleet: FleetBackend, i: int) -> str:
    """The text answering request ``i``, or ``"fault"`` where its endpoint failed it."""
    try:
        return (await fleet.generate(_request(i))).text
    except TransientBackendError:
        return "fault"


def _server_error() -> Exception:
    return TransientBackendError("server_error", "HTTP 500")


async def _until(condition: Callable[[], bool], limit_s: float = 10.0) -> None:
    """Wait (by polling) until ``condition`` holds; fail after ``limit_s``."""
    for _ in range(int(limit_s / 0.005)):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition never held")


def test_calls_go_to_the_endpoint_with_fewest_outstanding_and_ties_take_turns() -> None:
    async def scenario() -> None:
        fleet, (a, b, c) = _fleet("abc")
        # no call outstanding anywhere: three calls in a row go to three endpoints
        answers = [(await fleet.generate(_request(i))).text for i in range(6)]
        assert sorted(answers) == ["a", "a", "b", "b", "c", "c"]
        # b holds its answers: while 2 of its calls wait, new calls go to a and c only
        b.gate = asyncio.Event()
        held = [asyncio.create_task(fleet.generate(_request(i))) for i in range(3)]
        await asyncio.sleep(0)
        before = a.calls + c.calls
        assert b.calls == 2 + 1  # two earlier calls plus one of the three new ones
        for i in range(10):
            assert (await fleet.generate(_request(100 + i))).text in {"a", "c"}
        assert a.calls + c.calls == before + 10
        b.gate.set()
        assert {(await t).text for t in held} == {"a", "b", "c"}
        stats = {s.url: s for s in fleet.endpoint_stats()}
        assert stats["http://b/v1"].sent == 3 and stats["http://b/v1"].succeeded == 3
        assert sum(s.sent for s in stats.values()) == 6 + 3 + 10

    asyncio.run(scenario())


def test_consecutive_transport_faults_drain_and_a_probe_brings_the_endpoint_back() -> None:
    async def scenario() -> None:
        now = [0.0]
        fleet, (a, _) = _fleet("ab", drain_after=3, probe_after_s=0.01, clock=lambda: now[0])
        a.fail, a.up = _server_error, False
        answers = [await _text_or_fault(fleet, i) for i in range(40)]
        # drained after 3 faults in a row (those sent to a); the rest went to b
        assert answers.count("fault") == 3 and answers.count("b") == 37
        (stats_a, stats_b) = fleet.endpoint_stats()
        assert stats_a.drained == 1 and stats_a.drained_now
        assert stats_a.failed == 3 and stats_a.failed_by_kind == {"server_error": 3}
        assert stats_b.succeeded == 37
        await _until(lambda: a.pings >= 2)  # probed again while it stays down
        assert fleet.endpoint_stats()[0].drained_now
        now[0] = 7.5  # drained at 0 s, and back once a probe answers at 7.5 s
        a.fail, a.up = None, True
        await _until(lambda: not fleet.endpoint_stats()[0].drained_now)
        answers = [(await fleet.generate(_request(i))).text for i in range(4)]
        assert answers.count("a") == 2  # it serves again, taking its turn
        stats_a = fleet.endpoint_stats()[0]
        assert stats_a.drained == 1 and stats_a.drained_s == 7.5
        await fleet.aclose()

    asyncio.run(scenario())


def test_faults_of_the_request_not_the_server_never_drain() -> None:
    async def scenario() -> None:
        fleet, (a, _) = _fleet("ab", drain_after=2)
        kinds = ["server_error", "malformed", "server_error", "rate_limit", "timeout", "empty"]
        for kind in kinds:
            a.fail = lambda kind=kind: TransientBackendError(kind)
            with pytest.raises(TransientBackendError):
                while True:  # b answers; go on until a is tried
                    await fleet.generate(_request(0))
        stats = fleet.endpoint_stats()[0]
        assert stats.drained == 0 and stats.failed == 6
        assert stats.failed_by_kind == {
            "server_error": 2,
            "malformed": 1,
            "rate_limit": 1,
            "timeout": 1,
            "empty": 1,
        }

    asyncio.run(scenario())


def test_with_every_endpoint_drained_calls_still_go_out_and_an_answer_rejoins() -> None:
    async def scenario() -> None:
        fleet, (a, b) = _fleet("ab", drain_after=1, probe_after_s=60)
        a.fail = b.fail = _server_error
        for i in range(2):
            with pytest.raises(TransientBackendError):
                await fleet.generate(_request(i))
        assert all(s.drained_now for s in fleet.endpoint_stats())
        b.fail = None
        answers = [await _text_or_fault(fleet, i) for i in range(3)]
        assert "b" in answers
        assert [s.drained_now for s in fleet.endpoint_stats()] == [True, False]
        await fleet.aclose()

    asyncio.run(scenario())


def test_the_wrapper_retries_a_drained_endpoints_requests_on_the_others() -> None:
    async def scenario() -> None:
        fleet, (_, _, c) = _fleet("abc", drain_after=2, probe_after_s=60)
        c.fail, c.up = (lambda: ConnectionResetError("reset")), False
        retry = RetryPolicy(max_attempts=3, base_delay_s=0.0, jitter=0.0)
        model = ResilientModel(fleet, max_concurrency=6, retry=retry)
        requests = [_request(i) for i in range(60)]
        answers = [r async for r in model.generate_many(requests)]
        assert len(answers) == 60
        assert all(r.stop_reason is StopReason.STOP for r in answers)
        assert {r.text for r in answers} == {"a", "b"}
        stats = fleet.endpoint_stats()
        assert stats[2].succeeded == 0 and stats[2].failed >= 2 and stats[2].drained == 1
        assert stats[0].succeeded + stats[1].succeeded == 60
        assert sum(r.attempts - 1 for r in answers) == stats[2].failed
        await model.aclose()

    asyncio.run(scenario())


def test_a_call_cut_by_the_timeout_counts_as_a_timeout_of_its_endpoint() -> None:
    async def scenario() -> None:
        now = [0.0]
        fleet, (a,) = _fleet("a", clock=lambda: now[0])
        fleet.call_timeout_s = 10.0
        a.gate = asyncio.Event()
        for elapsed in (10.0, 1.0):  # cut by the timeout, then cancelled early
            task = asyncio.create_task(fleet.generate(_request(0)))
            await asyncio.sleep(0)
            now[0] += elapsed
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        stats = fleet.endpoint_stats()[0]
        assert stats.failed_by_kind == {"timeout": 1} and stats.cancelled == 1

    asyncio.run(scenario())


def test_mark_down_drains_until_a_probe_answers() -> None:
    async def scenario() -> None:
        fleet, (a, _) = _fleet("ab", probe_after_s=0.01)
        a.up = False
        fleet.mark_down("http://a/v1")
        assert [(await fleet.generate(_request(i))).text for i in range(4)] == ["b"] * 4
        a.up = True
        await _until(lambda: not fleet.endpoint_stats()[0].drained_now)
        texts = {(await fleet.generate(_request(i))).text for i in range(2)}
        assert texts == {"a", "b"}

    asyncio.run(scenario())


def test_resolving_several_base_urls_gives_a_fleet_and_one_gives_the_plain_backend() -> None:
    pytest.importorskip("openai")
    urls = ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
    fleet = resolve_backend("openai-compatible/m", base_url=urls, options={"drain_after": 5})
    assert isinstance(fleet, FleetBackend)
    assert fleet.base_urls == tuple(urls) and fleet.drain_after == 5
    single = resolve_backend("openai-compatible/m", base_url=urls[:1])
    assert type(single).__name__ == "OpenAIBackend"
    assert getattr(single, "base_url", None) == urls[0]
    with pytest.raises(ConfigError, match="given twice"):
        resolve_backend("openai-compatible/m", base_url=[urls[0], urls[0]])
    with pytest.raises(ConfigError, match="several base URLs need an openai-compatible"):
        resolve_backend("mock/echo", base_url=urls)
    with pytest.raises(ConfigError, match="'drain_after' applies to several base URLs only"):
        resolve_backend("openai-compatible/m", base_url=urls[0], options={"drain_after": 2})
    with pytest.raises(ConfigError, match="drain_after"):
        resolve_backend("openai-compatible/m", base_url=urls, options={"drain_after": 0})


def test_run_options_list_every_url_once(tmp_path: Path) -> None:
    options = RunOptions(base_url="http://a/v1", base_urls=("http://b/v1", "http://c/v1"))
    assert options.endpoint_urls() == ["http://a/v1", "http://b/v1", "http://c/v1"]
    with pytest.raises(ConfigError, match="given twice"):
        RunOptions(base_url="http://a/v1", base_urls=["http://a/v1"]).validate()
    with pytest.raises(ConfigError, match="a list of URLs"):
        RunOptions(base_urls="http://a/v1").validate()  # type: ignore[arg-type]


def test_a_refused_connection_is_a_connection_fault_of_its_endpoint() -> None:
    pytest.importorskip("openai")
    closed = ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]

    async def scenario() -> None:
        fleet = resolve_backend("openai-compatible/m", base_url=closed)
        assert isinstance(fleet, FleetBackend)
        for i in range(2):
            with pytest.raises(Exception) as caught:
                await fleet.generate(_request(i))
            assert classify_error(caught.value).kind == "connection"
        assert [s.failed_by_kind for s in fleet.endpoint_stats()] == [{"connection": 1}] * 2
        await fleet.aclose()

    asyncio.run(scenario())


def test_a_run_whose_servers_all_refuse_stops_before_creating_the_store(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    closed = ("http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1")
    plan = StudyPlan(kind="k", name="k", items=(Item(key=("a",), prompt="p", n=1),), spec={})
    path = tmp_path / "never.sqlite"
    with pytest.raises(BackendError, match=re.escape("cannot reach http://127.0.0.1:9/v1")):
        generate(plan, "openai-compatible/m", path, RunOptions(progress=False, base_urls=closed))
    with pytest.raises(BackendError, match="base URL must look like"):
        generate(
            plan,
            "openai-compatible/m",
            path,
            RunOptions(progress=False, base_urls=(*closed, "ftp://x")),
        )
    assert not path.exists()
