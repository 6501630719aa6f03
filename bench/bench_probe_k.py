"""Benchmark: how often each rule choosing the probe's k recovers a planted k.

Run ``python bench/bench_probe_k.py`` (options: ``--replicates``, ``--k-max``,
``--seed``). For every planted k from 3 to 12 and every separation of ``--separations``,
``--replicates`` structures are drawn (:func:`gasp.probe.planted_clusters`: 50
dimensions, cluster sizes from 15 to 60), the silhouette curve and the stability
score are computed once over the grid 2..``--k-max``, and every rule reads its k
from them: ``paper`` (largest fall of the silhouette to the next k, seed ``000``
Appendix C.3.1), ``max`` (largest silhouette) and ``stability`` (the default). Prints
the share of structures whose planted k each rule recovers, per k, per separation
and overall, and the seconds the curves took.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score, silhouette_score
from threadpoolctl import threadpool_limits

from gasp.embeddings import unit_rows
from gasp.probe import ClusteringConfig, choose_k, planted_clusters, stability_scores
from gasp.probe._clustering import _fit

RULES = ("paper", "max", "stability")


def curves(
    x: np.ndarray, grid: list[int], seed: int, truth: np.ndarray, k: int
) -> tuple[list[float], np.ndarray, float, float]:
    """Silhouette and stability per k of ``grid``, the seconds the stability took, and
    the adjusted Rand index of the k-means fit at the planted ``k`` with the truth."""
    cfg = ClusteringConfig()
    sil = []
    ari = float("nan")
    for kk in grid:
        labels = _fit(x, kk, seed, cfg).labels_
        sil.append(float(silhouette_score(x, labels)))
        if kk == k:
            ari = float(adjusted_rand_score(truth, labels))
    start = time.perf_counter()
    stab = stability_scores(x, grid, rng=np.random.default_rng(seed))
    return sil, stab, time.perf_counter() - start, ari


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replicates", type=int, default=4)
    parser.add_argument("--k-max", type=int, default=16)
    parser.add_argument("--separations", type=float, nargs="+", default=[0.8, 1.0, 1.3])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    planted_ks = list(range(3, 13))
    hits = {rule: np.zeros((len(planted_ks), len(args.separations))) for rule in RULES}
    seconds = {"silhouette+stability": 0.0, "stability": 0.0}
    fit_ari = np.zeros((len(planted_ks), len(args.separations)))
    for ki, k in enumerate(planted_ks):
        for si, sep in enumerate(args.separations):
            for _ in range(args.replicates):
                points, truth = planted_clusters(k, rng, separation=sep)
                x = unit_rows(points)
                grid = list(range(2, min(args.k_max, x.shape[0] - 1) + 1))
                start = time.perf_counter()
                with threadpool_limits(limits=1):
                    sil, stab, stab_s, ari = curves(x, grid, int(rng.integers(2**31 - 1)), truth, k)
                fit_ari[ki, si] += ari / args.replicates
                seconds["silhouette+stability"] += time.perf_counter() - start
                seconds["stability"] += stab_s
                for rule in RULES:
                    chosen = choose_k(grid, sil, rule, stab)  # type: ignore[arg-type]
                    hits[rule][ki, si] += chosen == k
    n = args.replicates
    print(f"planted k recovered, share of {n} structures per cell (separations {args.separations})")
    print("k    " + "".join(f"{rule:>12}" for rule in RULES))
    for ki, k in enumerate(planted_ks):
        row = "".join(
            f"{hits[rule][ki].sum() / (n * len(args.separations)):>12.2f}" for rule in RULES
        )
        print(f"{k:<5}{row}")
    for si, sep in enumerate(args.separations):
        row = "".join(f"{hits[rule][:, si].sum() / (n * len(planted_ks)):>12.2f}" for rule in RULES)
        print(
            f"separation {sep:g}: {row.strip()}  (k-means at the planted k: adjusted Rand "
            f"{fit_ari[:, si].mean():.2f} with the truth)"
        )
    total = n * len(planted_ks) * len(args.separations)
    print("all  " + "".join(f"{hits[rule].sum() / total:>12.2f}" for rule in RULES))
    print(
        f"{total} structures; curves {seconds['silhouette+stability']:.1f} s "
        f"(stability {seconds['stability']:.1f} s)"
    )


if __name__ == "__main__":
    main()
