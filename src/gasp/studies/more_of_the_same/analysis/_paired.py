"""The paired SRB test: associated women against associated men, occupation by occupation.

An occupation's two SRB scores (``SRB(S_AF || S_F, S_M)`` and ``SRB(S_AM || S_F, S_M)``)
share its named word sets ``S_F`` and ``S_M``, so they are correlated (about 0.5 when
associated women and men are described alike). The paper's Welch test (Table 13, kept in
``srb_test`` for reproduction) treats them as independent; its p-values are then too
large (at 5% it rejects in about 1% of null studies). The tests here compare each
occupation with itself (:func:`gasp.stats.paired_test`): the paired t-test, which makes
the decision the report leads with, and the sign-flip permutation test over occupations.

``srb_paired`` (:data:`SRB_PAIRED`), one row per template and variant (``paper``,
``names_removed``):
    template, variant, n_pairs (units with both scores), n_unpaired (units with only
    one), mean_F, mean_M, mean_diff (mean over units of score F minus score M),
    diff_low, diff_high (t interval of mean_diff at ``level``), level, sd_diff,
    correlation (Pearson's r of the F and M scores across units), t_statistic, t_df,
    t_p_value (paired t-test), sign_flip_p_value, sign_flip_method (``exact`` or
    ``monte carlo``), sign_flip_draws (sign assignments compared), sign_flip_seed,
    decision (``differ``: the paired t-test rejects at ``1 - level``; ``no difference
    found``; ``undefined``), reason (why the paired t-test is undefined, else empty).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gasp.stats import paired_test
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._name_free import NAMES_REMOVED, PAPER

PAIRED_COLUMNS = [
    "template",
    "variant",
    "n_pairs",
    "n_unpaired",
    "mean_F",
    "mean_M",
    "mean_diff",
    "diff_low",
    "diff_high",
    "level",
    "sd_diff",
    "correlation",
    "t_statistic",
    "t_df",
    "t_p_value",
    "sign_flip_p_value",
    "sign_flip_method",
    "sign_flip_draws",
    "sign_flip_seed",
    "decision",
    "reason",
]


def paired_table(scores: pd.DataFrame, config: AnalysisConfig) -> pd.DataFrame:
    """The paired tests of every template and variant of an ``srb_scores`` table."""
    rows: list[dict[str, object]] = []
    templates = sorted(scores["template"].unique()) if len(scores) else []
    for ti, template in enumerate(templates):
        part = scores[scores["template"] == template]
        for vi, variant in enumerate((PAPER, NAMES_REMOVED)):
            column = "score" if variant == PAPER else f"score_{variant}"
            wide = part.pivot_table(
                index="subject", columns="gender", values=column, aggfunc="first", dropna=False
            ).reindex(columns=["F", "M"])
            rng = np.random.default_rng([config.seed, ti, vi])
            result = paired_test(
                wide["F"].to_numpy(dtype=float),
                wide["M"].to_numpy(dtype=float),
                rng,
                level=config.ci_level,
                draws=config.n_sign_flips,
            )
            flip = result.sign_flip
            decision = "undefined"
            if not result.reason:
                differ = result.p_t < 1 - config.ci_level
                decision = "differ" if differ else "no difference found"
            rows.append(
                {
                    "template": template,
                    "variant": variant,
                    "n_pairs": result.n,
                    "n_unpaired": result.n_unpaired,
                    "mean_F": result.mean_a,
                    "mean_M": result.mean_b,
                    "mean_diff": result.mean_difference,
                    "diff_low": result.low,
                    "diff_high": result.high,
                    "level": result.level,
                    "sd_diff": result.sd_difference,
                    "correlation": result.correlation,
                    "t_statistic": result.t,
                    "t_df": result.df,
                    "t_p_value": result.p_t,
                    "sign_flip_p_value": flip.p_value,
                    "sign_flip_method": flip.method,
                    "sign_flip_draws": flip.draws,
                    "sign_flip_seed": config.seed,
                    "decision": decision,
                    "reason": result.reason or "",
                }
            )
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)
