r"""Stereotype lexicons (Marked Personas, Section 5, Figures 1, 2, 3 and A1).

The Ghavami and Peplau (2013) word lists (``data/stereotype_lexicons.json``, with the
citation) are counted in each text two ways:

* ``tokens`` (the default, word boundaries): whole tokens of :func:`gasp.text.tokenize`
  that are lexicon words, divided by the number of tokens (duplicate lexicon words
  counted once; a hyphenated entry such as ``family-oriented`` matches the token
  ``familyoriented``);
* ``authors``: exactly the authors' formula. The text is lowercased and every character
  that is neither a word character nor whitespace removed (``re.sub(r"[^\w\s]", "", ...)``,
  so hyphenated entries never match); the substring occurrences of every listed word are
  summed (a word listed twice counts twice; ``tall`` also counts in ``taller``) and
  divided by ``len(clean.split(" "))``, the number of pieces between single spaces.

A group's rate is the mean of its texts' rates, in percent. Its standard error follows
the counting: the authors' ``np.std(rates) / sqrt(n)`` (population SD, ddof 0) in
``authors`` mode, the sample SD (ddof 1) over ``sqrt(n)`` in ``tokens`` mode; the table
says which in ``se_sd``.

"resilient" and "resilience" (Figure 3) are counted as whole words by default
(``words``) or, as the authors counted them, as substrings of the lowercased text
(``substrings``: ``resiliently`` counts as ``resilient``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.stats import IntervalScheme, mean_interval
from gasp.text import tokenize

COUNTINGS = ("authors", "tokens")
#: The counting of the lexicon rates unless asked otherwise: word boundaries.
DEFAULT_COUNTING = "tokens"
#: Standard error of a group's rate per counting: the SD's ddof and its name.
SE_DDOF = {"authors": 0, "tokens": 1}
SE_SD = {0: "population", 1: "sample"}
RESILIENCE_WORDS = ("resilient", "resilience")
RESILIENCE_COUNTINGS = ("words", "substrings")
_AUTHORS_PUNCTUATION = re.compile(r"[^\w\s]")


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


def authors_clean(text: str) -> str:
    """The authors' cleaned text: lowercased, every non-word non-space character removed."""
    return _AUTHORS_PUNCTUATION.sub("", str(text).lower())


def lexicon_text_rates(
    texts: Sequence[str], lexicons: dict[str, list[str]], counting: str = DEFAULT_COUNTING
) -> dict[str, np.ndarray]:
    """Per lexicon, each text's share of words that are lexicon words (0 to 1; see the
    module for the two countings)."""
    if counting not in COUNTINGS:
        raise ConfigError(
            f"lexicon counting must be one of {', '.join(COUNTINGS)}, got {counting!r}"
        )
    if counting == "authors":
        clean = [authors_clean(t) for t in texts]
        vocab = sorted({w for ws in lexicons.values() for w in ws})
        counts = substring_counts_exact(clean, vocab)
        lengths = np.array([len(c.split(" ")) for c in clean], dtype=float)
        column = {w: j for j, w in enumerate(vocab)}
        # Every listed word counts (duplicates too), as in the authors' loop.
        lexicon_counts = {
            n: counts[:, [column[w] for w in ws]].sum(axis=1) for n, ws in lexicons.items()
        }
        return {n: c / lengths for n, c in lexicon_counts.items()}
    vocab = sorted({w.lower().replace("-", "") for ws in lexicons.values() for w in ws})
    counts = token_counts(texts, vocab)
    lengths = np.array([len(tokenize(str(t))) for t in texts], dtype=float)
    column = {w: j for j, w in enumerate(vocab)}
    safe = np.where(lengths > 0, lengths, 1.0)
    out = {}
    for n, ws in lexicons.items():
        hits = counts[:, sorted({column[w.lower().replace("-", "")] for w in ws})].sum(axis=1)
        out[n] = np.where(lengths > 0, hits / safe, 0.0)
    return out


def substring_counts_exact(texts: Sequence[str], words: Sequence[str]) -> np.ndarray:
    """(texts, words) occurrences of each word, as given, as a substring of each text."""
    return np.array([[t.count(w) for w in words] for t in texts], dtype=np.int64).reshape(
        len(texts), len(words)
    )


def lexicon_rate(text: str, words: Sequence[str], counting: str = DEFAULT_COUNTING) -> float:
    """Share of the text's words that are lexicon words (0 for an empty text)."""
    return float(lexicon_text_rates([text], {"lexicon": list(words)}, counting)["lexicon"][0])


def lexicon_rates(
    texts: Sequence[str],
    groups: Sequence[str],
    lexicons: dict[str, list[str]],
    counting: str = DEFAULT_COUNTING,
    scheme: IntervalScheme | None = None,
) -> pd.DataFrame:
    """Mean and standard error in percent of each lexicon's rate per group of texts:
    columns ``lexicon``, ``group``, ``n``, ``mean_pct``, ``se_pct``, ``se_sd``
    (``population`` or ``sample``: the SD of the standard error, see the module), and
    with ``scheme`` (a bootstrap of texts: the rate is a mean of per-text rates)
    ``low_pct`` and ``high_pct``, its interval."""
    labels = np.asarray(groups, dtype=object)
    per_text = lexicon_text_rates(texts, lexicons, counting)
    ddof = SE_DDOF[counting]
    rng = scheme.rng() if scheme is not None else None
    rows = []
    for name in lexicons:
        rates = per_text[name] * 100
        for group in dict.fromkeys(labels.tolist()):
            r = rates[labels == group]
            se = float(r.std(ddof=ddof) / np.sqrt(len(r))) if len(r) > ddof else float("nan")
            row = {"lexicon": name, "group": group, "n": len(r), "mean_pct": float(r.mean()),
                   "se_pct": se, "se_sd": SE_SD[ddof]}  # fmt: skip
            if scheme is not None:
                _, row["low_pct"], row["high_pct"] = mean_interval(r, scheme, rng, (0.0, 100.0))
            rows.append(row)
    columns = ["lexicon", "group", "n", "mean_pct", "se_pct", "se_sd"]
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


def resilience(
    texts: Sequence[str], groups: Sequence[str], counting: str = "words"
) -> pd.DataFrame:
    """Figure 3: per group, the share of texts with "resilient" or "resilience" and the
    occurrences of each and both; ``counting`` ``words`` (whole tokens) or ``substrings``
    (of the lowercased text, as the authors counted: "resiliently" counts)."""
    if counting not in RESILIENCE_COUNTINGS:
        raise ConfigError(
            f"resilience counting must be one of {', '.join(RESILIENCE_COUNTINGS)}, got "
            f"{counting!r}"
        )
    labels = np.asarray(groups, dtype=object)
    if counting == "words":
        tokens = [tokenize(str(t)) for t in texts]
        per = {w: np.array([tok.count(w) for tok in tokens]) for w in RESILIENCE_WORDS}
    else:
        counts = substring_counts(texts, RESILIENCE_WORDS)
        per = {w: counts[:, j] for j, w in enumerate(RESILIENCE_WORDS)}
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
        row["counting"] = counting
        rows.append(row)
    return pd.DataFrame(rows)
