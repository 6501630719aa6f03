"""The one significance rule, the one method dispatch, and that every path still agrees."""

from __future__ import annotations

import json

import numpy as np
import pytest

from _significance_corpus import GOLDEN, selections
from gasp.errors import ConfigError
from gasp.stats import (
    DEFAULT_THRESHOLD,
    CalibratedConfig,
    Comparison,
    PairScorer,
    SignificanceRule,
    calibrated_marked_words,
    calibrated_marked_words_many,
    calibrated_terms,
    english_prior,
    log_odds_z,
    marked_words,
    marked_words_many,
)
from gasp.text import count_words

# Hand-computed z-scores of one comparison (5 words) and their two-sided p-values:
#   z      3.0      2.5      2.0      1.0      -3.0
#   p      0.0027   0.0124   0.0455   0.3173    0.0027
# BH at 5% over the 5 words: sorted p 0.0027, 0.0027, 0.0124, 0.0455, 0.3173 against
# k/5 * 0.05 = 0.01, 0.02, 0.03, 0.04, 0.05: the largest k with p_(k) <= k/5 * 0.05 is
# 3, so the words with z 3.0, 2.5 and -3.0 are rejected; only positive z is marked.
Z = np.array([3.0, 2.5, 2.0, 1.0, -3.0])
COUNTS = np.array([10, 1, 10, 10, 10])


def test_threshold_rule_on_hand_values() -> None:
    rule = SignificanceRule()
    assert rule.threshold == DEFAULT_THRESHOLD == 1.96
    assert rule.select(Z, COUNTS).tolist() == [True, True, True, False, False]
    assert SignificanceRule(threshold=2.2).select(Z, COUNTS).tolist() == [
        True,
        True,
        False,
        False,
        False,
    ]
    # z equal to the threshold does not pass; NaN never passes
    assert not SignificanceRule(threshold=2.0).select(np.array([2.0]), np.array([5])).any()
    assert not SignificanceRule().select(np.array([np.nan]), np.array([5])).any()


def test_benjamini_hochberg_rule_on_hand_values() -> None:
    rule = SignificanceRule(fdr=0.05)
    assert rule.threshold is None and rule.method == "fdr"
    assert rule.select(Z, COUNTS).tolist() == [True, True, False, False, False]
    # a lower level: p_(k) <= k/5 * 0.01 only for k = 2 (0.0027 <= 0.004)
    assert SignificanceRule(fdr=0.01).select(Z, COUNTS).tolist() == [
        True,
        False,
        False,
        False,
        False,
    ]


def test_min_count_removes_words_and_their_tests() -> None:
    assert SignificanceRule(min_count=2).select(Z, COUNTS).tolist() == [
        True,
        False,
        True,
        False,
        False,
    ]
    # with BH the word seen once also leaves the family: 4 tests, thresholds
    # 0.0125, 0.025, 0.0375, 0.05 against sorted p 0.0027, 0.0027, 0.0455, 0.3173
    # reject k = 2 (z 3.0 and -3.0): the word with z 2.0 is not rejected
    rule = SignificanceRule(fdr=0.05, min_count=2)
    assert rule.select(Z, COUNTS).tolist() == [True, False, False, False, False]


def test_rows_are_separate_families() -> None:
    z = np.vstack([Z, Z[::-1]])
    counts = np.vstack([COUNTS, COUNTS[::-1]])
    got = SignificanceRule(fdr=0.05).select(z, counts)
    assert got[0].tolist() == [True, True, False, False, False]
    assert got[1].tolist() == [False, False, False, True, True]


def test_to_dict_round_trip_and_equality() -> None:
    for rule in (
        SignificanceRule(),
        SignificanceRule(threshold=1.0, min_count=3),
        SignificanceRule(fdr=0.1, min_count=2),
    ):
        data = rule.to_dict()
        assert json.loads(json.dumps(data)) == data
        assert SignificanceRule.from_dict(data) == rule
    # with an FDR level the threshold is not part of the rule
    assert SignificanceRule(threshold=3.0, fdr=0.05) == SignificanceRule(threshold=None, fdr=0.05)
    assert SignificanceRule(fdr=0.05).to_dict() == {"threshold": None, "fdr": 0.05, "min_count": 0}
    assert SignificanceRule.from_options(1.5, None, 4) == SignificanceRule(1.5, None, 4)


