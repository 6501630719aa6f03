"""Benchmark: how fast ``gasp view`` answers over many runs and over a large run.

Run ``python bench/bench_view.py`` (options: ``--runs 1000``, ``--generations 100000``,
``--workdir DIR`` where the trees go, ``--keep`` to keep them for the next call, which
then reuses them). It makes

- a tree of ``--runs`` run folders: one quick narratives run of the mock model, its
  store and saved results copied into each folder;
- one More of the Same run store of ``--generations`` generations, written by
  ``bench_scaling.build_store`` (realistic texts over the study's 63 occupations);

then asks the browser's ASGI application (in process, through Starlette's test client)
for the index of the tree, first while nothing is known (the folders are searched and
every run's store, results and headline metrics read) and again later (the search
again, unchanged runs taken from the cache), and for pages of the texts behind words in
the large run: a frequent word, a rare one, a word no text uses (the worst case: every
generation is read), and page 100 of the frequent word. Targets: the index of 1,000
runs and the first page of texts of a 100,000-generation run each under 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from starlette.testclient import TestClient

import gasp
from gasp.viewing import _app as app_module
from gasp.viewing import build_app


def make_runs(root: Path, count: int) -> int:
    """``count`` run folders under ``root`` (copies of one quick run); their total bytes."""
    seed = root.parent / "seed-run"
    if not seed.is_dir():
        gasp.run("narratives", "mock/personas", out=seed, quick=True)
    for i in range(count):
        folder = root / f"run-{i:04d}"
        if folder.is_dir():
            continue
        folder.mkdir(parents=True)
        shutil.copyfile(seed / "run.sqlite", folder / "run.sqlite")
        shutil.copytree(seed / "results", folder / "results")
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def make_large(root: Path, generations: int) -> Path:
    """A run folder whose store holds ``generations`` generations."""
    from bench_scaling import build_store

    folder = root / "large"
    store = folder / "run.sqlite"
    if not store.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        build_store(store, generations)
    return store


def timed(client: TestClient, path: str) -> tuple[float, int]:
    """Seconds to answer ``path`` and the size of the answer."""
    start = time.perf_counter()
    response = client.get(path)
    seconds = time.perf_counter() - start
    assert response.status_code == 200, (path, response.status_code)
    assert b'class="error"' not in response.content, path
    return seconds, len(response.content)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--generations", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gasp-bench-view-"))
    try:
        t0 = time.perf_counter()
        tree_bytes = make_runs(work / "many", args.runs)
        store = make_large(work / "big", args.generations)
        print(f"made the trees in {time.perf_counter() - t0:.1f} s under {work}")
        print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        rows = []
        client = TestClient(build_app([work / "many"]))
        cpu = time.process_time()
        cold, size = timed(client, "/")
        cpu = time.process_time() - cpu
        print(f"first index: {cold:.2f} s wall, {cpu:.2f} s CPU (this process, all threads)")
        warm = []
        for _ in range(5):
            app_module.RESCAN_S = 0.0  # search the folders again on every request
            seconds, size = timed(client, "/")
            warm.append(seconds)
        what = f"{args.runs:,} runs, {tree_bytes / 2**20:.0f} MiB"
        rows.append(("index (metrics pending)", what, cold, statistics.median(warm), size))
        catalog = client.app.state.site.catalog  # type: ignore[attr-defined]
        start = time.perf_counter()
        while catalog.pending:
            client.get("/")  # starts the background reader again if it stopped
            time.sleep(0.2)
        print(
            f"headline metrics of {args.runs:,} runs read in the background in about "
            f"{time.perf_counter() - start + sum(warm):.1f} s"
        )
        done = [timed(client, "/") for _ in range(5)]
        full = statistics.median(s for s, _ in done)
        rows.append(("index (every metric read)", what, done[0][0], full, done[0][1]))
        big = TestClient(build_app([work / "big"]))
        index = big.get("/").text
        key = index.split('href="run-', 1)[1][:12]
        mib = store.stat().st_size / 2**20
        what = f"{args.generations:,} generations, {mib:.0f} MiB store"
        for label, word, page in (
            ("texts: 'she', page 1", "she", 1),
            ("texts: 'golf', page 1", "golf", 1),
            ("texts: 'she', page 100", "she", 100),
            ("texts: a word no text uses", "zyzzyva", 1),
        ):
            path = f"/words-{key}-{word.encode().hex()}-{page}.html"
            first, size = timed(big, path)
            again = statistics.median(timed(big, path)[0] for _ in range(3))
            rows.append((label, what, first, again, size))
        print()
        print("| page | over | first answer (s) | again, median (s) | page size (KiB) |")
        print("| --- | --- | ---: | ---: | ---: |")
        for label, what, first, again, size in rows:
            print(f"| {label} | {what} | {first:.3f} | {again:.3f} | {size / 1024:.0f} |")
    finally:
        if not args.keep and args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
