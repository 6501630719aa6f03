"""``--batch``: a run through the OpenAI Batch API of the fake server (docs/batch.md)."""

from __future__ import annotations

import io
import json
import math
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from _cli import gasp_exit_code
from _kill import sample_texts
from gasp.backends import BatchClient
from gasp.errors import BackendError, ConfigError
from gasp.runner import BatchOptions, Item, RequestKind, RunOptions, StudyPlan, generate
from gasp.store import RunStore
from gasp.testing import FakeOpenAIServer

MODEL = "openai-compatible/fake-model"
N = 3
FAST = BatchOptions(poll_interval_s=0.0)


def _plan(items: int = 8, n: int = N) -> StudyPlan:
    return StudyPlan(
        kind="batch-test",
        name="batch-test",
        items=tuple(
            Item(key=("person", str(i)), prompt=f"Describe person number {i}.", n=n)
            for i in range(items)
        ),
        spec={"items": items, "n": n},
        system_prompt="Answer in one paragraph.",
    )


def _keys(plan: StudyPlan) -> set[str]:
    return {json.dumps([*item.key, i]) for item in plan.items for i in range(item.n)}


def _run(
    server: FakeOpenAIServer, path: Path, plan: StudyPlan, batch: BatchOptions | None = FAST
) -> Any:
    options = RunOptions(progress=False, base_url=server.base_url, batch=batch)
    return generate(plan, MODEL, path, options)


def _batch_lines(server: FakeOpenAIServer) -> list[list[str]]:
    """The custom ids of the lines of every batch the server received, in order."""
    api = server.batch
    return [[line["custom_id"] for line in api._lines[b]] for b in api.batches]


def _batch_keys(server: FakeOpenAIServer) -> list[set[str]]:
    return [set(lines) for lines in _batch_lines(server)]


def test_a_batch_run_stores_what_a_direct_run_does_split_at_the_limit(tmp_path: Path) -> None:
    plan = _plan()
    with FakeOpenAIServer(seed=3) as server:
        server.batch.complete_after_polls = 2
        summary = _run(
            server,
            tmp_path / "batch.sqlite",
            plan,
            BatchOptions(poll_interval_s=0.0, max_requests=10),
        )
        _run(server, tmp_path / "direct.sqlite", plan, None)
        per_batch = _batch_keys(server)
    assert summary.complete and summary.generated == 24 and summary.batches_submitted == 3
    assert [len(k) for k in per_batch] == [10, 10, 4]
    assert set().union(*per_batch) == _keys(plan)
    assert set(server.batch.answered.values()) == {1}
    assert sample_texts(tmp_path / "batch.sqlite") == sample_texts(tmp_path / "direct.sqlite")
    with RunStore.open(tmp_path / "batch.sqlite") as store:
        records = store.batch_ledger().records()
    assert [r.status for r in records] == ["collected"] * 3
    assert [r.batch_id for r in records] == ["batch_1", "batch_2", "batch_3"]


def test_the_size_limit_splits_too(tmp_path: Path) -> None:
    plan = _plan(items=4, n=2)
    with FakeOpenAIServer() as server:
        summary = _run(
            server, tmp_path / "r.sqlite", plan, BatchOptions(poll_interval_s=0.0, max_bytes=700)
        )
        sizes = [len(server.batch.files[b["input_file_id"]]) for b in server.batch.batches.values()]
    assert summary.complete and len(sizes) == summary.batches_submitted > 2
    assert max(sizes) <= 700


@pytest.mark.parametrize("outcome", ["expired", "cancelled", "failed"])
def test_an_ended_batch_is_resubmitted_for_its_missing_samples_only(
    tmp_path: Path, outcome: str
) -> None:
    plan = _plan()
    with FakeOpenAIServer() as server:
        server.batch.outcomes = [outcome]
        summary = _run(server, tmp_path / "r.sqlite", plan)
        first, second = _batch_lines(server)
    assert summary.complete and summary.batches_submitted == 2
    assert set(first) == _keys(plan)
    answered_first = 0 if outcome == "failed" else 12  # the fake answers half of the lines
    assert set(second) == set(first[answered_first:])  # only what was missing
    assert set(server.batch.answered) == _keys(plan)
    assert set(server.batch.answered.values()) == {1}
    assert summary.failed == 0 and summary.failed_by_kind == {}
    assert summary.faults_by_kind == {f"batch_{outcome}": len(second)}
    assert len(sample_texts(tmp_path / "r.sqlite")) == 24