def test_describe_text() -> None:
    assert SignificanceRule().describe() == "z > 1.96"
    assert SignificanceRule(threshold=2.5).describe() == "z > 2.5"
    assert SignificanceRule(fdr=0.05).describe() == "Benjamini-Hochberg FDR at 5%"
    assert SignificanceRule(fdr=0.001).describe() == "Benjamini-Hochberg FDR at 0.1%"
    assert (
        SignificanceRule(min_count=3).describe()
        == "z > 1.96, seen at least 3 times in the target group"
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": None},
        {"threshold": float("nan")},
        {"threshold": float("inf")},
        {"fdr": 0.0},
        {"fdr": 1.0},
        {"min_count": -1},
        {"min_count": 1.5},
    ],
)
def test_invalid_rules_are_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        SignificanceRule(**kwargs)  # type: ignore[arg-type]


def test_rule_and_options_cannot_be_mixed() -> None:
    counts = count_words(["a b b", "a c", "c c a"])
    target = np.array([True, False, False])
    other = {"u": ~target}
    with pytest.raises(ConfigError, match="either"):
        marked_words(counts, target, other, threshold=1.0, rule=SignificanceRule())
    with pytest.raises(ConfigError, match="unknown"):
        SignificanceRule.from_dict({"threshold": 1.96, "alpha": 0.05})


def test_tables_record_the_rule() -> None:
    counts = count_words(["the cat sat", "the dog ran", "a cat ran", "a dog sat"])
    target = np.array([True, False, True, False])
    rule = SignificanceRule(threshold=0.5, min_count=1)
    plain = marked_words(counts, target, {"u": ~target}, rule=rule, all_words=True)
    cal = calibrated_marked_words(counts, target, {"u": ~target}, rule=rule, all_words=True)
    assert plain.attrs["rule"] == cal.attrs["rule"] == rule.to_dict()


def test_rule_equals_keyword_options() -> None:
    counts = count_words(
        ["red red blue green", "red blue", "green green blue", "green yellow", "red yellow"]
    )
    target = np.array([True, True, False, False, True])
    for threshold, fdr, min_count in ((0.5, None, 0), (0.0, None, 2), (1.96, 0.5, 1)):
        rule = SignificanceRule(threshold=threshold, fdr=fdr, min_count=min_count)
        options = {"threshold": threshold, "fdr_alpha": fdr, "min_count": min_count}
        a = marked_words(counts, target, {"u": ~target}, all_words=True, **options)  # type: ignore[arg-type]
        b = marked_words(counts, target, {"u": ~target}, all_words=True, rule=rule)
        assert a.equals(b)


def test_every_path_selects_the_words_it_selected_before() -> None:
    """Marked Words, Calibrated Marked Words, resampling and the Probe: golden words."""
    assert selections() == json.loads(GOLDEN.read_text())


def test_dispatch_matches_the_two_methods() -> None:
    counts = count_words(
        ["she likes tea and cake", "he likes cars", "she reads poems", "he fixes cars and bikes"]
        * 3
    )
    female = np.array([True, False, True, False] * 3)
    comps = [
        Comparison(target=female, unmarked={"M": ~female}),
        Comparison(target=~female, unmarked={"F": female}, topic=np.ones(12, dtype=bool)),
    ]
    rule = SignificanceRule(threshold=0.5)
    cal = marked_words_many(counts, comps, calibrated=True, rule=rule)
    want = calibrated_marked_words_many(counts, comps, rule=rule)
    for got, ref in zip(cal, want, strict=True):
        assert got.equals(ref)
    plain = marked_words_many(counts, comps, calibrated=False, rule=rule)
    for got, comp in zip(plain, comps, strict=True):
        prior = None if comp.topic is None else counts.totals(comp.topic)
        ref = marked_words(counts, comp.target, comp.unmarked, prior=prior, rule=rule)
        assert got.equals(ref)
    # the default rule is z > 1.96
    default = marked_words_many(counts, comps[:1], calibrated=False)[0]
    assert default.attrs["rule"] == SignificanceRule().to_dict()


def test_pair_scorer_matches_the_statistics() -> None:
    counts = count_words(["the cat sat on a mat", "a dog sat", "the dog ran to a cat"])
    g1 = counts.totals(np.array([True, False, False]))[np.newaxis, :].astype(float)
    g2 = counts.totals(np.array([False, True, True]))[np.newaxis, :].astype(float)
    topic = counts.totals()[np.newaxis, :].astype(float)
    plain = PairScorer(counts.vocabulary, calibrated=False).z(g1, g2, topic)
    np.testing.assert_array_equal(plain, log_odds_z(g1, g2, topic))
    cfg = CalibratedConfig(alpha=0.4)
    cal = PairScorer(counts.vocabulary, config=cfg).z(g1, g2, topic)
    english = english_prior(counts.vocabulary)
    fixed = np.isin(counts.vocabulary.astype(str), list(cfg.calibration_words))
    ref = calibrated_terms(
        g1, g2, topic, english, fixed, alpha=0.4, c=cfg.c, top_n=cfg.calibration_top_n
    ).z
    np.testing.assert_array_equal(cal, ref)
