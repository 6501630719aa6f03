"""Answers a server really sends, stored as they arrive and analysed: lone surrogates,
token counts no column holds, log-probabilities that are NaN or infinite; an answer the
store cannot take never takes other answers with it, and a store that takes nothing
stops the run in one line without calling it complete."""

from __future__ import annotations

import dataclasses
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gasp.backends import RetryPolicy
from gasp.errors import RunFailed
from gasp.results import AuditResults
from gasp.runner import FixedN, Item, RunOptions, StudyPlan, generate
from gasp.store import MAX_STORED_INT, RunStore
from gasp.studies.occugender import analyze_step, build_study
from gasp.testing import FakeOpenAIServer
from gasp.testing._fake_server import DEFAULT_TOP_LOGPROBS

MODEL = "openai-compatible/fake-model"


def _plan(n_items: int = 6, n: int = 2) -> StudyPlan:
    items = tuple(
        Item(key=("p", str(i)), prompt=f"Describe person {i}.", n=n) for i in range(n_items)
    )
    return StudyPlan(kind="hostile", name="hostile", items=items, spec={}, stopping=FixedN())


def _opts(server: FakeOpenAIServer) -> RunOptions:
    return RunOptions(
        progress=False,
        base_url=server.base_url,
        max_concurrency=4,
        retry=RetryPolicy(max_attempts=1),
    )


def _surrogate_text(prompt: str, rng: np.random.Generator) -> str:
    return f"Mary was kind \ud800 and brave{prompt[-3:]} \udfff and Mary smiled"


def test_lone_surrogates_are_stored_as_the_replacement_character(tmp_path: Path) -> None:
    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer(text=_surrogate_text) as server:
        summary = generate(_plan(), MODEL, store, _opts(server))
    assert summary.complete and summary.generated == 12 and summary.failed == 0
    with RunStore.open(store) as run:
        frame = run.samples()
        sessions = run.sessions()
    assert len(frame) == 12
    assert all("\ufffd" in text and "\ud800" not in text for text in frame["text"])
    assert frame["text"].iloc[0].startswith("Mary was kind \ufffd and brave")
    assert sessions["outcome"].tolist() == ["complete"]


def test_lone_surrogates_are_analysed(tmp_path: Path) -> None:
    import gasp

    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer(text=_surrogate_text) as server:
        summary = generate(_plan(n_items=4, n=3), MODEL, store, _opts(server))
    assert summary.complete
    with RunStore.open(store) as run:
        texts = run.samples()[["text"]].assign(profession=["nurse", "pilot"] * 6)
    assert texts["text"].str.contains("\ufffd").all()
    result = gasp.analyze(texts, study="narratives", out=tmp_path / "results")
    assert result.results_dir.exists()


def test_token_counts_beyond_sqlite_s_integers_are_stored_clamped(tmp_path: Path) -> None:
    store = tmp_path / "run.sqlite"
    huge = {"prompt_tokens": 10**30, "completion_tokens": 10**30, "total_tokens": 2 * 10**30}
    with FakeOpenAIServer(usage=huge) as server:
        summary = generate(_plan(), MODEL, store, _opts(server))
    assert summary.complete and summary.generated == 12
    with RunStore.open(store) as run:
        frame = run.samples()
    assert len(frame) == 12
    assert (frame["prompt_tokens"] == MAX_STORED_INT).all()
    assert (frame["completion_tokens"] == MAX_STORED_INT).all()


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_nan_or_infinite_log_probabilities_are_stored_and_analysed(
    tmp_path: Path, value: float
) -> None:
    table = {token: value for token in DEFAULT_TOP_LOGPROBS}
    study = build_study(
        "occugender", {"jobs": "nurse,pilot", "debiasing": "none", "expressions": "single-token"}
    )
    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer(logprobs=table) as server:
        summary = generate(
            study, MODEL, store, RunOptions(progress=False, base_url=server.base_url)
        )
    assert summary.complete and summary.failed == 0
    with RunStore.open(store) as run:
        scores = run.scores()
        assert run.count_scores() == len(scores) > 0
    # NaN and +inf are not log-probabilities: stored as NULL (not seen); -inf is kept
    if value == -math.inf:
        assert (scores["logprob"].dropna() == -math.inf).all()
    else:
        assert scores["logprob"].isna().all()
    out = analyze_step(store, tmp_path / "results", {"bootstrap": 20})
    assert any("results written to" in line for line in out["lines"])
    assert len(AuditResults.load(tmp_path / "results")["table2"]) > 0


