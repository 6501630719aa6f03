"""Benchmark: the analysis of a synthetic run of 100,000 generations over 63 occupations.

Run ``python bench/bench_analysis.py`` (options: ``--generations``, ``--subjects``,
``--bootstrap``, ``--simulations``, ``--permutations``, ``--min-samples``). The synthetic
samples table (with planted words) is analysed in memory by ``analyze_samples``: every step of the
analysis after reading a store. ``bench/bench_scaling.py`` times ``gasp analyze`` on run
stores of 10k to 1M generations, reading included. Prints the seconds of each step and
the peak resident
memory; the target is under 2 minutes and under 4 GiB.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from gasp.embeddings import load_embeddings
from gasp.studies.more_of_the_same.analysis import (
    AnalysisConfig,
    AuditResults,
    analyze_samples,
)
from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples

PLANTED = {
    "F": ["yoga", "empathy", "advocate", "diversity", "inspire"],
    "M": ["basketball", "gaming", "startup", "engine", "technical"],
}


def _peak_rss_gib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main(argv: list[str] | None = None) -> int:
    """Generate the synthetic run, analyse it and print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generations", type=int, default=100_000)
    parser.add_argument("--subjects", type=int, default=63)
    parser.add_argument("--templates", type=int, default=2)
    parser.add_argument("--bootstrap", type=int, default=AnalysisConfig().n_bootstrap)
    parser.add_argument("--permutations", type=int, default=AnalysisConfig().n_permutations)
    parser.add_argument("--simulations", type=int, default=AnalysisConfig().n_simulations)
    parser.add_argument("--min-samples", type=int, default=AnalysisConfig().min_samples)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    per_cell = args.generations / (args.subjects * args.templates)
    n_named = max(1, round(per_cell * 0.125))
    n_unspecified = max(1, round(per_cell - 3 * n_named))
    start = time.perf_counter()
    samples = synthetic_samples(
        args.subjects,
        templates=[f"template{i}" for i in range(args.templates)],
        n_unspecified=n_unspecified,
        n_named=n_named,
        planted=PLANTED,
        planted_rate=0.2,
        seed=args.seed,
    )
    synth_s = time.perf_counter() - start
    config = AnalysisConfig(
        n_bootstrap=args.bootstrap,
        n_simulations=args.simulations,
        n_permutations=args.permutations,
        min_samples=args.min_samples,
        seed=args.seed,
    )
    start = time.perf_counter()
    embeddings = load_embeddings("glove")
    embeddings.lookup(["the"])  # GloVe loads lazily: load it outside the analysis
    emb_s = time.perf_counter() - start
    start, cpu_start = time.perf_counter(), time.process_time()
    results: AuditResults = analyze_samples(samples, None, config, embeddings=embeddings)
    total_s = time.perf_counter() - start
    cpu_s = time.process_time() - cpu_start
    print(
        f"generations: {len(samples):,} over {args.subjects} subjects x {args.templates} templates"
    )
    print(
        f"bootstrap resamples: {args.bootstrap}, simulations: {args.simulations}, "
        f"permutations: {args.permutations}"
    )
    print(f"synthetic run: {synth_s:8.2f} s (not part of the analysis)")
    print(f"load embeddings: {emb_s:8.2f} s")
    for step, seconds in results.meta["timings"].items():
        print(f"  {step:<16} {seconds:8.2f} s")
    print(f"analysis total:  {total_s:8.2f} s ({cpu_s:.2f} s of CPU)")
    print(f"peak RSS:        {_peak_rss_gib():8.2f} GiB")
    analysed = results.meta["n_analysed_subjects"]
    test = results["srb_test"]
    print(f"subjects analysed: {analysed}")
    print(test[["variant", "test", "statistic", "p_value", "n_subjects_F"]].to_string(index=False))
    ok = total_s + emb_s < 120 and _peak_rss_gib() < 4
    print("within budget (2 min, 4 GiB):", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
