"""Samples per second through the runner over a fleet of fake servers.

Each fake OpenAI-compatible server runs in its own process. Scenarios, all the
same requests at the same concurrency:

- one fast server (the baseline: a single --base-url, no fleet);
- three fast servers (the routing's own cost);
- two fast servers, then the same two plus a slow one (a slow server must not
  slow the run down: it gets few requests);
- three fast servers, one stopped a third of the way through and restarted a
  little later (the outage's cost).

    python bench/bench_fleet.py                    # 1200 samples, 20 ms / 400 ms servers
    python bench/bench_fleet.py --samples 600 --concurrency 24
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from bench_generation import ServerProcess, bench_plan  # the fake server and the plan
from gasp.backends import DecodingConfig, RetryPolicy
from gasp.runner import RunOptions, RunSummary, generate


def run(urls: list[str], samples: int, concurrency: int, store: Path) -> tuple[RunSummary, float]:
    options = RunOptions(
        decoding=DecodingConfig(max_tokens=64),
        max_concurrency=concurrency,
        base_urls=urls,
        progress=False,
        retry=RetryPolicy(max_attempts=8, base_delay_s=0.05, max_delay_s=0.5, timeout_s=30),
        backend_options={"probe_after_s": 0.2, "probe_max_s": 0.5} if len(urls) > 1 else None,
    )
    started = time.perf_counter()
    summary = generate(bench_plan(samples), "openai-compatible/bench", store, options)
    elapsed = time.perf_counter() - started
    assert summary.complete and summary.generated == samples, summary
    return summary, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1200)
    parser.add_argument("--concurrency", type=int, default=24)
    parser.add_argument("--fast-s", type=float, default=0.02)
    parser.add_argument("--slow-s", type=float, default=0.4)
    args = parser.parse_args()
    fast = [ServerProcess(args.fast_s) for _ in range(3)]
    slow = ServerProcess(args.slow_s)
    rows: list[tuple[str, float, RunSummary]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:

            def scenario(name: str, urls: list[str]) -> None:
                store = Path(tmp) / f"{len(rows)}.sqlite"
                summary, elapsed = run(urls, args.samples, args.concurrency, store)
                rows.append((name, elapsed, summary))

            scenario("1 fast server (single URL, baseline)", [fast[0].base_url])
            scenario("3 fast servers", [s.base_url for s in fast])
            scenario("2 fast servers", [fast[0].base_url, fast[1].base_url])
            scenario("2 fast + 1 slow server", [fast[0].base_url, fast[1].base_url, slow.base_url])
            victim = fast[2]
            expected_s = rows[1][1]

            def outage() -> None:
                time.sleep(expected_s / 3)
                victim.kill()
                time.sleep(expected_s / 3)
                victim.restart()

            chaos = threading.Thread(target=outage, daemon=True)
            chaos.start()
            scenario("3 fast, one stopped and restarted", [s.base_url for s in fast])
            chaos.join()
    finally:
        for server in [*fast, slow]:
            server.close()
    base = rows[0][1]
    print(
        f"{args.samples} samples, concurrency {args.concurrency}, "
        f"fast servers {args.fast_s * 1000:g} ms, slow {args.slow_s * 1000:g} ms"
    )
    print(f"{'scenario':40} {'s':>6} {'samples/s':>10} {'vs base':>8}  requests per server")
    for name, elapsed, summary in rows:
        shares = " / ".join(
            f"{e.sent}" + (f" ({e.failed} failed, drained {e.drained}x)" if e.failed else "")
            for e in summary.endpoints
        )
        print(
            f"{name:40} {elapsed:6.2f} {args.samples / elapsed:10.1f} "
            f"{base / elapsed:7.2f}x  {shares or summary.requests}"
        )


if __name__ == "__main__":
    main()
