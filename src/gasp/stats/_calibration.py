"""Calibration of Calibrated Marked Words (seed ``000`` Appendix A.2).

The paper chose ``C_English`` and ``C_topic`` by binary search, each with its prior
alone, "aimed at maximizing the number of statistically significant words while
excluding common words", then swept the mixing weight ``alpha`` from 0 to 1 in steps
of 0.05 and inspected the words. :func:`calibrate` does exactly this:

1. ``C_English`` (``alpha = 0``, English prior alone) and then ``C_topic``
   (``alpha = 1``, topic prior alone): the largest ``C`` in ``c_range`` for which
   the marked words of every comparison contain no *common word*, by bisection of
   ``log C`` until the bracket is narrower than a factor ``1 + rtol``. A larger
   ``C`` is a weaker prior and gives more marked words, so the largest admissible
   ``C`` maximizes the marked words. The search records every step.
2. The ``alpha`` sweep (0, 0.05, ..., 1) with ``C = alpha C_topic + (1 - alpha)
   C_English``, reporting per ``alpha`` the number of marked words (summed over the
   comparisons), the number of distinct marked words, and the common words among them.

Common words
    the ``n_common`` (default 100) most frequent words of wordfreq's English list,
    normalized by the package tokenizer, minus :data:`IDENTITY_WORDS` (third-person
    pronouns: they differ between genders by construction and are expected marked
    words, seed ``000`` Table 15) and minus any ``exclude`` words (for example the
    group labels of a study).

Defaults chosen with this procedure (``gasp calibrate``) on the GPT-3.5 personas
of Marked Personas (seed ``004``; 1,350 texts, 15 race x gender groups, each against
``race = a White`` and ``gender = M``), wordfreq prior scaled to the Brown corpus
size, ``n_common = 100``, threshold 1.96:

* ``C_English``: the search ends at 0.0698 (alpha = 0: 481 marked words over the
  15 groups, no common word; from 0.071 on "my" is marked, at C = 1 twenty-one
  common words); the default is 0.069.
* ``C_topic``: the search ends at 0.111 (alpha = 1: 114 marked words, no common
  word; at 0.115 "dont" is marked, at C = 1 twenty-eight common words); the
  default is 0.11.
* ``alpha`` = 0.15, the paper's value: with these constants every alpha of the sweep
  marks no common word, and the marked words fall from 481 (alpha 0) over 454
  (alpha 0.15) and 349 (alpha 0.5) to 114 (alpha 1); 0.15 keeps almost every
  English-prior word while mixing in the topic. With the defaults the 15 groups get
  451 marked words (plain Marked Words: 55), none of them a common word.

The ``gasp calibrate`` command runs this on any table of generations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.stats._calibrated_batch import Comparison, _Batch
from gasp.stats._calibrated_terms import CalibratedConfig
from gasp.stats._english_prior import common_english_words
from gasp.stats._rule import DEFAULT_THRESHOLD, SignificanceRule, resolve_rule
from gasp.text import THIRD_PERSON_PRONOUNS, DocTermCounts

#: Pronouns never counted as common words (they mark gender by construction): the
#: third-person pronouns of every gender, :data:`gasp.text.THIRD_PERSON_PRONOUNS`.
IDENTITY_WORDS: frozenset[str] = THIRD_PERSON_PRONOUNS


@dataclass(frozen=True)
class CalibrationReport:
    """The outcome of :func:`calibrate`.

    ``c_english``/``c_topic``: the calibrated constants; ``english_feasible`` /
    ``topic_feasible``: False when even the smallest ``C`` of the range marks common
    words (the constant is then that smallest value); ``english_search`` and
    ``topic_search``: one row per evaluated ``C`` (``c``, ``n_marked``, ``n_common``,
    ``common_words``); ``alpha_sweep``: one row per ``alpha`` (``alpha``, ``c``,
    ``n_marked``, ``n_distinct``, ``n_common``, ``common_words``); ``common_words``:
    the common-word set used; ``config``: the base config with the calibrated
    constants (its ``alpha`` unchanged).
    """

    c_english: float
    c_topic: float
    english_feasible: bool
    topic_feasible: bool
    english_search: pd.DataFrame
    topic_search: pd.DataFrame
    alpha_sweep: pd.DataFrame
    common_words: frozenset[str]
    config: CalibratedConfig

    def admissible_alphas(self) -> list[float]:
        """The values of ``alpha`` whose marked words contain no common word."""
        sweep = self.alpha_sweep
        return [float(a) for a in sweep.loc[sweep["n_common"] == 0, "alpha"]]


class _Evaluator:
    def __init__(
        self,
        batch: _Batch,
        common: frozenset[str],
        rule: SignificanceRule,
    ) -> None:
        self.batch = batch
        vocab = batch.counts.vocabulary.astype(str)
        self.common_mask = np.isin(vocab, np.asarray(sorted(common), dtype=str))
        self.vocab = batch.counts.vocabulary
        self.rule = rule

    def __call__(self, alpha: float, c: float) -> dict[str, object]:
        z, _, _, _ = self.batch.terms(alpha, c)
        sig = self.batch.significant(z, self.rule)
        distinct = sig.any(axis=0)
        common = [str(w) for w in self.vocab[distinct & self.common_mask]]
        return {
            "c": c,
            "n_marked": int(sig.sum()),
            "n_distinct": int(distinct.sum()),
            "n_common": len(common),
            "common_words": ", ".join(common),
        }


def _search(
    evaluate: _Evaluator, alpha: float, c_range: tuple[float, float], rtol: float
) -> tuple[float, bool, pd.DataFrame]:
    lo, hi = c_range
    steps = [evaluate(alpha, hi)]
    if steps[-1]["n_common"] == 0:
        return hi, True, pd.DataFrame(steps)
    steps.append(evaluate(alpha, lo))
    if steps[-1]["n_common"] != 0:
        return lo, False, pd.DataFrame(steps)
    while hi / lo > 1.0 + rtol:
        mid = math.sqrt(lo * hi)
        steps.append(evaluate(alpha, mid))
        if steps[-1]["n_common"] == 0:
            lo = mid
        else:
            hi = mid
    return lo, True, pd.DataFrame(steps)


def calibrate(
    counts: DocTermCounts,
    comparisons: Sequence[Comparison],
    *,
    config: CalibratedConfig | None = None,
    n_common: int = 100,
    exclude: Iterable[str] = (),
    c_range: tuple[float, float] = (1e-4, 1e4),
    rtol: float = 0.02,
    alpha_step: float = 0.05,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
    rule: SignificanceRule | None = None,
) -> CalibrationReport:
    """Calibrate ``C_English`` and ``C_topic`` by binary search, then sweep ``alpha``.

    ``comparisons`` are the comparisons whose marked words must contain no common
    word (for the Marked Personas data: every group against its unmarked groups).
    ``config`` supplies the English prior, the calibration words and the topic-prior
    rule. Words are significant by ``rule`` (a :class:`~gasp.stats.SignificanceRule`)
    or by the rule of ``threshold``, ``fdr_alpha`` and ``min_count``. See the module
    documentation for the definitions.
    """
    sig_rule = resolve_rule(rule, threshold, fdr_alpha, min_count)
    base = config if config is not None else CalibratedConfig()
    lo, hi = c_range
    if not (0 < lo < hi and math.isfinite(hi)):
        raise ConfigError(f"c_range must satisfy 0 < low < high, got {c_range}")
    if not rtol > 0:
        raise ConfigError(f"rtol must be positive, got {rtol}")
    if not 0 < alpha_step <= 1:
        raise ConfigError(f"alpha_step must lie in (0, 1], got {alpha_step}")
    if not comparisons:
        raise ConfigError("calibration needs at least one comparison")
    common = frozenset(common_english_words(n_common)) - IDENTITY_WORDS - set(exclude)
    batch = _Batch(counts, comparisons, base)
    evaluate = _Evaluator(batch, common, sig_rule)
    c_english, english_ok, english_steps = _search(evaluate, 0.0, c_range, rtol)
    c_topic, topic_ok, topic_steps = _search(evaluate, 1.0, c_range, rtol)
    n_steps = round(1.0 / alpha_step)
    alphas = np.round(np.linspace(0.0, 1.0, n_steps + 1), 10)
    rows = []
    for alpha in alphas:
        row = evaluate(float(alpha), float(alpha * c_topic + (1 - alpha) * c_english))
        rows.append({"alpha": float(alpha), **row})
    return CalibrationReport(
        c_english=c_english,
        c_topic=c_topic,
        english_feasible=english_ok,
        topic_feasible=topic_ok,
        english_search=english_steps.drop(columns="n_distinct"),
        topic_search=topic_steps.drop(columns="n_distinct"),
        alpha_sweep=pd.DataFrame(rows),
        common_words=common,
        config=replace(base, c_english=c_english, c_topic=c_topic),
    )
