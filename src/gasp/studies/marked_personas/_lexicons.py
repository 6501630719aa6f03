"""Stereotype lexicons (Marked Personas, Section 5, Figures 1, 2, 3 and A1).

The Ghavami and Peplau (2013) word lists (``data/stereotype_lexicons.json``, with the
citation) are counted in each text two ways:

* ``authors``: as the authors' code counts them: the lowercased text's substring
  occurrences of every lexicon word, summed, divided by the number of whitespace
  tokens of the text (so ``tall`` also counts in ``taller``);
* ``tokens``: whole tokens of :func:`gasp.text.tokenize` that are lexicon words,
  divided by the number of tokens (duplicate lexicon words counted once).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources

import numpy as np
import pandas as pd

from gasp.stats import IntervalScheme, mean_interval
from gasp.text import tokenize

COUNTINGS = ("authors", "tokens")
RESILIENCE_WORDS = ("resilient", "resilience")


@cache
def lexicon_data() -> dict[str, dict[str, list[str]]]:
    """The lexicons: gender elicited for (``person``, ``man``, ``woman``) -> group -> words."""
    path = resources.files("gasp.studies.marked_personas") / "data" / "stereotype_lexicons.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))["lexicons"])


def race_lexicons() -> dict[str, list[str]]:
    """The ethnic-group lexicons of Figures 1, 2 and A1 (``person`` lists)."""
    return dict(lexicon_data()["person"])


def substring_counts(texts: Sequence[str], words: Sequence[str]) -> np.ndarray:
    """(texts, words) occurrences of each word as a substring of the lowercased text."""
    lower = [str(t).lower() for t in texts]
    return np.array([[t.count(w.lower()) for w in words] for t in lower], dtype=np.int64).reshape(
        len(lower), len(words)
    )


def token_counts(texts: Sequence[str], words: Sequence[str]) -> np.ndarray:
    """(texts, words) occurrences of each word as a whole token (hyphens dropped)."""
    keys = [w.lower().replace("-", "") for w in words]
    out = np.zeros((len(texts), len(words)), dtype=np.int64)
    for i, text in enumerate(texts):
        tokens = tokenize(str(text))
        counts = {k: 0 for k in keys}
        for tok in tokens:
            if tok in counts:
                counts[tok] += 1
        out[i] = [counts[k] for k in keys]
    return out


def lexicon_rate(text: str, words: Sequence[str], counting: str = "authors") -> float:
    """Share of the text's words that are lexicon words (0 for an empty text)."""
    rates = lexicon_rates([text], ["all"], {"lexicon": list(words)}, counting)
    return float(rates["mean_pct"].iloc[0]) / 100


def lexicon_rates(
    texts: Sequence[str],
    groups: Sequence[str],
    lexicons: dict[str, list[str]],
    counting: str = "authors",
    scheme: IntervalScheme | None = None,
) -> pd.DataFrame:
    """Mean and standard error (ddof 1 / sqrt n) in percent of each lexicon's rate per
    group of texts: columns ``lexicon``, ``group``, ``n``, ``mean_pct``, ``se_pct``, and
    with ``scheme`` (a bootstrap of texts: the rate is a mean of per-text rates)
    ``low_pct`` and ``high_pct``, its interval."""
    labels = np.asarray(groups, dtype=object)
    if counting == "authors":
        # Every listed word counts (duplicates too), as in the authors' loop.
        vocab = sorted({w.lower() for ws in lexicons.values() for w in ws})
        counts = substring_counts(texts, vocab)
        lengths = np.array([len(str(t).split()) for t in texts], dtype=float)
        column = {w: j for j, w in enumerate(vocab)}
        lexicon_counts = {
            n: counts[:, [column[w.lower()] for w in ws]].sum(axis=1) for n, ws in lexicons.items()
        }
    else:
        vocab = sorted({w.lower().replace("-", "") for ws in lexicons.values() for w in ws})
        counts = token_counts(texts, vocab)
        lengths = np.array([len(tokenize(str(t))) for t in texts], dtype=float)
        column = {w: j for j, w in enumerate(vocab)}
        lexicon_counts = {
            n: counts[:, sorted({column[w.lower().replace("-", "")] for w in ws})].sum(axis=1)
            for n, ws in lexicons.items()
        }
    safe = np.where(lengths > 0, lengths, 1.0)
    rng = scheme.rng() if scheme is not None else None
    rows = []
    for name in lexicons:
        rates = np.where(lengths > 0, lexicon_counts[name] / safe, 0.0) * 100
        for group in dict.fromkeys(labels.tolist()):
            r = rates[labels == group]
            se = float(r.std(ddof=1) / np.sqrt(len(r))) if len(r) > 1 else float("nan")
            row = {"lexicon": name, "group": group, "n": len(r), "mean_pct": float(r.mean()),
                   "se_pct": se}  # fmt: skip
            if scheme is not None:
                _, row["low_pct"], row["high_pct"] = mean_interval(r, scheme, rng, (0.0, 100.0))
            rows.append(row)
    columns = ["lexicon", "group", "n", "mean_pct", "se_pct"]
    return pd.DataFrame(rows, columns=columns + (["low_pct", "high_pct"] if scheme else []))


def word_presence(
    texts: Sequence[str], groups: Sequence[str], words: Sequence[str]
) -> pd.DataFrame:
    """Per lexicon word and group: the share of texts containing it (Figure 2's caption)
    and its occurrences per text (what the authors' code plots), substring counting."""
    labels = np.asarray(groups, dtype=object)
    unique = list(dict.fromkeys(w.lower() for w in words))
    counts = substring_counts(texts, unique)
    rows = []
    for j, word in enumerate(unique):
        for group in dict.fromkeys(labels.tolist()):
            c = counts[labels == group, j]
            rows.append(
                {
                    "word": word,
                    "group": group,
                    "n": len(c),
                    "share_containing": float((c > 0).mean()) if len(c) else 0.0,
                    "per_text": float(c.mean()) if len(c) else 0.0,
                    "occurrences": int(c.sum()),
                }
            )
    return pd.DataFrame(
        rows, columns=["word", "group", "n", "share_containing", "per_text", "occurrences"]
    )


def resilience(texts: Sequence[str], groups: Sequence[str]) -> pd.DataFrame:
    """Figure 3: per group, the share of texts with "resilient" or "resilience" (whole
    tokens) and the occurrences of each and both."""
    labels = np.asarray(groups, dtype=object)
    tokens = [tokenize(str(t)) for t in texts]
    per = {w: np.array([tok.count(w) for tok in tokens]) for w in RESILIENCE_WORDS}
    both = np.sum([per[w] for w in RESILIENCE_WORDS], axis=0)
    rows = []
    for group in dict.fromkeys(labels.tolist()):
        sel = labels == group
        row = {
            "group": group,
            "n": int(sel.sum()),
            "share_containing": float((both[sel] > 0).mean()),
        }
        for w in RESILIENCE_WORDS:
            row[w] = int(per[w][sel].sum())
        row["occurrences"] = int(both[sel].sum())
        rows.append(row)
    return pd.DataFrame(rows)
