"""The gate sees the server: an audit whose model moved to another server is refused
(or redone with ``--redo``), never scored on the old server's answers; and one audit
per folder: a second audit on a folder in use is refused in one line before any work."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.auditing import AuditConfig, AuditLocked, lock_audit, prepare_audit
from gasp.store import StoreLock
from gasp.testing import FakeOpenAIServer

STUDIES = ("--quick", "--studies", "narratives")


def _audit(monkeypatch: pytest.MonkeyPatch, out: Path, base: str, cand: str, *extra: str) -> int:
    return gasp_exit_code(
        monkeypatch, "audit", *STUDIES,
        "-m", "base=openai-compatible/m", "-m", "cand=openai-compatible/m",
        "--model-option", f"base:base_url={base}", "--model-option", f"cand:base_url={cand}",
        "--baseline", "base", "--out", str(out), *extra,
    )  # fmt: skip


def test_a_model_moved_to_another_server_is_refused_then_redone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    with (
        FakeOpenAIServer(models=["m"], seed=1) as base,
        FakeOpenAIServer(models=["m"], seed=2) as old,
        FakeOpenAIServer(models=["m"], seed=3) as new,
    ):
        assert _audit(monkeypatch, out, base.base_url, old.base_url) == 0
        capsys.readouterr()
        record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
        assert record["runs"]["cand/narratives"]["servers"] == [old.base_url.rstrip("/")]
        assert record["runs"]["base/narratives"]["servers"] == [base.base_url.rstrip("/")]
        card = (out / "scorecard.json").read_bytes()

        # the same command with the candidate at another server: refused, nothing asked
        code = _audit(monkeypatch, out, base.base_url, new.base_url)
        err = capsys.readouterr().err
        assert code == 2
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and "servers" in lines[0] and "--redo" in lines[0]
        assert new.requests == 0
        assert (out / "scorecard.json").read_bytes() == card  # nothing rewritten

        # redone: the candidate's answers now come from the new server only
        asked_before = old.requests
        code = _audit(monkeypatch, out, base.base_url, new.base_url, "--redo", "narratives")
        capsys.readouterr()
        assert code == 0
        assert new.successes > 0 and old.requests == asked_before
        record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
        assert record["runs"]["cand/narratives"]["servers"] == [new.base_url.rstrip("/")]


HOLD = """
import sys, time
from pathlib import Path
from gasp.auditing import lock_audit
lock = lock_audit(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(120)
"""


def test_a_second_audit_on_a_folder_in_use_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with FakeOpenAIServer(models=["m"]) as server:
            before = sorted(p.name for p in out.iterdir())
            code = _audit(monkeypatch, out, server.base_url, server.base_url)
            err = capsys.readouterr().err
            assert server.requests == 0  # refused before any request
        assert code == 2
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1, err
        assert "another audit is running in" in lines[0] and f"pid {holder.pid}" in lines[0]
        assert sorted(p.name for p in out.iterdir()) == before  # nothing written

        # the library refuses alike, before it resolves a run
        with pytest.raises(AuditLocked, match="another audit is running"):
            prepare_audit(["mock/personas"], ["narratives"], None, out, 0.05, AuditConfig())
    finally:
        holder.kill()
        holder.communicate(timeout=30)
    # the holder's end frees the folder (the OS releases its lock)
    deadline = time.monotonic() + 30
    while True:
        try:
            lock = lock_audit(out)
            break
        except AuditLocked:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    assert isinstance(lock, StoreLock) and lock.held
    lock.release()


def test_a_server_that_now_serves_other_weights_under_the_same_name_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    with FakeOpenAIServer(models=["m"], seed=1) as base:
        with FakeOpenAIServer(models=["m"], seed=2, model_root="/weights/v1") as first:
            url = first.base_url
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            assert _audit(monkeypatch, out, base.base_url, url) == 0
        capsys.readouterr()
        record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
        identity = record["runs"]["cand/narratives"]["server_identity"]
        assert identity == [{"created": 0, "id": "m", "object": "model", "owned_by": "gasp",
                             "root": "/weights/v1"}]  # fmt: skip
        card = (out / "scorecard.json").read_bytes()
        # the same URL, restarted with other weights: the old answers are not the new
        # server's, so the audit is refused before a completion is asked, then redone
        with FakeOpenAIServer(models=["m"], seed=3, model_root="/weights/v2", port=port) as now:
            assert now.base_url == url
            code = _audit(monkeypatch, out, base.base_url, url)
            err = capsys.readouterr().err
            lines = [line for line in err.splitlines() if line.strip()]
            assert code == 2 and len(lines) == 1, lines
            assert "server_identity" in lines[0] and "--redo" in lines[0]
            assert now.requests == 0
            assert (out / "scorecard.json").read_bytes() == card
            assert _audit(monkeypatch, out, base.base_url, url, "--redo", "narratives") == 0
            capsys.readouterr()
            assert now.successes > 0
        record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
        assert record["runs"]["cand/narratives"]["server_identity"][0]["root"] == "/weights/v2"
