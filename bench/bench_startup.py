"""Start-up times of the package and the command line (prints figures; not a test).

Each figure is the median wall time (and CPU time) of ``--repeat`` fresh
interpreters, beside the bare interpreter's start (``python -c pass``, the baseline
every figure includes); the targets are read against the wall time:

(a) ``import gasp``: the public API is imported on first use. Target: < 0.3 s.
(b) ``gasp version`` (``python -m gasp version``). Target: < 1 s.
(c) ``gasp --help``. No target; it shows what the command modules cost.
(d) ``import gasp`` then ``gasp.run``: what the first use of the API adds (no target).

Run: ``python bench/bench_startup.py`` (``--repeat N``, default 7). Run it from the
repository root with ``PYTHONPATH=src`` to time the working tree.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

TARGETS = {"import gasp": 0.3, "gasp version": 1.0}


def _median_seconds(argv: list[str], repeat: int) -> tuple[float, float] | None:
    """The median wall time and CPU time (user + system) of ``argv`` in ``repeat``
    fresh processes; None when it fails (an older tree without the public API). On a
    busy machine the CPU time is the steadier figure."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        if subprocess.run(argv, capture_output=True).returncode != 0:
            return None
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    """Print the median start-up time of each command beside the baseline and target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="fresh interpreters per figure")
    args = parser.parse_args()
    python = sys.executable
    cases = {
        "python -c pass (baseline)": [python, "-c", "pass"],
        "import gasp": [python, "-c", "import gasp"],
        "gasp version": [python, "-m", "gasp", "version"],
        "gasp --help": [python, "-m", "gasp", "--help"],
        "import gasp; gasp.run": [python, "-c", "import gasp; gasp.run"],
    }
    print(f"median of {args.repeat} fresh interpreters ({python})")
    for name, argv in cases.items():
        timed = _median_seconds(argv, args.repeat)
        if timed is None:
            print(f"{name:<28}    n/a (failed in this tree)", flush=True)
            continue
        seconds, cpu = timed
        target = TARGETS.get(name)
        verdict = (
            ""
            if target is None
            else f"  target < {target} s: {'ok' if seconds < target else 'MISSED'}"
        )
        print(f"{name:<28} {seconds:6.3f} s wall {cpu:6.3f} s cpu{verdict}", flush=True)


if __name__ == "__main__":
    main()
