"""gasp against a real vLLM server (CPU build, separate environment; docs/vllm.md).

Skipped, with one reason, where the vLLM environment is absent. The server serves the
embedded model exported by ``gasp model export-hf`` in float32, so its prompt
log-probabilities are the embedded model's exact scores up to float32 rounding
differences between the two engines' kernels (measured below 1e-4 nats; the
tolerance is 1e-3). The runs through the server skip their reports: what is checked is
in their stores.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from _kill import rows_now
from _vllm_server import ROOT, SERVED_NAME, SKIP_REASON, VLLMServer, vllm_python
from gasp.backends import export_hf

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

MODEL = f"openai-compatible/{SERVED_NAME}"
#: Most |difference| allowed between the server's and the embedded model's exact scores.
TOLERANCE_NATS = 1e-3


@pytest.fixture(scope="module")
def python() -> Path:
    found = vllm_python()
    if found is None:
        pytest.skip(SKIP_REASON)
    return found


@pytest.fixture(scope="module")
def model_dir(python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_hf(tmp_path_factory.mktemp("vllm-model") / "smollm2")


@pytest.fixture(scope="module")
def server(
    python: Path, model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[VLLMServer]:
    log = tmp_path_factory.mktemp("vllm-log") / "server.log"
    started = VLLMServer(python, model_dir, log).start()
    print(f"vLLM server started in {started.start_s:.0f} s")
    yield started
    started.stop()


def _scores(out: Path) -> dict[tuple[str, str], tuple[float, int]]:
    conn = sqlite3.connect(next(out.glob("*.sqlite")))
    rows = conn.execute("SELECT item_id, candidate, logprob, approximate FROM scores").fetchall()
    conn.close()
    return {(item, candidate): (lp, approx) for item, candidate, lp, approx in rows}


def test_occugender_through_vllm_is_exact_and_equals_the_embedded_model(
    server: VLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served, local = tmp_path / "vllm", tmp_path / "embedded"
    args = ("run", "occugender", "--quick", "--skip", "report", "--out")
    assert gasp_exit_code(monkeypatch, *args, str(served), "-m", MODEL, "--base-url",
                          server.base_url) == 0  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args, str(local), "-m", "embedded") == 0
    remote, exact = _scores(served), _scores(local)
    assert remote.keys() == exact.keys() and len(remote) > 100
    assert all(approx == 0 for _, approx in remote.values())
    diffs = [abs(remote[k][0] - exact[k][0]) for k in exact]
    print(f"OccuGender via vLLM: {len(diffs)} scores, max |diff| {max(diffs):.2e} nats")
    assert max(diffs) < TOLERANCE_NATS


@pytest.mark.parametrize("study", ["pronoun-pairs", "narratives"])
def test_generation_studies_run_through_the_server(
    server: VLLMServer, study: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / study
    code = gasp_exit_code(
        monkeypatch, "run", study, "--quick", "-m", MODEL, "--base-url", server.base_url,
        "--skip", "report", "--out", str(out),
    )  # fmt: skip
    assert code == 0
    conn = sqlite3.connect(next(out.glob("*.sqlite")))
    counts = conn.execute(
        "SELECT COUNT(*), SUM(stop_reason = 'error'), SUM(length(text) > 0) FROM samples"
    ).fetchone()
    conn.close()
    assert counts[0] > 0 and counts[1] == 0 and counts[2] == counts[0]


def test_a_fleet_of_two_servers_loses_nothing_when_one_stops_mid_run(
    server: VLLMServer,
    python: Path,
    model_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    second = VLLMServer(python, model_dir, tmp_path / "second.log").start()
    out = tmp_path / "fleet"
    store = out / "run.sqlite"

    def stop_second() -> None:
        deadline = time.monotonic() + 600
        while rows_now(store) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        second.stop()

    stopper = threading.Thread(target=stop_second, daemon=True)
    stopper.start()
    try:
        code = gasp_exit_code(
            monkeypatch, "run", "narratives", "--quick", "-m", MODEL,
            "--base-url", server.base_url, "--base-url", second.base_url, "--skip", "report",
            "--out", str(out),
        )  # fmt: skip
    finally:
        stopper.join(timeout=600)
        second.stop()
    assert code == 0
    conn = sqlite3.connect(store)
    rows = conn.execute("SELECT item_id, sample_index, stop_reason FROM samples").fetchall()
    items = conn.execute("SELECT COUNT(*) FROM items WHERE kind = 'generate'").fetchone()[0]
    conn.close()
    keys = [(item, index) for item, index, _ in rows]
    assert len(keys) == len(set(keys))  # nothing doubled
    assert all(stop != "error" for *_, stop in rows)  # nothing lost
    assert {item for item, _ in keys} and len({item for item, _ in keys}) == items


def test_an_audit_compares_models_behind_the_server_and_fails_on_one_it_does_not_serve(
    server: VLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = (
        "audit", "--quick", "--studies", "pronoun-pairs", "-m", f"plain={MODEL}",
        "--system-prompt-variant", "male=Every person you write about is a man.",
        "--baseline", "plain", "--base-url", server.base_url,
    )  # fmt: skip
    out = tmp_path / "audit"
    assert gasp_exit_code(monkeypatch, *served, "--out", str(out)) == 0
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    assert {r["status"] for r in card["runs"]} == {"complete"}
    assert card["comparisons"] and all(c["model"] == "male" for c in card["comparisons"])
    code = gasp_exit_code(
        monkeypatch, *served, "-m", "x=openai-compatible/not-served", "--fail-on", "worse",
        "--out", str(tmp_path / "unserved"),
    )  # fmt: skip
    assert code == 1


def test_the_vllm_offline_backend_runs_in_that_environment(
    python: Path, model_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "offline"
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [str(python), "-m", "gasp", "run", "pronoun-pairs", "--quick", "-m",
         f"vllm/{model_dir}", "--model-option", "dtype=float32",
         "--model-option", "optimization_level=0", "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=1800, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    conn = sqlite3.connect(next(out.glob("*.sqlite")))
    counts = conn.execute("SELECT COUNT(*), SUM(stop_reason = 'error') FROM samples").fetchone()
    conn.close()
    assert counts[0] > 0 and counts[1] == 0
