"""Generations per second persisted to the run store, through the runner.

Runs a non-adaptive study (named conditions only, a fixed number of requests)
against the fake OpenAI-compatible server (in its own process, so it does not
share the interpreter with the client) at zero latency and at 200 ms latency, and
compares with the same requests sent by the wrapper alone (no store), with the
runner on the in-process mock backend (no HTTP), and with the store's raw write
rate. Optionally compares the runner with the embedded model
against the embedded backend alone.

    python bench/bench_generation.py                 # fake server, 0 ms and 200 ms
    python bench/bench_generation.py --embedded 16   # also 16 samples of the embedded model
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gasp.backends import (
    DecodingConfig,
    GenerationRequest,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    resolve_backend,
)
from gasp.runner import Item, RunOptions, StudyPlan, as_plan, build_request, generate
from gasp.store import ItemRecord, RunStore, SampleRecord
from gasp.studies.more_of_the_same import Study, more_of_the_same

SERVER = """
import sys
from gasp.testing import FakeOpenAIServer
with FakeOpenAIServer(latency_s=float(sys.argv[1]), port=int(sys.argv[2]), seed=0) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()
"""


def bench_study(samples: int) -> Study:
    """A study of about ``samples`` requests: named conditions only, exactly n per cell."""
    base = more_of_the_same().restrict(conditions=["woman", "man", "nonbinary"])
    cells = len(base.subjects) * len(base.templates) * len(base.conditions)
    n = max(1, round(samples / cells))
    return base.restrict(n=n)


def bench_plan(samples: int, per_item: int = 10) -> StudyPlan:
    """A plan of ``samples`` generations: fixed items of ``per_item`` samples each."""
    items = tuple(
        Item(key=("bench", str(i)), prompt=f"Describe person number {i} in a sentence.", n=per_item)
        for i in range(max(1, samples // per_item))
    )
    return StudyPlan(kind="bench", name="bench", items=items, spec={"samples": samples})


class ServerProcess:
    """One fake server in a child process; ``restart`` binds the same port again."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self._launch(0)

    def _launch(self, port: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(self.latency_s), str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self.base_url.rsplit(":", 1)[1].split("/")[0])

    def close(self) -> None:
        """Let the server end (its stdin closes) and wait for it."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)

    def kill(self) -> None:
        """Kill the server at once, as a crash would."""
        self.proc.kill()
        self.proc.wait(timeout=30)

    def restart(self) -> None:
        """Start the server again on the same port."""
        self._launch(self.port)


def run_via_runner(study: Study, base_url: str, concurrency: int, store: Path) -> tuple[int, float]:
    options = RunOptions(
        decoding=DecodingConfig(max_tokens=64),
        max_concurrency=concurrency,
        base_url=base_url,
        progress=False,
        retry=RetryPolicy(max_attempts=3, timeout_s=30),
    )
    summary = generate(study, "openai-compatible/bench", store, options)
    with RunStore.open(store) as run:
        stored = run.count_samples()
    return stored, summary.elapsed_s


def _generation_requests(study: Study, decoding: DecodingConfig) -> list[GenerationRequest]:
    """Every generation request of ``study`` (sample seeds from run seed 0)."""
    requests = [
        build_request(item, i, decoding=decoding, run_seed=0, system_prompt=None)
        for item in as_plan(study).items
        for i in range(item.n)
    ]
    return [r for r in requests if isinstance(r, GenerationRequest)]


async def run_wrapper_only(study: Study, base_url: str, concurrency: int) -> tuple[int, float]:
    backend = resolve_backend("openai-compatible/bench", base_url=base_url)
    model = ResilientModel(backend, max_concurrency=concurrency, retry=RetryPolicy(timeout_s=30))
    decoding = DecodingConfig(max_tokens=64)
    requests = _generation_requests(study, decoding)
    start = time.perf_counter()
    count = 0
    async for _ in model.generate_many(requests):
        count += 1
    elapsed = time.perf_counter() - start
    await model.aclose()
    return count, elapsed


def store_write_rate(rows: int, batch: int, folder: Path) -> float:
    """Samples per second the store commits in transactions of ``batch`` rows."""
    text = "She is a dedicated nurse who has worked for twelve years in a busy hospital. " * 8
    records = [
        SampleRecord(f'["persona", "s{i // 100}", "woman"]', i % 100, i, text, "stop")
        for i in range(rows)
    ]
    items = sorted({r.item_id for r in records})
    with RunStore.open(folder / "writes.sqlite", create=True) as store:
        store.write_items(
            ItemRecord(item_id, ordinal, "generate", "prompt", messages=(("user", "prompt"),))
            for ordinal, item_id in enumerate(items)
        )
        start = time.perf_counter()
        for k in range(0, rows, batch):
            store.write_samples(records[k : k + batch])
        return rows / (time.perf_counter() - start)


async def embedded_backend_alone(
    backend: ModelBackend, study: Study, decoding: DecodingConfig
) -> tuple[int, float]:
    model = ResilientModel(backend, max_concurrency=1)
    requests = _generation_requests(study, decoding)
    await model.generate(requests[0])  # load the model outside the timing
    start = time.perf_counter()
    count = 0
    async for _ in model.generate_many(requests):
        count += 1
    elapsed = time.perf_counter() - start
    return count, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3000, help="requests at zero latency")
    parser.add_argument(
        "--samples-latency", type=int, default=2000, help="requests at 200 ms latency"
    )
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--embedded", type=int, default=0, help="embedded samples (0: skip)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gasp-bench-"))
    print(
        f"store write rate: {store_write_rate(20_000, 512, folder):,.0f} samples/s "
        "(transactions of 512 rows)"
    )
    study = bench_study(args.samples)
    summary = generate(
        study,
        "mock/personas",
        folder / "mock.sqlite",
        RunOptions(progress=False, max_concurrency=args.concurrency),
    )
    print(
        f"runner+store, in-process mock backend (no HTTP): {summary.generated} in "
        f"{summary.elapsed_s:.2f} s = {summary.generated / summary.elapsed_s:,.0f}/s"
    )
    for latency, samples in ((0.0, args.samples), (0.2, args.samples_latency)):
        study = bench_study(samples)
        server = ServerProcess(latency)
        try:
            count, elapsed = asyncio.run(run_wrapper_only(study, server.base_url, args.concurrency))
            print(
                f"latency {latency * 1000:.0f} ms, concurrency {args.concurrency}: wrapper alone "
                f"{count} in {elapsed:.2f} s = {count / elapsed:,.0f}/s"
            )
            stored, elapsed = run_via_runner(
                study, server.base_url, args.concurrency, folder / f"run-{latency}.sqlite"
            )
            print(
                f"latency {latency * 1000:.0f} ms, concurrency {args.concurrency}: runner+store "
                f"{stored} in {elapsed:.2f} s = {stored / elapsed:,.0f}/s"
            )
        finally:
            server.close()
    if args.embedded:
        decoding = DecodingConfig(max_tokens=32)
        study = more_of_the_same().restrict(
            subjects=["nurse"], templates=["persona"], conditions=["woman"], n=args.embedded
        )
        backend = resolve_backend("embedded")
        count, elapsed = asyncio.run(embedded_backend_alone(backend, study, decoding))
        print(f"embedded backend alone: {count} in {elapsed:.2f} s = {count / elapsed:.2f}/s")
        options = RunOptions(decoding=decoding, progress=False, max_concurrency=1)
        summary = generate(study, backend, folder / "embedded.sqlite", options)
        print(
            f"embedded runner+store (same loaded model): {summary.generated} in "
            f"{summary.elapsed_s:.2f} s = {summary.generated / summary.elapsed_s:.2f}/s"
        )


if __name__ == "__main__":
    main()
