"""A batch queued behind others for the model is timed from when it reaches the model.

The backend below runs one batch at a time under its model's lock (as the local
backends do) and computes for a fixed time. Batches queued behind it wait longer
than their timeout, yet none times out or is retried, and each stores its compute
time as ``latency_s`` and its wait as ``queue_s`` (in the run store too).
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from gasp.backends import (
    CandidateScore,
    Capability,
    ChatMessage,
    GenerationRequest,
    GenerationResponse,
    ResilientModel,
    RetryPolicy,
    ScoreRequest,
    ScoreResponse,
    StopReason,
)
from gasp.backends._admission import model_turn
from gasp.backends._base import ThreadedBatchBackend
from gasp.store import ItemRecord, RunStore, ScoreRecord

COMPUTE_S = 0.4
TIMEOUT_S = 0.6  # per request: shorter than the wait of the third and fourth batch


class LockedModel(ThreadedBatchBackend):
    """A model computing ``compute_s`` per batch, one batch at a time."""

    model_id = "test/locked"
    capabilities = frozenset({Capability.GENERATE, Capability.SCORE})
    batch_size = 1

    def __init__(self, compute_s: float) -> None:
        self.compute_s = compute_s
        self.lock = threading.Lock()
        self.calls = 0

    def _compute(self) -> None:
        with model_turn(self.lock):
            self.calls += 1
            time.sleep(self.compute_s)

    def _generate_sync(self, requests: list[GenerationRequest]) -> list[GenerationResponse]:
        self._compute()
        return [GenerationResponse("ok", StopReason.STOP, self.model_id) for _ in requests]

    def _score_sync(self, requests: list[ScoreRequest]) -> list[ScoreResponse]:
        self._compute()
        return [
            ScoreResponse(
                tuple(CandidateScore(c, -1.0, (c,), (), False) for c in r.candidates),
                self.model_id,
            )
            for r in requests
        ]


def _wrapper(backend: LockedModel, attempts: int = 3) -> ResilientModel:
    policy = RetryPolicy(max_attempts=attempts, base_delay_s=0.01, timeout_s=TIMEOUT_S)
    return ResilientModel(backend, max_concurrency=4, retry=policy, batch_size=1)


def _score_all(model: ResilientModel, n: int) -> list[ScoreResponse]:
    async def run() -> list[ScoreResponse]:
        requests = [ScoreRequest(f"k{i}", "context", (" a", " b")) for i in range(n)]
        return list(await asyncio.gather(*(model.score(r) for r in requests)))

    return asyncio.run(run())


def test_a_batch_queued_longer_than_its_timeout_is_not_retried() -> None:
    backend = LockedModel(COMPUTE_S)
    responses = _score_all(_wrapper(backend), 4)
    assert backend.calls == 4  # no retry
    assert all(r.ok and r.attempts == 1 and r.fault_kinds == () for r in responses)
    for r in responses:
        assert r.latency_s is not None and r.queue_s is not None
        assert COMPUTE_S <= r.latency_s < COMPUTE_S + 0.25  # compute time, not the wait
    waits = sorted(r.queue_s or 0.0 for r in responses)
    assert waits[0] < 0.25
    assert waits[-1] > TIMEOUT_S  # held in the queue longer than its timeout
    for earlier, later in itertools.pairwise(waits):
        assert later - earlier == pytest.approx(COMPUTE_S, abs=0.25)


def test_generation_batches_are_timed_the_same_way() -> None:
    backend = LockedModel(COMPUTE_S)
    model = _wrapper(backend)

    async def run() -> list[GenerationResponse]:
        request = GenerationRequest("g", (ChatMessage("user", "hi"),))
        return list(await asyncio.gather(*(model.generate(request) for _ in range(4))))

    responses = asyncio.run(run())
    assert backend.calls == 4 and all(r.attempts == 1 and r.error is None for r in responses)
    assert all(COMPUTE_S <= (r.latency_s or 0) < COMPUTE_S + 0.25 for r in responses)
    assert max(r.queue_s or 0.0 for r in responses) > TIMEOUT_S


def test_a_batch_computing_longer_than_its_timeout_still_times_out() -> None:
    backend = LockedModel(3 * TIMEOUT_S)
    (response,) = _score_all(_wrapper(backend, attempts=2), 1)
    assert not response.ok and response.attempts == 2
    assert "timeout" in (response.error or "")


def test_latency_and_queue_wait_are_stored_apart(tmp_path: Path) -> None:
    (response,) = _score_all(_wrapper(LockedModel(0.05)), 1)
    with RunStore.open(tmp_path / "run.sqlite", create=True) as store:
        store.write_manifest({"study": {"name": "s"}, "model": {"spec": "test"}, "seed": 0})
        store.write_items(
            [ItemRecord("q", 0, "score", "context", {"job": "x"}, candidates=(" a", " b"))]
        )
        store.write_scores(
            [
                ScoreRecord(
                    "q",
                    0,
                    s.candidate,
                    s.logprob,
                    latency_s=response.latency_s,
                    queue_s=response.queue_s,
                )
                for s in response.scores
            ]
        )
    conn = sqlite3.connect(tmp_path / "run.sqlite")
    rows = conn.execute("SELECT latency_s, queue_s FROM scores").fetchall()
    conn.close()
    assert rows == [(response.latency_s, response.queue_s)] * 2