def test_lines_that_failed_are_resubmitted_alone(tmp_path: Path) -> None:
    plan = _plan()
    failing = {json.dumps(["person", "2", 1]), json.dumps(["person", "5", 0])}
    with FakeOpenAIServer() as server:
        server.batch.fail_once = set(failing)
        summary = _run(server, tmp_path / "r.sqlite", plan)
        _run(server, tmp_path / "direct.sqlite", plan, None)
        batches = _batch_keys(server)
    assert summary.complete and batches == [_keys(plan), failing]
    assert summary.faults_by_kind == {"batch_line_error": 2} and summary.failed == 0
    assert sample_texts(tmp_path / "r.sqlite") == sample_texts(tmp_path / "direct.sqlite")


def test_retry_rounds_run_out_and_the_next_run_finishes(tmp_path: Path) -> None:
    plan = _plan(items=2)
    path = tmp_path / "r.sqlite"
    with FakeOpenAIServer() as server:
        server.batch.outcomes = ["failed", "failed", "failed"]
        summary = _run(server, path, plan, BatchOptions(poll_interval_s=0.0, retry_rounds=1))
        assert not summary.complete and summary.batches_submitted == 2
        assert summary.failed_by_kind == {"batch_failed": 6} and summary.failed == 6
        with RunStore.open(path) as store:
            errors = store.samples(include_errors=True)
        assert len(errors) == 6 and (errors["stop_reason"] == "error").all()
        assert "invalid_request" in str(errors["error"].iloc[0])
        summary = _run(server, path, plan)  # one more failed batch, then a good one
        assert summary.complete and summary.batches_submitted == 2
    assert len(sample_texts(path)) == 6


SCRIPT = """
import json, sys
from gasp.runner import BatchOptions, Item, RunOptions, StudyPlan, generate

plan = StudyPlan(
    kind="batch-test", name="batch-test",
    items=tuple(Item(key=("person", str(i)), prompt=f"Describe person number {i}.", n=3)
                for i in range(8)),
    spec={"items": 8, "n": 3}, system_prompt="Answer in one paragraph.",
)
options = RunOptions(progress=False, base_url=sys.argv[2],
                     batch=BatchOptions(poll_interval_s=0.02))
summary = generate(plan, "openai-compatible/fake-model", sys.argv[1], options)
print(json.dumps({"complete": summary.complete, "submitted": summary.batches_submitted,
                  "resumed": summary.batches_resumed}), flush=True)
"""


def _batch_ids(path: Path) -> list[str]:
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT batch_id FROM batches WHERE batch_id IS NOT NULL")
        return [str(r[0]) for r in rows]
    except sqlite3.OperationalError:  # the schema is not committed yet
        return []
    finally:
        conn.close()


