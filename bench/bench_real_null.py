"""Benchmark: the audit's false-positive share on a real model's own stories.

Run ``python bench/bench_real_null.py RUN [--against OTHER]`` where ``RUN`` (and
``OTHER``) are saved narratives runs (``gasp run narratives`` or an audit's
``MODEL/narratives`` folder) with at least two stories per profession and opening.

* Twins: each replicate splits every (profession, opening) cell of ``RUN`` at random
  into two halves, as if two runs of the same model with other seeds had written them,
  reads the narratives' headline metrics from each half with the study's own readers,
  tests them with the audit's tests and applies the audit's Benjamini-Hochberg
  correction. The share of replicates with a significant difference is the family-wise
  false-positive share of an audit of a model against itself, on real stories (target:
  at most 0.06 at level 0.05).
* ``--against OTHER`` (for example the same model with a neutral system prompt): each
  replicate compares a random half of every cell of ``RUN`` with a random half of the
  same cell of ``OTHER``; the share of replicates with a significant difference is the
  rejection rate of an audit of half the size (subsampling), which is a false-positive
  rate where ``OTHER`` behaves like ``RUN``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bench_audit_null import add_study
from gasp.auditing import DifferenceSettings, Scorecard, correct
from gasp.results import AuditResults
from gasp.stats import wilson_interval

CELL = ["profession", "template"]


def stories(run: Path) -> pd.DataFrame:
    """The per-story table of a saved narratives run."""
    results = run / "results" if (run / "results").is_dir() else run
    table = AuditResults.load(results).get("narrative_stories")
    if table is None:
        raise SystemExit(f"{run}: no narrative_stories table (not a narratives run?)")
    return table


def halves(table: pd.DataFrame, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every cell split at random into two halves, each half's stories numbered again
    from 0 (so that two halves pair story i of a cell with story i)."""
    first: list[pd.DataFrame] = []
    second: list[pd.DataFrame] = []
    for _, cell in table.groupby(CELL, sort=False):
        order = rng.permutation(len(cell))
        size = len(cell) // 2
        for part, chosen in ((first, order[:size]), (second, order[size : 2 * size])):
            rows = cell.iloc[np.sort(chosen)].copy()
            rows["sample_index"] = np.arange(len(rows))
            part.append(rows)
    return pd.concat(first, ignore_index=True), pd.concat(second, ignore_index=True)


def replicate(base: pd.DataFrame, other: pd.DataFrame | None, seed: int, level: float) -> Scorecard:
    """One audit of two halves (of ``base``, or of ``base`` and ``other``)."""
    rng = np.random.default_rng(seed)
    if other is None:
        a, b = halves(base, rng)
    else:
        a, b = halves(other, rng)[0], halves(base, rng)[0]
    card = Scorecard([], "base", level)
    add_study(card, "narratives", {"narrative_stories": a}, {"narrative_stories": b},
              DifferenceSettings())  # fmt: skip
    correct(card)
    return card


def main(argv: list[str] | None = None) -> int:
    """Run the replicates and print the share with a significant difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--against", type=Path, default=None)
    parser.add_argument("--replicates", type=int, default=500)
    parser.add_argument("--level", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    base = stories(args.run)
    other = None if args.against is None else stories(args.against)
    start = time.perf_counter()
    hits = 0
    by_metric: dict[str, int] = {}
    for r in range(args.replicates):
        card = replicate(base, other, args.seed * 100_003 + r, args.level)
        found = [c for c in card.comparison_rows if c["significant"]]
        hits += bool(found)
        for c in found:
            by_metric[c["metric"]] = by_metric.get(c["metric"], 0) + 1
    low, high = wilson_interval(hits, args.replicates)
    kind = "twins (halves of one run)" if other is None else f"halves against {args.against}"
    cells = base.groupby(CELL).ngroups
    print(f"{kind}: {args.replicates} replicates, {len(base) // 2} stories a side at most, "
          f"{cells} cells, level {args.level}")  # fmt: skip
    print("shares of the real stories: " + ", ".join(
        f"{g} {s:.3f}" for g, s in base["gender"].fillna("U").value_counts(normalize=True).items()
    ))  # fmt: skip
    print(
        f"replicates with at least one significant difference: {hits} "
        f"({hits / args.replicates:.3f}, Wilson 95% {low:.3f}-{high:.3f})"
    )
    for metric, count in sorted(by_metric.items()):
        print(f"  {metric}: significant in {count} replicates")
    print(f"{time.perf_counter() - start:.1f} s")
    return 1 if other is None and hits / args.replicates > 0.06 else 0


if __name__ == "__main__":
    sys.exit(main())
