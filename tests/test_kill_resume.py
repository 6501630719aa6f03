"""SIGKILL the generating process at random moments; re-running completes the exact plan."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from _kill import kill_when, rows_now, run_in_process
from gasp.store import RunStore

SCRIPT = """
import sys
from gasp.runner import RunOptions, generate
from gasp.studies.more_of_the_same import load_study

study = load_study("more-of-the-same").restrict(subjects=["nurse", "pilot"], n=6)
options = RunOptions(
    progress=False,
    max_concurrency=4,
    backend_options={"latency_s": 0.02, "female_share": 0.6},
)
summary = generate(study, "mock/personas", sys.argv[1], options)
print("COMPLETE" if summary.complete else "INCOMPLETE", flush=True)
"""


def _run(script: Path, store: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), str(store)], capture_output=True, text=True, timeout=120
    )


def _keys_and_texts(path: Path) -> dict[tuple[str, str, str, int], str]:
    with RunStore.open(path) as store:
        frame = store.samples(include_errors=True)
        assert store.integrity_check() == "ok"
    assert not frame.duplicated(["template", "subject", "condition", "sample_index"]).any()
    return {
        (r.template, r.subject, r.condition, int(r.sample_index)): r.text
        for r in frame.itertuples()
    }


def test_sigkill_at_random_moments_then_resume_gives_exactly_the_planned_samples(
    tmp_path: Path,
) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    reference = tmp_path / "reference.sqlite"
    run_in_process(SCRIPT, str(reference))  # the same run, in process
    expected = _keys_and_texts(reference)
    assert len(expected) > 100

    rng = random.Random(20240607)
    killed = tmp_path / "killed.sqlite"
    partial_counts = []
    for _ in range(3):
        stored = rows_now(killed)
        target = stored + rng.randint(1, (len(expected) - stored) // 3)
        proc = subprocess.Popen(
            [sys.executable, str(script), str(killed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        kill_when(proc, killed, target, rng.uniform(0.0, 0.05))
        partial_counts.append(rows_now(killed))
    # every kill landed in the middle of generation
    assert all(0 < c < len(expected) for c in partial_counts), partial_counts
    result = _run(script, killed)
    assert "COMPLETE" in result.stdout.split(), result.stderr
    assert _keys_and_texts(killed) == expected
