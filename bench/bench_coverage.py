"""Coverage of every nominal 95% interval, old resampling scheme beside the new one.

Synthetic occupations come from a known generating process (:class:`gasp.testing.PlantedWorld`:
planted word rates by group, stereotype strength per occupation drawn from a grid, word
vectors that put women-leaning and men-leaning words apart). For each replicate, ``--occupations``
occupations are drawn; the bench computes, per occupation, the SRB scores of associated
women and men, the size of the women's marked set, a per-text rate and a share, with
their intervals under

* OLD: texts resampled with replacement within each group, percentile interval (what
  every study did); the mean across occupations from the same text-level draws;
* NEW: the scheme :mod:`gasp.stats` assigns: subsamples of each group's texts without
  replacement at two sizes (half of the draws each), the spread extrapolated to the full
  size, for word-set statistics (SRB, set size; an SRB interval is withheld where the
  study withholds it, see :func:`gasp.stats.interval_or_reason`);
  the percentile bootstrap of texts for means of per-text values (rate, share; the same
  draws as OLD, widened by sqrt(n/(n-1)) t/z, a factor 1.005 here); whole occupations
  resampled for the mean across occupations (expanded percentile).

The truth of a per-occupation statistic is its mean over ``--truth`` independent corpora
of the same size (for SRB also at 8 times the size, shown as ``large n``); the truth of
the across-occupation mean averages the occupation types. Under the null (associated
women and men alike) it also counts how often Welch's t-test of SRB(women) against
SRB(men) across occupations rejects at 5% (it uses the scores only: the same for both
schemes) and how often the 95% interval of the mean difference excludes 0.

Coverage by stereotype strength: for each strength in 0, 0.25, 0.5, 0.75 and 1 (one
occupation type at a time, ``--strength-replicates`` corpora) it prints how often the
interval of the SRB score of associated women and of men (``--draws`` subsamples, half
at each of the two sizes the study draws, through :func:`gasp.stats.interval_or_reason`)
holds the true score, how often no interval is given (the score undefined, defined in
fewer than half of the draws of a size, or resting on a one-word set: ``one word`` gives
that share alone, and ``(covers of)`` how often the interval withheld for one word would
have held the truth, where the draws alone would have given one), the mean width and
the spread of the women's score between corpora; beside it the same for the earlier
interval (``PREV``: the half-size draws alone, reflected around the score, with neither
the two sizes nor the one-word rule). The true score is the expected SRB score of the
occupation at that strength and at the study's sample size: its mean over ``--truth``
independent corpora of the same size (corpora whose score is undefined left out).
``--threshold`` raises the z threshold of the marked words (3 leaves few words marked,
as Calibrated Marked Words does on real texts).

Run: ``python bench/bench_coverage.py`` (about 10 minutes of one CPU core;
``--replicates 40`` for a quick look; ``--by-strength-only`` for the last table alone).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from gasp.stats import (
    BOOTSTRAP,
    CLUSTER,
    MIN_SET_WORDS,
    SUBSAMPLE,
    IntervalScheme,
    expansion,
    first_size_draws,
    interval_or_reason,
    mean_interval,
    welch_t_test,
)
from gasp.studies.more_of_the_same.analysis import AnalysisConfig
from gasp.testing import (
    PlantedWorld,
    expected_statistics,
    occupation_statistics,
    srb_set_sizes,
)

STRENGTHS = (0.25, 0.5, 0.75, 1.0)
SRB = ("srb_F", "srb_M")


def _truths(world: PlantedWorld, reps: int, rng: np.random.Generator) -> list[dict[str, float]]:
    out = []
    for s in STRENGTHS:
        truth = expected_statistics(world, world.probabilities(s), reps, rng)
        big = dataclasses.replace(world, n_texts=8 * world.n_texts)
        large = expected_statistics(big, world.probabilities(s), max(4, reps // 20), rng)
        truth.update({f"{k}_large": large[k] for k in SRB})
        out.append(truth)
    return out


def _covers(low: float, high: float, truth: float) -> bool:
    return bool(low <= truth <= high)


def _replicate(
    world: PlantedWorld,
    truths: list[dict[str, float]],
    k: int,
    draws: int,
    rng: np.random.Generator,
) -> dict[str, list[bool]]:
    """Hits of every interval in one replicate of ``k`` occupations."""
    old = IntervalScheme(BOOTSTRAP, draws, 0)
    new = IntervalScheme(SUBSAMPLE, draws, 0, fraction=0.5)
    cluster = IntervalScheme(CLUSTER, 1000, 0, unit="occupations")
    hits: dict[str, list[bool]] = {}
    types = rng.integers(0, len(STRENGTHS), size=k)
    estimates, old_means = [], []
    for t in types:
        counts = world.sample(world.probabilities(STRENGTHS[t]), rng)
        observed, boot = occupation_statistics(world, counts, old, rng)
        _, sub = occupation_statistics(world, counts, new, rng)
        truth = truths[t]
        for key in ("srb", "srb_large", "set_size_F", "rate_F", "share_F"):
            names = SRB if key.startswith("srb") else (key,)
            for name in names:
                target = truth[name + ("_large" if key == "srb_large" else "")]
                lo, hi = old.interval(observed[name], boot[name])
                hits.setdefault(f"old {key}", []).append(_covers(lo, hi, target))
                if name in SRB:  # as the study does: withheld with a note
                    sizes = srb_set_sizes(observed, name)
                    lo, hi, note = interval_or_reason(observed[name], sub[name], new, sizes)
                    if note:
                        continue
                elif name == "set_size_F":  # the other word-set statistic
                    lo, hi = new.interval(observed[name], sub[name])
                else:  # as mean_interval does: percentile, expanded for n texts
                    lo, hi = old.interval(observed[name], boot[name])
                    f, est = expansion(world.n_texts), observed[name]
                    lo, hi = est - f * (est - lo), est + f * (hi - est)
                hits.setdefault(f"new {key}", []).append(_covers(lo, hi, target))
        estimates.append(observed["srb_F"])
        old_means.append(boot["srb_F"])
    mean_truth = float(np.mean([truths[t]["srb_F"] for t in range(len(STRENGTHS))]))
    est = float(np.nanmean(estimates))
    stacked = np.vstack(old_means)
    lo, hi = old.interval(est, np.nanmean(stacked, axis=0))
    hits["old mean"] = [_covers(lo, hi, mean_truth)]
    _, lo, hi = mean_interval(estimates, cluster, rng)
    hits["new mean"] = [_covers(lo, hi, mean_truth)]
    return hits


def _null_replicate(
    world: PlantedWorld, k: int, draws: int, rng: np.random.Generator
) -> dict[str, bool]:
    """Rejections under the null: associated women and men described alike."""
    old = IntervalScheme(BOOTSTRAP, draws, 0)
    cluster = IntervalScheme(CLUSTER, 1000, 0, unit="occupations")
    f, m, diff_draws = [], [], []
    for _ in range(k):
        probs = world.probabilities(0.5, associated_men=0.5)
        probs[1] = probs[0]  # associated men's texts drawn like associated women's
        observed, boot = occupation_statistics(world, world.sample(probs, rng), old, rng)
        f.append(observed["srb_F"])
        m.append(observed["srb_M"])
        diff_draws.append(boot["srb_F"] - boot["srb_M"])
    welch = welch_t_test(f, m)
    diff = np.asarray(f) - np.asarray(m)
    lo, hi = old.interval(float(np.nanmean(diff)), np.nanmean(np.vstack(diff_draws), axis=0))
    _, c_lo, c_hi = mean_interval(diff, cluster, rng)
    return {
        "welch": bool(welch.p_value < 0.05),
        "old": not _covers(lo, hi, 0.0),
        "new": not _covers(c_lo, c_hi, 0.0),
    }


BY_STRENGTH = (0.0, 0.25, 0.5, 0.75, 1.0)


def _previous_interval(estimate: float, draws: np.ndarray) -> tuple[float, float] | None:
    """The interval of earlier versions, written out here: half-size subsamples only,
    ``[est - (q_hi - c), est - (q_lo - c)]`` with ``c`` the draws' mean (the factor
    ``sqrt(b/(1-b))`` is 1 at ``b = 1/2``); None where it was withheld (the estimate
    undefined, or fewer than half of the draws defined)."""
    finite = draws[np.isfinite(draws)]
    if not np.isfinite(estimate) or finite.size < 0.5 * draws.size or finite.size == 0:
        return None
    q_low, q_high = np.quantile(finite, [0.025, 0.975])
    c = finite.mean()
    return estimate - (q_high - c), estimate - (q_low - c)


def by_strength(
    world: PlantedWorld, reps: int, truth_reps: int, draws: int, rng: np.random.Generator
) -> None:
    """Print the coverage of the per-occupation SRB interval at each strength, for the
    interval of :func:`gasp.stats.interval_or_reason` (``draws`` subsamples, half at each
    of the two sizes) and for the earlier half-size interval (the first half of those
    draws, which keep half the texts)."""
    scheme = IntervalScheme(SUBSAMPLE, draws, 0, fraction=0.5)
    half = first_size_draws(draws)
    print(
        f"# by strength: {reps} corpora per strength, {draws} subsamples ({half} at the first "
        f"size), truth = mean SRB over {truth_reps} corpora of the same size; SRB of "
        "associated women and men pooled; PREV = the earlier half-size interval"
    )
    print(
        f"{'strength':>8} {'truth F':>8} {'truth M':>8} {'covers':>7} {'no interval':>12} "
        f"{'one word':>9} {'(covers':>8} {'of)':>5} {'width':>7} {'intervals':>10} "
        f"{'PREV covers':>12} {'no interval':>12} {'width':>7} {'sd SRB F':>9}"
    )
    for strength in BY_STRENGTH:
        probs = world.probabilities(strength)
        truth = expected_statistics(world, probs, truth_reps, rng)
        hits: dict[str, list[bool]] = {"new": [], "prev": [], "one": []}
        widths: dict[str, list[float]] = {"new": [], "prev": []}
        scores: dict[str, list[float]] = {"srb_F": [], "srb_M": []}
        one_word = 0
        for _ in range(reps):
            observed, sub = occupation_statistics(world, world.sample(probs, rng), scheme, rng)
            for key in SRB:
                scores[key].append(observed[key])
                sizes = srb_set_sizes(observed, key)
                low, high, note = interval_or_reason(observed[key], sub[key], scheme, sizes)
                if not note and np.isfinite(low):
                    hits["new"].append(low <= truth[key] <= high)
                    widths["new"].append(high - low)
                elif np.isfinite(observed[key]) and min(sizes.values()) < MIN_SET_WORDS:
                    one_word += 1
                    low, high, rest = interval_or_reason(observed[key], sub[key], scheme)
                    if not rest:  # what the withheld interval would have covered
                        hits["one"].append(low <= truth[key] <= high)
                prev = _previous_interval(observed[key], sub[key][:half])
                if prev is not None:
                    hits["prev"].append(prev[0] <= truth[key] <= prev[1])
                    widths["prev"].append(prev[1] - prev[0])
        cells = []
        for name in ("new", "prev"):
            given = len(hits[name])
            cells.append(
                (
                    float(np.mean(hits[name])) if given else float("nan"),
                    1.0 - given / (2 * reps),
                    float(np.mean(widths[name])) if given else float("nan"),
                    given,
                )
            )
        (c, miss, w, n), (pc, pmiss, pw, _) = cells
        one_covers = float(np.mean(hits["one"])) if hits["one"] else float("nan")
        print(
            f"{strength:>8.2f} {truth['srb_F']:>8.3f} {truth['srb_M']:>8.3f} {c:>7.3f} "
            f"{miss:>12.3f} {one_word / (2 * reps):>9.3f} {one_covers:>8.3f} {len(hits['one']):>5} "
            f"{w:>7.3f} {n:>10} {pc:>12.3f} {pmiss:>12.3f} {pw:>7.3f} "
            f"{np.nanstd(scores['srb_F']):>9.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--occupations", type=int, default=10)
    parser.add_argument(
        "--draws",
        type=int,
        default=AnalysisConfig().n_bootstrap,
        help="draws per interval (subsamples: half at each size); the study's default",
    )
    parser.add_argument("--truth", type=int, default=300)
    parser.add_argument("--null-replicates", type=int, default=200)
    parser.add_argument("--texts", type=int, default=100, help="texts per group")
    parser.add_argument("--words", type=int, default=60, help="tokens per text")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strength-replicates", type=int, default=200)
    parser.add_argument("--threshold", type=float, default=1.96, help="z threshold")
    parser.add_argument("--by-strength-only", action="store_true")
    args = parser.parse_args()
    world = PlantedWorld(n_texts=args.texts, words_per_text=args.words, threshold=args.threshold)
    rng = np.random.default_rng(args.seed)
    start = time.process_time()
    if args.by_strength_only:
        by_strength(world, args.strength_replicates, args.truth, args.draws, rng)
        print(f"# CPU {time.process_time() - start:.0f} s")
        return
    truths = _truths(world, args.truth, rng)
    hits: dict[str, list[bool]] = {}
    for _ in range(args.replicates):
        for key, values in _replicate(world, truths, args.occupations, args.draws, rng).items():
            hits.setdefault(key, []).extend(values)
    null = [
        _null_replicate(world, args.occupations, args.draws, rng)
        for _ in range(args.null_replicates)
    ]
    cpu = time.process_time() - start
    print(
        f"# {args.replicates} replicates x {args.occupations} occupations, {args.texts} texts "
        f"per group x {args.words} tokens, {args.draws} draws; target coverage 0.90-0.98"
    )
    rows = [
        ("srb", "SRB per occupation (truth: mean at this n)"),
        ("srb_large", "SRB per occupation (truth: mean at 8 n)"),
        ("set_size_F", "marked-set size per occupation (mean at this n)"),
        ("mean", "mean SRB across occupations"),
        ("rate_F", "per-text rate (mean of per-text values)"),
        ("share_F", "share of texts containing a word"),
    ]
    print(f"{'statistic':<50} {'OLD':>7} {'NEW':>7} {'intervals':>10}")
    for key, label in rows:
        o, n = hits[f"old {key}"], hits[f"new {key}"]
        print(f"{label:<50} {np.mean(o):>7.3f} {np.mean(n):>7.3f} {len(n):>10}")
    print(f"# null: {len(null)} replicates of {args.occupations} occupations")
    welch = np.mean([r["welch"] for r in null])
    print(f"{'Welch t-test false-positive rate (5%)':<50} {welch:>7.3f} {welch:>7.3f}")
    print(
        f"{'95% interval of mean F-M excludes 0':<50} "
        f"{np.mean([r['old'] for r in null]):>7.3f} {np.mean([r['new'] for r in null]):>7.3f}"
    )
    by_strength(world, args.strength_replicates, args.truth, args.draws, rng)
    print(f"# CPU {cpu:.0f} s before the table by strength")


if __name__ == "__main__":
    main()
