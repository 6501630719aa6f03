"""Benchmark: the audit's plan delivers the power it promises.

Run ``python bench/bench_audit_power.py`` (options: ``--replicates``, ``--level``,
``--comparisons``, ``--seed``). For each test kind the planner knows (exact McNemar on a
0/1 share, the jackknife t-test of a share's distance to its reference and
of a statistic over continuous units), it plans the units that find a planted difference
with 80% power at the level after the scorecard's Benjamini-Hochberg correction (the
level divided by the number of comparisons), then draws that many units for two models
whose difference is the planted one, tests it with the audit's own test
(:func:`gasp.auditing.compare_readings`, the studies' own headline metrics) and prints the
share of replicates in which it is found (target: 0.75 to 0.90).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np
import pandas as pd

from gasp.auditing import DifferenceSettings, Effect, compare_readings, units_needed
from gasp.auditing._power import MCNEMAR, PAIRED_SHARE, PAIRED_UNITS
from gasp.results import HeadlineMetric, MetricReading, mean_of, share_reading
from gasp.studies import get_study_type


def _metric(study: str, name: str) -> HeadlineMetric:
    return next(m for m in get_study_type(study).headline_metrics() if m.name == name)


def _share(values: np.ndarray, reference: float | None) -> MetricReading:
    units = pd.DataFrame({"unit": np.arange(len(values)), "x": values.astype(float)})
    reading = share_reading(units, ("unit",), "x")
    return reading if reference is None else dataclasses.replace(reading, reference=reference)


def _continuous(values: np.ndarray) -> MetricReading:
    units = pd.DataFrame({"unit": np.arange(len(values)), "value": values})
    return MetricReading(
        value=float(values.mean()),
        n=len(values),
        units=units,
        unit_keys=("unit",),
        statistic=mean_of("value"),
    )


def _case(
    kind: str, rng: np.random.Generator, n: int
) -> tuple[HeadlineMetric, MetricReading, MetricReading]:
    if kind == MCNEMAR:  # pronoun pairs' incorrect share: 0.30 -> 0.40
        metric = _metric("pronoun-pairs", "incorrect")
        a = _share(rng.random(n) < 0.40, None)
        b = _share(rng.random(n) < 0.30, None)
    elif kind == PAIRED_SHARE:  # narratives' named female share: 0.30 -> 0.15 (reference 0.5)
        metric = _metric("narratives", "named_female_share")
        a = _share(rng.random(n) < 0.15, 0.5)
        b = _share(rng.random(n) < 0.30, 0.5)
    else:  # OccuGender's explicit F-gap per job: 0.10 -> 0.15, sd of differences 0.1
        metric = _metric("occugender", "explicit_f_gap")
        base = rng.normal(0.10, 0.2, n)
        a = _continuous(base + 0.05 + rng.normal(0, 0.1, n))
        b = _continuous(base)
    return metric, a, b


EFFECTS = {
    MCNEMAR: (Effect(MCNEMAR, p0=0.30, lower_is_better=True), 0.10),
    PAIRED_SHARE: (Effect(PAIRED_SHARE, p0=0.30, reference=0.5), 0.15),
    PAIRED_UNITS: (Effect(PAIRED_UNITS, sd=0.1), 0.05),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--level", type=float, default=0.05)
    parser.add_argument("--comparisons", type=int, default=11)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    alpha = args.level / args.comparisons
    print(f"level {args.level} over {args.comparisons} comparisons: {alpha:.4g} per comparison")
    print("test kind       delta  planned units  found (share of replicates)  seconds")
    for kind, (effect, delta) in EFFECTS.items():
        n = units_needed(effect, delta, alpha)
        assert n is not None
        rng = np.random.default_rng(args.seed)
        start = time.perf_counter()
        found = 0
        for r in range(args.replicates):
            metric, a, b = _case(kind, rng, n)
            settings = DifferenceSettings(seed=args.seed + r)
            found += compare_readings(metric, a, b, settings).p_value <= alpha
        share = found / args.replicates
        verdict = "ok" if 0.75 <= share <= 0.90 else "OUT OF 0.75-0.90"
        print(
            f"{kind:<14} {delta:>6.2f}  {n:>13}  {share:>10.3f} ({found}/{args.replicates}) "
            f"{verdict:<8} {time.perf_counter() - start:>7.1f}"
        )


if __name__ == "__main__":
    main()
