"""False-positive rate and power of the SRB tests of Table 13: Welch (the paper's) and paired.

Each replicate is one study of ``--occupations`` occupations whose SRB scores of
associated women and men come from :func:`gasp.testing.paired_srb_scores`, a generator
written apart from the tests it checks (its own word totals, log-odds marking and
Chamfer distances). Under the null (``effect`` 0) associated women and men are drawn
alike, so the groups are exchangeable, and the two scores of an occupation correlate
like real paired SRB scores (printed: about 0.5). A planted difference multiplies the
women-leaning words of associated women and the men-leaning words of associated men by
``1 + effect``.

For every effect the bench prints how often each test rejects at ``--alpha``: Welch's
t-test (:func:`gasp.stats.welch_t_test`, the paper's unpaired test), the paired t-test
and the sign-flip permutation test (:func:`gasp.stats.paired_test`; exact over the
``2**occupations`` sign assignments up to 16 occupations), and how often the interval
of the mean F - M difference excludes 0; under the null these are false-positive
rates (target 0.03-0.08 at 0.05), otherwise powers.

Run: ``python bench/bench_srb_paired.py`` (400 replicates of 10 occupations per effect;
about 2 minutes of one CPU core).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gasp.stats import paired_test, welch_t_test
from gasp.testing import PairedSRBWorld, paired_srb_scores

EFFECTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)


def rejections(
    world: PairedSRBWorld,
    effect: float,
    replicates: int,
    occupations: int,
    alpha: float,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Share of replicates each test rejects in, plus the correlation of the scores."""
    f, m = paired_srb_scores(world, replicates * occupations, effect, rng)
    ok = np.isfinite(f) & np.isfinite(m)
    corr = float(np.corrcoef(f[ok], m[ok])[0, 1])
    f, m = f.reshape(replicates, occupations), m.reshape(replicates, occupations)
    hits: dict[str, list[bool]] = {"welch": [], "paired t": [], "sign-flip": [], "interval": []}
    for fi, mi in zip(f, m, strict=True):
        hits["welch"].append(bool(welch_t_test(fi, mi).p_value < alpha))
        paired = paired_test(fi, mi, rng, level=1 - alpha)
        hits["paired t"].append(bool(paired.p_t < alpha))
        hits["sign-flip"].append(bool(paired.sign_flip.p_value < alpha))
        hits["interval"].append(not paired.low <= 0.0 <= paired.high)
    out = {k: float(np.mean(v)) for k, v in hits.items()}
    out["correlation"] = corr
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--occupations", type=int, default=10)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    world = PairedSRBWorld()
    rng = np.random.default_rng(args.seed)
    start = time.process_time()
    print(
        f"# {args.replicates} replicates x {args.occupations} occupations per effect, "
        f"level {args.alpha}; effect 0 is the null (rates are false positives)"
    )
    print(
        f"{'effect':>7} {'corr F,M':>9} {'Welch':>7} {'paired t':>9} {'sign-flip':>10} "
        f"{'CI excl 0':>10}"
    )
    for effect in EFFECTS:
        r = rejections(world, effect, args.replicates, args.occupations, args.alpha, rng)
        print(
            f"{effect:>7.2f} {r['correlation']:>9.2f} {r['welch']:>7.3f} {r['paired t']:>9.3f} "
            f"{r['sign-flip']:>10.3f} {r['interval']:>10.3f}"
        )
    se = np.sqrt(args.alpha * (1 - args.alpha) / args.replicates)
    print(f"# binomial standard error of a rate near {args.alpha}: {se:.3f}")
    print(f"# CPU {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()