def test_a_run_killed_after_submitting_resumes_polling_without_submitting_again(
    tmp_path: Path,
) -> None:
    script, path = tmp_path / "run.py", tmp_path / "r.sqlite"
    script.write_text(SCRIPT)
    with FakeOpenAIServer() as server:
        server.batch.complete_after_polls = 10**9  # never ends while the first process lives
        command = [sys.executable, str(script), str(path), server.base_url]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while not _batch_ids(path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _batch_ids(path) == ["batch_1"], proc.communicate(timeout=5)
        while server.batch.polls < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # it is polling now
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert server.batch.answered == {}
        server.batch.complete_after_polls = 1
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {"complete": True, "submitted": 0, "resumed": 1}, result.stderr
    assert server.batch.submissions == 1
    assert set(server.batch.answered.values()) == {1} and len(server.batch.answered) == 24
    assert len(sample_texts(path)) == 24


class _Killed(Exception):
    """Stands for a process killed at one moment of a submission."""


def _killed_run(
    monkeypatch: pytest.MonkeyPatch,
    server: FakeOpenAIServer,
    path: Path,
    plan: StudyPlan,
    method: str,
    *,
    before: bool = False,
) -> None:
    """Run ``plan`` into ``path`` with ``BatchClient.<method>`` raising once, before or after
    doing its work, as a process killed at that moment would stop."""
    original = getattr(BatchClient, method)

    async def crashing(self: BatchClient, *args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(BatchClient, method, original)
        if before:
            raise _Killed(method)
        await original(self, *args, **kwargs)
        raise _Killed(method)

    monkeypatch.setattr(BatchClient, method, crashing)
    with pytest.raises(_Killed):
        _run(server, path, plan)


def test_a_batch_created_but_not_yet_recorded_is_found_by_its_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, path = _plan(), tmp_path / "r.sqlite"
    with FakeOpenAIServer() as server:
        _killed_run(monkeypatch, server, path, plan, "create")
        with RunStore.open(path) as store:
            (record,) = store.batch_ledger().records()
        assert (record.status, record.batch_id) == ("submitting", None)
        summary = _run(server, path, plan)
    assert summary.complete and (summary.batches_resumed, summary.batches_submitted) == (1, 0)
    assert server.batch.submissions == 1 and set(server.batch.answered.values()) == {1}
    assert len(sample_texts(path)) == 24


def test_a_submission_the_provider_never_saw_is_abandoned_and_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, path = _plan(), tmp_path / "r.sqlite"
    with FakeOpenAIServer() as server:
        _killed_run(monkeypatch, server, path, plan, "create", before=True)
        summary = _run(server, path, plan)
    assert summary.complete and (summary.batches_resumed, summary.batches_submitted) == (0, 1)
    assert server.batch.submissions == 1
    with RunStore.open(path) as store:
        assert [r.status for r in store.batch_ledger().records()] == ["abandoned", "collected"]


def test_a_kill_after_downloading_but_before_committing_commits_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, path = _plan(), tmp_path / "r.sqlite"
    with FakeOpenAIServer() as server:
        _killed_run(monkeypatch, server, path, plan, "content")
        with RunStore.open(path) as store:
            assert store.count_samples(include_errors=True) == 0
        summary = _run(server, path, plan)
    assert summary.complete and summary.generated == 24 and server.batch.submissions == 1
    assert len(sample_texts(path)) == 24


def test_scoring_goes_through_batches_as_it_does_directly(tmp_path: Path) -> None:
    items = tuple(
        Item(
            key=("score", job),
            prompt=f"Complete: the {job} said that",
            kind=RequestKind.SCORE,
            candidates=(" He", " She", " Zebra"),
        )
        for job in ("nurse", "pilot", "baker")
    )
    plan = StudyPlan(kind="batch-score", name="batch-score", items=items, spec={})
    with FakeOpenAIServer() as server:
        summary = _run(server, tmp_path / "b.sqlite", plan)
        _run(server, tmp_path / "d.sqlite", plan, None)
    assert summary.complete and summary.batches_submitted == 1
    columns = ["item_id", "candidate", "logprob", "approximate"]
    with RunStore.open(tmp_path / "b.sqlite") as b, RunStore.open(tmp_path / "d.sqlite") as d:
        batch, direct = b.scores()[columns], d.scores()[columns]
    assert len(batch) == 9 and batch.equals(direct)
    first = batch["logprob"].tolist()[:3]  # the fake's table: " He" -1.0, " She" -1.25
    assert first[:2] == [-1.0, -1.25] and math.isnan(first[2])


def test_raw_text_scoring_is_refused_in_one_line(tmp_path: Path) -> None:
    item = Item(key=("raw",), prompt="The nurse said", kind=RequestKind.SCORE,
                candidates=(" he", " she"), chat=False)  # fmt: skip
    plan = StudyPlan(kind="batch-score", name="batch-score", items=(item,), spec={})
    with FakeOpenAIServer() as server, pytest.raises(ConfigError, match="chat contexts only"):
        _run(server, tmp_path / "r.sqlite", plan)
    assert not (tmp_path / "r.sqlite").exists()


def test_a_store_written_before_the_batches_table_gets_it(tmp_path: Path) -> None:
    plan, path = _plan(items=2), tmp_path / "r.sqlite"
    with FakeOpenAIServer() as server:
        options = RunOptions(progress=False, base_url=server.base_url, max_requests=2)
        generate(plan, MODEL, path, options)
        conn = sqlite3.connect(path)
        conn.execute("DROP TABLE batches")
        conn.commit()
        conn.close()
        summary = _run(server, path, plan)
    assert summary.complete and summary.resumed == 2 and summary.batches_submitted == 1
    assert len(_batch_lines(server)[0]) == 4 and len(sample_texts(path)) == 6


def test_dry_run_prints_the_batch_price_half_the_listed_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["generate", "-m", "openai/gpt-4o-mini", "--dry-run", "--n", "200",
            "--occupations", "nurse,pilot"]  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args) == 0
    listed = capsys.readouterr().out
    assert gasp_exit_code(monkeypatch, *args, "--batch") == 0
    batch = capsys.readouterr().out
    assert "batch API: half the listed price" in batch and "batch API" not in listed

    def costs(text: str) -> list[float]:
        row = next(line for line in text.splitlines() if "cost (USD" in line)
        return [float(x.replace(",", "")) for x in re.findall(r"\$(\d[\d,]*\.\d+)", row)]

    assert costs(batch) == pytest.approx([c / 2 for c in costs(listed)], abs=0.006)


@pytest.mark.parametrize("command", [["generate", "--out", "{out}"], ["run", "--out", "{folder}"]])
@pytest.mark.parametrize("model", ["mock/personas", "embedded"])
def test_batch_on_a_model_without_a_batch_api_is_one_line_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    model: str,
) -> None:
    paths = {"{out}": str(tmp_path / "r.sqlite"), "{folder}": str(tmp_path / "run")}
    args = [paths.get(a, a) for a in command]
    code = gasp_exit_code(monkeypatch, *args, "-m", model, "--batch", "--occupations", "nurse")
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and "--batch needs a model behind a batch API" in err
    assert not (tmp_path / "r.sqlite").exists() and not (tmp_path / "run").exists()