def test_an_answer_the_store_refuses_is_a_failed_sample_and_others_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = RunStore.write_answer

    def refusing(self: RunStore, samples=(), scores=(), states=()):  # type: ignore[no-untyped-def]
        samples = list(samples)
        if any(s.text and "person 3." in s.text for s in samples):
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return original(self, samples, scores, states)

    def text(prompt: str, rng: np.random.Generator) -> str:
        return f"An answer about {prompt.split()[-2]} {prompt.split()[-1]}"

    monkeypatch.setattr(RunStore, "write_answer", refusing)
    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer(text=text) as server:
        summary = generate(_plan(), MODEL, store, _opts(server))
    # the two answers about person 3 are failed samples; the ten others are stored
    assert summary.generated == 10 and summary.failed == 2 and not summary.complete
    with RunStore.open(store) as run:
        frame = run.samples(include_errors=True)
        outcome = run.sessions()["outcome"].tolist()
    ok = frame[frame["stop_reason"] != "error"]
    bad = frame[frame["stop_reason"] == "error"]
    assert len(ok) == 10 and len(bad) == 2
    assert bad["error"].str.contains("the store could not take the answer: OverflowError").all()
    assert outcome == ["incomplete"]

    monkeypatch.setattr(RunStore, "write_answer", original)
    with FakeOpenAIServer(text=text) as server:
        again = generate(_plan(), MODEL, store, _opts(server))
        assert server.requests == 2  # only the two refused answers are asked again
    assert again.complete and again.resumed == 10 and again.generated == 2


def test_a_store_that_takes_nothing_stops_the_run_in_one_line_never_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = RunStore.write_answer
    taken: list[int] = []

    def full_after_five(self: RunStore, samples=(), scores=(), states=()):  # type: ignore[no-untyped-def]
        if len(taken) >= 5:
            raise sqlite3.OperationalError("database or disk is full")
        taken.append(1)
        return original(self, samples, scores, states)

    monkeypatch.setattr(RunStore, "write_answer", full_after_five)
    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer() as server, pytest.raises(RunFailed) as raised:
        generate(_plan(), MODEL, store, _opts(server))
    message = str(raised.value)
    assert "\n" not in message and "database or disk is full" in message
    assert "5 answer(s) are stored" in message and raised.value.exit_code == 1
    with RunStore.open(store) as run:
        assert run.count_samples() == 5
        assert run.sessions()["outcome"].tolist() == ["error"]


def test_a_run_whose_every_request_failed_is_a_failed_run_that_names_the_wait(
    tmp_path: Path,
) -> None:
    import time

    store = tmp_path / "run.sqlite"
    options = RunOptions(
        progress=False,
        max_concurrency=4,
        retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.05),
    )
    with FakeOpenAIServer(fault_rate=1.0, faults=["rate_limit"], retry_after_s=100_000) as server:
        started = time.monotonic()
        with pytest.raises(RunFailed) as raised:
            generate(
                _plan(n_items=2, n=1),
                MODEL,
                store,
                dataclasses.replace(options, base_url=server.base_url),
            )
        took = time.monotonic() - started
    message = str(raised.value)
    assert "\n" not in message and raised.value.exit_code == 1
    assert message.startswith("every request failed (2: 2 rate_limit)")
    assert "the server asked to wait 100000 s (Retry-After), gasp waits at most 0.05 s" in message
    assert took < 30  # the server's wait is capped, not waited out
    with RunStore.open(store) as run:  # the failures are recorded, retried on resume
        assert run.count_samples(include_errors=True) == 2 and run.count_samples() == 0
