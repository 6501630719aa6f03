"""A fixed synthetic corpus and the marked words every selection path finds on it.

:func:`selections` runs Marked Words, Calibrated Marked Words, the resampling path
and the Probe's selection under several significance rules; the golden file
``tests/golden/significant_words.json`` holds what they returned before the rule
moved into :class:`gasp.stats.SignificanceRule` (regenerate with
``python tests/_significance_corpus.py`` only when a change of results is intended).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

GOLDEN = Path(__file__).resolve().parent / "golden" / "significant_words.json"

_COMMON = ["the", "of", "and", "a", "to", "in", "is", "was", "for", "with", "on", "as"]
_CONTENT = [
    "kitchen", "garden", "football", "engine", "nurse", "teacher", "caring", "strong",
    "gentle", "bold", "quiet", "loud", "river", "mountain", "city", "village", "doctor",
    "lawyer", "music", "science", "history", "family", "career", "friend", "leader",
    "dream", "travel", "money", "health", "sport", "art", "poetry", "coffee", "market",
    "design", "beauty", "power", "honest", "smart", "kind",
]  # fmt: skip
_F_BOOST = ["caring", "gentle", "nurse", "beauty", "family", "poetry"]
_M_BOOST = ["football", "engine", "strong", "bold", "power", "sport"]

#: The rules of the regression: (name, threshold, fdr, min_count).
RULES: list[tuple[str, float, float | None, int]] = [
    ("z1.96", 1.96, None, 0),
    ("z1.0_min3", 1.0, None, 3),
    ("fdr0.05", 1.96, 0.05, 0),
    ("fdr0.3_min2", 1.96, 0.3, 2),
]


def generations(seed: int = 7) -> pd.DataFrame:
    """Texts of groups F and M in three subjects, with planted group words."""
    rng = np.random.default_rng(seed)
    words = _COMMON + _CONTENT
    base = 1.0 / np.arange(1, len(words) + 1)
    rows = []
    for s in range(3):
        for group, boost in (("F", _F_BOOST), ("M", _M_BOOST)):
            p = base.copy()
            for w in boost:
                p[words.index(w)] *= 4.0 + s
            p /= p.sum()
            for _ in range(25 + 5 * s):
                n = int(rng.integers(15, 40))
                text = " ".join(rng.choice(words, size=n, p=p))
                rows.append((f"subject{s}", group, text))
    return pd.DataFrame(rows, columns=["subject", "gender", "text"])


def selections() -> dict[str, Any]:
    """The marked words of every path under every rule of :data:`RULES`."""
    from gasp.probe._significant import GenerationColumns, significant_words
    from gasp.stats import calibrated_marked_words, marked_words
    from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
    from gasp.studies.more_of_the_same.analysis._resampled import Pair, group_totals, marked_sets
    from gasp.text import count_words

    table = generations()
    counts = count_words(table["text"].tolist())
    female = (table["gender"] == "F").to_numpy()
    male = ~female
    out: dict[str, Any] = {}
    for name, threshold, fdr, min_count in RULES:
        options = {"threshold": threshold, "fdr_alpha": fdr, "min_count": min_count}
        for target, other, label in ((female, male, "F"), (male, female, "M")):
            plain = marked_words(counts, target, {"other": other}, **options)
            cal = calibrated_marked_words(counts, target, {"other": other}, **options)
            out[f"marked/{name}/{label}"] = plain["word"].astype(str).tolist()
            out[f"calibrated/{name}/{label}"] = cal["word"].astype(str).tolist()
        weights = np.stack([female, male, np.ones_like(female)]).astype(np.float64)
        totals = group_totals(counts, weights)
        pairs = [Pair(0, 0, 1, 2), Pair(1, 1, 0, 2)]
        for calibrated in (True, False):
            config = AnalysisConfig(calibrated=calibrated, **options)  # type: ignore[arg-type]
            sets = marked_sets(counts.vocabulary, totals, pairs, 2, config)
            key = "calibrated" if calibrated else "marked"
            out[f"resampled/{key}/{name}"] = [sorted(map(str, s)) for s in sets]
    columns = GenerationColumns(text="text", group="gender", subject_columns=("subject",))
    for method in ("calibrated", "marked"):
        for threshold in (1.96, 1.0):
            found = significant_words(
                table,
                group_a="F",
                group_b="M",
                columns=columns,
                method=method,  # type: ignore[arg-type]
                threshold=threshold,
            ).words
            out[f"probe/{method}/{threshold}"] = [
                f"{r.subject}/{r.group}/{r.word}" for r in found.itertuples(index=False)
            ]
    return out


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(selections(), indent=1, sort_keys=True) + "\n")