def test_progress_lines_show_the_batches_and_a_run_without_batch_warns_of_open_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, path = _plan(), tmp_path / "r.sqlite"
    out = io.StringIO()
    console = Console(file=out, width=200)
    with FakeOpenAIServer() as server:
        server.batch.complete_after_polls = 3
        options = RunOptions(base_url=server.base_url, batch=FAST, progress_interval_s=60)
        summary = generate(plan, MODEL, path, options, console=console)
        assert summary.complete
        assert "batch-test: waiting for 1 batch(es): batch_1 in_progress 0/24" in out.getvalue()
        # a second run killed while polling
        _killed_run(monkeypatch, server, tmp_path / "s.sqlite", plan, "retrieve")
        out.truncate(0)
        direct = RunOptions(base_url=server.base_url, progress=False)
        assert generate(plan, MODEL, tmp_path / "s.sqlite", direct, console=console).complete
    assert "1 batch(es) of this run are still open at the provider" in out.getvalue()


def test_the_key_travels_only_in_the_header_and_transient_errors_are_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-batch-DO-NOT-LEAK-93c1"
    plan = _plan(items=2)
    monkeypatch.setattr(BatchClient, "backoff_s", 0.001)
    with FakeOpenAIServer(api_key=secret) as server:
        monkeypatch.setenv("GASP_TEST_KEY", "sk-wrong-key-7d2e")
        options = RunOptions(
            progress=False, base_url=server.base_url, batch=FAST, api_key_env="GASP_TEST_KEY"
        )
        with pytest.raises(BackendError, match=r"refused the API key \(HTTP 401\)") as refused:
            generate(plan, MODEL, tmp_path / "r.sqlite", options)
        assert "\n" not in str(refused.value) and "sk-" not in str(refused.value)
        monkeypatch.setenv("GASP_TEST_KEY", secret)
        server.batch.unavailable = 3
        summary = generate(plan, MODEL, tmp_path / "r.sqlite", options)
        assert summary.complete and server.batch.unavailable == 0
        server.batch.unavailable = BatchClient.attempts
        with pytest.raises(BackendError, match="HTTP 503"):
            generate(plan, MODEL, tmp_path / "s.sqlite", options)
    with RunStore.open(tmp_path / "r.sqlite") as store:
        assert secret not in json.dumps(store.manifest())
        # the wrong key is refused before a batch is created: only the second run's is there
        assert [r.status for r in store.batch_ledger().records()] == ["collected"]


def test_batch_with_several_servers_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    options = RunOptions(
        progress=False,
        base_urls=["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"],
        batch=FAST,
    )
    with pytest.raises(ConfigError, match="one --base-url, not 2"):
        generate(_plan(), MODEL, path, options)
    assert not path.exists()
