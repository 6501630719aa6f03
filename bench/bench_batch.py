"""Samples per second committed to the run store through the batch API (``--batch``).

The fake OpenAI-compatible server runs in its own process (batches end at their
first poll, so the figure is gasp's own work: writing the input lines, uploading,
downloading the output file, reading every line and committing it); the baseline
is the same plan sent directly, one request per sample, at concurrency 16.

    python bench/bench_batch.py               # 5,000 samples, batches of at most 2,000
    python bench/bench_batch.py --samples 20000 --per-batch 50000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_generation import ServerProcess, bench_plan  # the fake server and the plan
from gasp.backends import DecodingConfig
from gasp.runner import BatchOptions, RunOptions, StudyPlan, generate


def timed_run(plan: StudyPlan, base_url: str, store: Path, batch: BatchOptions | None) -> float:
    """Samples per second of one run into a fresh store."""
    options = RunOptions(
        decoding=DecodingConfig(max_tokens=64),
        base_url=base_url,
        progress=False,
        max_concurrency=16,
        batch=batch,
    )
    started = time.perf_counter()
    summary = generate(plan, "openai-compatible/bench", store, options)
    elapsed = time.perf_counter() - started
    assert summary.complete, summary
    return summary.generated / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--per-batch", type=int, default=2000)
    args = parser.parse_args()
    plan = bench_plan(args.samples)
    server = ServerProcess(latency_s=0.0)
    base_url = server.base_url
    try:
        with tempfile.TemporaryDirectory() as folder:
            direct = timed_run(plan, base_url, Path(folder) / "direct.sqlite", None)
            options = BatchOptions(max_requests=args.per_batch, poll_interval_s=0.0)
            batched = timed_run(plan, base_url, Path(folder) / "batch.sqlite", options)
    finally:
        server.close()
    n = len(plan.items) * plan.items[0].n
    print(f"{n:,} samples, fake server in its own process")
    print(f"  direct (baseline, concurrency 16): {direct:9,.0f} samples/s")
    print(f"  --batch ({args.per_batch:,} per batch):     {batched:9,.0f} samples/s")


if __name__ == "__main__":
    main()
