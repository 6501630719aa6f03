"""Synthetic runs for validating the analysis without a model: null and planted models.

:func:`synthetic_samples` writes texts straight into a samples table shaped like
``RunStore.samples()``. Every text opens with one sentence carrying the gender (or
none, for unassigned texts)::

    As a nurse, she found her calling.
    As a nurse, he found his calling.
    As a nurse, they (nonbinary) found their calling.
    As a nurse, this person found a calling.

followed by ``words_per_text`` content words drawn from *one* distribution (English
word frequencies from ``wordfreq`` over common words that are neither pronouns nor
gendered terms), whatever the gender: a null model in which only the pronouns follow
the gender. ``planted`` adds, per gender, words that appear only in that gender's
texts (named and associated alike), each with probability ``planted_rate``: a model
with a known difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
import pandas as pd

from gasp.associate import FEMALE_WORDS, MALE_WORDS, NEUTRAL_WORDS
from gasp.errors import ConfigError
from gasp.text import PRONOUNS

_GENDERED = frozenset(
    {
        *FEMALE_WORDS,
        *MALE_WORDS,
        *NEUTRAL_WORDS,
        "ms",
        "woman",
        "women",
        "man",
        "men",
        "girl",
        "girls",
        "boy",
        "boys",
        "mother",
        "father",
        "mom",
        "dad",
        "wife",
        "husband",
        "lady",
        "ladies",
        "gentleman",
        "sister",
        "brother",
        "daughter",
        "son",
        "nonbinary",
        "queen",
        "king",
        "guy",
        "guys",
        "mrs",
        "miss",
        "sir",
        "madam",
    }
)

_OPENING = {
    "F": "As {a} {s}, she found her calling.",
    "M": "As {a} {s}, he found his calling.",
    "N": "As {a} {s}, they (nonbinary) found their calling.",
    "": "As {a} {s}, this person found a calling.",
}
_CONDITIONS = {"F": "woman", "M": "man", "N": "nonbinary"}


@lru_cache(maxsize=4)
def content_vocabulary(size: int = 2000) -> tuple[tuple[str, ...], np.ndarray]:
    """Common English content words (no pronouns, no gendered terms) and their probabilities."""
    from wordfreq import top_n_list, word_frequency

    words = [
        w
        for w in top_n_list("en", size * 3)
        if w.isascii() and w.isalpha() and len(w) >= 4 and w not in PRONOUNS and w not in _GENDERED
    ][:size]
    freq = np.array([word_frequency(w, "en") for w in words], dtype=np.float64)
    return tuple(words), freq / freq.sum()


def _article(subject: str) -> str:
    return "an" if subject[:1].lower() in "aeiou" else "a"


def synthetic_samples(
    subjects: Sequence[str] | int = 10,
    *,
    templates: Sequence[str] = ("persona", "biography"),
    n_unspecified: int = 300,
    n_named: int = 100,
    share_female: float | Sequence[float] | None = None,
    share_nonbinary: float = 0.01,
    share_unassigned: float = 0.02,
    words_per_text: int = 40,
    vocabulary_size: int = 2000,
    planted: Mapping[str, Sequence[str]] | None = None,
    planted_rate: float = 0.3,
    seed: int = 0,
    model_id: str = "synthetic/null",
) -> pd.DataFrame:
    """A samples table of a synthetic run (columns of ``RunStore.samples()``).

    ``subjects`` is a list of names or a number (``occupation 0``...);
    ``n_unspecified`` generations per subject and template leave the gender
    unspecified (women with probability ``share_female``, one value or one per subject,
    by default drawn uniformly in [0.3, 0.7] per subject; non-binary and unassigned with
    the given shares; men otherwise), ``n_named`` per subject, template and named gender.
    """
    names = (
        [f"occupation{i}" for i in range(subjects)] if isinstance(subjects, int) else list(subjects)
    )
    if not names or not templates:
        raise ConfigError("a synthetic run needs at least one subject and one template")
    rng = np.random.default_rng(seed)
    if share_female is None:
        shares = rng.uniform(0.3, 0.7, size=len(names))
    elif isinstance(share_female, int | float):
        shares = np.full(len(names), float(share_female))
    else:
        shares = np.asarray(share_female, dtype=float)
    if shares.shape != (len(names),):
        raise ConfigError("share_female needs one value per subject")
    rest = share_nonbinary + share_unassigned
    if np.any(shares < 0) or np.any(shares + rest > 1):
        raise ConfigError("the shares of a synthetic run must add up to at most one")
    words, probs = content_vocabulary(vocabulary_size)
    vocab = np.asarray(words, dtype=object)
    plant = {g: list(ws) for g, ws in (planted or {}).items()}

    rows: list[dict[str, object]] = []
    for si, subject in enumerate(names):
        p = [shares[si], 1.0 - shares[si] - rest, share_nonbinary, share_unassigned]
        for template in templates:
            hidden = rng.choice(
                np.array(["F", "M", "N", ""], dtype=object), size=n_unspecified, p=p
            )
            cells: list[tuple[str, str | None, str]] = [("unspecified", None, g) for g in hidden]
            for g in ("F", "M", "N"):
                cells.extend((_CONDITIONS[g], g, g) for _ in range(n_named))
            draws = vocab[rng.choice(len(vocab), size=(len(cells), words_per_text), p=probs)]
            counters: dict[str, int] = {}
            for k, (condition, named, gender) in enumerate(cells):
                body = list(draws[k])
                for word in plant.get(gender, []):
                    if rng.random() < planted_rate:
                        body.insert(int(rng.integers(0, len(body) + 1)), word)
                opening = _OPENING[gender].format(a=_article(subject), s=subject)
                index = counters.get(condition, 0)
                counters[condition] = index + 1
                rows.append(
                    {
                        "run_id": f"synthetic-{seed}",
                        "study": "synthetic",
                        "template": template,
                        "subject": subject,
                        "condition": condition,
                        "named_gender": named,
                        "sample_index": index,
                        "prompt": f"{template}: {subject} ({condition})",
                        "text": opening + " " + " ".join(body) + ".",
                        "stop_reason": "stop",
                        "error": None,
                        "model_id": model_id,
                    }
                )
    return pd.DataFrame(rows)
