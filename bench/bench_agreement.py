"""Benchmark: does each comparison's interval agree with its test?

Run ``python bench/bench_agreement.py`` (options: ``--replicates``, ``--seed``,
``--shifts``). For each world (shift 0 is the null: two models with the same
behaviour; a positive shift plants a difference in every metric) it draws the saved
per-unit tables of every study (the same simulation as ``bench_audit_null.py``),
reads every headline metric with the studies' own readers and compares the two models
with the audit's tests. It prints, per test kind (exact McNemar, jackknife t over
jobs, occupations, SRB cells and stories, two-proportion score test, Poisson counts,
Wald), how many comparisons were tested, how often "the 95% interval excludes 0" and
"p < 0.05" disagree (target: at most 5% of the replicates of every kind) and how often
p < 0.05. Exit status 1 when a kind disagrees in more than 5%.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit_null import JOBS, SUBJECTS, _tables
from gasp.auditing import compare_readings
from gasp.results import AuditResults
from gasp.studies import get_study_type

LEVEL = 0.05


def _kind(test: str) -> str:
    """The test kind of a comparison's ``test`` text (its unit for the jackknife)."""
    jackknife = re.match(r"paired jackknife t-test over \d+ shared (.+)", test)
    if jackknife:
        return f"jackknife t over {jackknife.group(1)}"
    return re.sub(r" over \d+ shared .*| \(unpaired\)| with its .*", "", test)


def run_world(replicates: int, seed: int, shift: float) -> dict[str, list[int]]:
    """Per kind: [tested, disagreeing, p below the level] over the replicates."""
    counts: dict[str, list[int]] = {}
    mu = 50 + np.random.default_rng(12345).permutation(np.linspace(-10, 10, JOBS))
    base = {"mu": mu, "bls": np.linspace(90, 10, SUBJECTS)}
    for r in range(replicates):
        rng = np.random.default_rng([seed, r, int(shift * 1000)])
        model_tables = _tables(rng, base, shift)
        base_tables = _tables(rng, base, 0.0)
        for study, tables in model_tables.items():
            for metric in get_study_type(study).headline_metrics():
                a = metric.reading(AuditResults(tables=tables))
                b = metric.reading(AuditResults(tables=base_tables[study]))
                diff = compare_readings(metric, a, b)
                if not np.isfinite(diff.p_value):
                    continue
                row = counts.setdefault(_kind(diff.test), [0, 0, 0])
                excludes = bool(diff.ci_low > 0 or diff.ci_high < 0)
                below = bool(diff.p_value < LEVEL)
                row[0] += 1
                row[1] += excludes != below
                row[2] += below
    return counts


def main(argv: list[str] | None = None) -> int:
    """Run every world and print the disagreement per test kind."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shifts", default="0,0.3,1", help="comma-separated planted shifts")
    args = parser.parse_args(argv)
    worst = 0.0
    for shift in (float(x) for x in args.shifts.split(",")):
        start = time.perf_counter()
        counts = run_world(args.replicates, args.seed, shift)
        world = "null" if shift == 0 else f"planted shift {shift:g}"
        print(f"{world}: {args.replicates} replicates ({time.perf_counter() - start:.0f} s)")
        print(f"  {'test kind':48} {'tested':>7} {'disagree':>9} {'share':>7} {'p<0.05':>7}")
        for kind, (tested, disagree, below) in sorted(counts.items()):
            share = disagree / tested
            worst = max(worst, share)
            print(f"  {kind:48} {tested:7d} {disagree:9d} {share:7.3f} {below / tested:7.3f}")
    print(f"largest disagreement share: {worst:.3f} (target at most 0.05)")
    return 0 if worst <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
