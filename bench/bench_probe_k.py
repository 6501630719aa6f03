"""Benchmark: how often each rule choosing the probe's k recovers a planted k.

Run ``python bench/bench_probe_k.py`` (options: ``--replicates``, ``--k-max``,
``--separations``, ``--seed``). For every planted k from 3 to 12 and every separation,
``--replicates`` structures are drawn (:func:`gasp.probe.planted_clusters`: 50
dimensions, cluster sizes from 15 to 60). The silhouette curve over the grid
2..``--k-max`` is computed with one k-means++ run per k and with the best of 5 runs
(``n_init``), the stability score (:func:`gasp.probe.stability_scores`, 6 subsamples
of 80%) with 5 runs, and every rule reads its k from them: ``paper`` (largest fall of
the silhouette to the next k, seed ``000`` Appendix C.3.1), ``max`` (largest
silhouette) and ``stability``. Prints the share of structures whose planted k each
rule recovers, per k, per separation and overall (the default is ``max`` with
``n_init=5``), the adjusted Rand index of the 5-run fit at the planted k with the
truth, and the seconds each curve took.
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

#: (label, rule, n_init of the silhouette curve)
RULES = (
    ("paper/1", "paper", 1),
    ("max/1", "max", 1),
    ("paper/5", "paper", 5),
    ("max/5", "max", 5),
    ("stability/5", "stability", 5),
)


def silhouettes(x: np.ndarray, grid: list[int], seed: int, n_init: int) -> list[np.ndarray]:
    """The k-means labels of every k of ``grid`` (best of ``n_init`` runs)."""
    cfg = ClusteringConfig(n_init=n_init)
    return [_fit(x, k, seed, cfg).labels_ for k in grid]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replicates", type=int, default=1)
    parser.add_argument("--k-max", type=int, default=16)
    parser.add_argument("--separations", type=float, nargs="+", default=[0.8, 1.0, 1.3])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    planted_ks = list(range(3, 13))
    seps = args.separations
    hits = {label: np.zeros((len(planted_ks), len(seps))) for label, _, _ in RULES}
    seconds = {"silhouette/1": 0.0, "silhouette/5": 0.0, "stability/5": 0.0}
    fit_ari = np.zeros((len(planted_ks), len(seps)))
    for ki, k in enumerate(planted_ks):
        for si, sep in enumerate(seps):
            for _ in range(args.replicates):
                points, truth = planted_clusters(k, rng, separation=sep)
                x = unit_rows(points)
                grid = list(range(2, min(args.k_max, x.shape[0] - 1) + 1))
                seed = int(rng.integers(2**31 - 1))
                sil: dict[int, list[float]] = {}
                with threadpool_limits(limits=1):
                    for n_init in (1, 5):
                        start = time.perf_counter()
                        labels = silhouettes(x, grid, seed, n_init)
                        sil[n_init] = [float(silhouette_score(x, lab)) for lab in labels]
                        seconds[f"silhouette/{n_init}"] += time.perf_counter() - start
                        if n_init == 5:
                            fit_ari[ki, si] += adjusted_rand_score(truth, labels[grid.index(k)])
                    start = time.perf_counter()
                    stab = stability_scores(x, grid, rng=np.random.default_rng(seed), n_init=5)
                    seconds["stability/5"] += time.perf_counter() - start
                for label, rule, n_init in RULES:
                    chosen = choose_k(grid, sil[n_init], rule, stab)  # type: ignore[arg-type]
                    hits[label][ki, si] += chosen == k
    n = args.replicates
    print(f"share of structures whose planted k is recovered ({n} per k and separation)")
    print("rule/n_init  " + "".join(f"{label:>12}" for label, _, _ in RULES))
    for ki, k in enumerate(planted_ks):
        row = "".join(f"{hits[lab][ki].sum() / (n * len(seps)):>12.2f}" for lab, _, _ in RULES)
        print(f"k = {k:<9}{row}")
    for si, sep in enumerate(seps):
        row = "".join(
            f"{hits[lab][:, si].sum() / (n * len(planted_ks)):>12.2f}" for lab, _, _ in RULES
        )
        ari = fit_ari[:, si].sum() / (n * len(planted_ks))
        print(f"sep {sep:<9g}{row}   (ARI of the 5-run fit at the planted k: {ari:.2f})")
    total = n * len(planted_ks) * len(seps)
    print("all          " + "".join(f"{hits[lab].sum() / total:>12.2f}" for lab, _, _ in RULES))
    timing = ", ".join(f"{name} {value:.1f} s" for name, value in seconds.items())
    print(f"{total} structures; curves: {timing}")


if __name__ == "__main__":
    main()
