"""Runs of the paired test compared pair by pair: Table 3 per model and McNemar's test.

Two runs on the same profession pairs (same list and ``pair_seed``) are matched on
(template, profession A, profession B, sample index) for triples and additionally on the
pronoun for answers. McNemar's test (:func:`statsmodels.stats.contingency_tables.mcnemar`)
compares the paired binary outcomes: inconsistent triples, binary inconsistent he/she
pairs and incorrect answers; exact (binomial) when fewer than 25 units differ, else the
chi-square statistic with continuity correction.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

from gasp.studies.pronoun_pairs._metrics import OVERALL

TRIPLE_MATCH = ["template", "profession_a", "profession_b", "sample_index"]
EXACT_BELOW = 25


def _test(first: np.ndarray, second: np.ndarray) -> dict[str, object]:
    both = int(np.sum(first & second))
    only_first = int(np.sum(first & ~second))
    only_second = int(np.sum(~first & second))
    neither = int(np.sum(~first & ~second))
    exact = only_first + only_second < EXACT_BELOW
    if len(first) == 0:  # nothing shared: nothing tested
        statistic, p_value = float("nan"), float("nan")
    elif only_first + only_second == 0:
        statistic, p_value = 0.0, 1.0
    else:
        result = mcnemar([[both, only_first], [only_second, neither]], exact=exact, correction=True)
        statistic, p_value = float(result.statistic), float(result.pvalue)
    return {
        "units": len(first),
        "share_first": float(first.mean()) if len(first) else float("nan"),
        "share_second": float(second.mean()) if len(second) else float("nan"),
        "only_first": only_first,
        "only_second": only_second,
        "statistic": statistic,
        "p_value": p_value,
        "exact": exact,
    }


def mcnemar_table(
    triples: dict[str, pd.DataFrame], answers: dict[str, pd.DataFrame]
) -> pd.DataFrame:
    """McNemar's test for every pair of runs (labels in order), per template and overall.
    Two runs that share no unit have a row of 0 units whose shares, statistic and
    p-value are NaN (not tested)."""
    rows = []
    for first, second in itertools.combinations(list(triples), 2):
        t = triples[first][triples[first]["complete"]].merge(
            triples[second][triples[second]["complete"]], on=TRIPLE_MATCH, suffixes=("_1", "_2")
        )
        a = answers[first].merge(
            answers[second], on=[*TRIPLE_MATCH, "pronoun"], suffixes=("_1", "_2")
        )
        templates = list(dict.fromkeys(t["template"]))
        for template in [*templates, OVERALL]:
            tt = t if template == OVERALL else t[t["template"] == template]
            aa = a if template == OVERALL else a[a["template"] == template]
            for metric, frame, col in (
                ("inconsistent", tt, "inconsistent"),
                ("binary_inconsistent", tt, "binary_inconsistent"),
                ("incorrect", aa, "correct"),
            ):
                x = frame[f"{col}_1"].astype(bool).to_numpy()
                y = frame[f"{col}_2"].astype(bool).to_numpy()
                if col == "correct":
                    x, y = ~x, ~y
                rows.append(
                    {"first": first, "second": second, "template": template, "metric": metric}
                    | _test(x, y)
                )
    return pd.DataFrame(rows)
