"""Calibrated Marked Words (seed 000, Algorithms 3 and 4) against hand values and a reference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from gasp.errors import ConfigError, DataError
from gasp.stats import (
    CalibratedConfig,
    CalibratedMarkedWords,
    Comparison,
    calibrated_marked_words,
    calibrated_marked_words_many,
    calibrated_terms,
    english_prior,
    marked_words,
)
from gasp.text import DocTermCounts, count_words

# ---------------------------------------------------------------------------------------
# Plain per-word reference implementation of Algorithms 3 and 4 (n_G in line 6).


def _top_words(counts: dict[str, float], n: int) -> set[str]:
    """Words among the ``n`` most frequent (ties with the n-th included, zero never)."""
    positive = sorted((c for c in counts.values() if c > 0), reverse=True)
    if n == 0 or not positive:
        return set()
    nth = positive[min(n, len(positive)) - 1]
    return {w for w, c in counts.items() if c >= nth and c > 0}


def reference_z(
    g1: dict[str, float],
    g2: dict[str, float],
    topic: dict[str, float],
    english: dict[str, float],
    fixed: set[str],
    *,
    alpha: float,
    c_topic: float,
    c_english: float,
    top_n: int,
) -> tuple[dict[str, float], float, float, set[str]]:
    """Algorithm 3 then Algorithm 4, one word at a time."""
    # Algorithm 3
    prior: dict[str, float] = {}
    c = alpha * c_topic + (1 - alpha) * c_english
    for w in topic:
        if topic[w] > 0:
            prior[w] = alpha * topic[w] + (1 - alpha) * english.get(w, 0.0)
    vocab = set(g1) | set(g2) | set(topic)
    full_prior = {w: prior.get(w, 0.0) for w in vocab}
    calib = {w for w in fixed if w in vocab} | (
        _top_words(full_prior, top_n) & _top_words(g1, top_n) & _top_words(g2, top_n)
    )
    w_p = w_g1 = w_g2 = 0.0
    for w in calib:
        w_p += full_prior[w]
        w_g1 += g1.get(w, 0.0)
        w_g2 += g2.get(w, 0.0)
    r1 = c * w_p / w_g1
    r2 = c * w_p / w_g2
    # Algorithm 4
    n_g = sum(g1.values())
    n_u = sum(g2.values())
    n_p = sum(prior.values())
    delta: dict[str, float] = {}
    for w in prior:
        a1 = g1.get(w, 0.0) + prior[w] / r1
        a2 = g2.get(w, 0.0) + prior[w] / r2
        if a1 <= 0 or a2 <= 0:
            delta[w] = math.nan
            continue
        l1 = a1 / ((n_g + n_p / r1) - a1)
        l2 = a2 / ((n_u + n_p / r2) - a2)
        sigma2 = 1 / a1 + 1 / a2
        delta[w] = (math.log(l1) - math.log(l2)) / math.sqrt(sigma2)
    return delta, r1, r2, calib


# ---------------------------------------------------------------------------------------


def _counts(rows: list[dict[str, int]]) -> DocTermCounts:
    vocab = sorted({w for row in rows for w in row})
    mat = np.array([[row.get(w, 0) for w in vocab] for row in rows], dtype=np.int64)
    return DocTermCounts(matrix=sp.csr_matrix(mat), vocabulary=np.array(vocab, dtype=object))


def test_hand_computed_regularizing_terms_and_z() -> None:
    # vocabulary: cat, dog, the; W = {the}; G1 = [3, 0, 2], G2 = [1, 1, 4]
    g1 = np.array([[3.0, 0.0, 2.0]])
    g2 = np.array([[1.0, 1.0, 4.0]])
    topic = np.array([4.0, 1.0, 6.0])
    english = np.array([10.0, 20.0, 100.0])
    terms = calibrated_terms(
        g1, g2, topic, english, np.array([False, False, True]), alpha=0.5, c=2.0, top_n=0
    )
    # P = 0.5 * topic + 0.5 * english = [7, 10.5, 53]; w_p = 53, w_g1 = 2, w_g2 = 4
    np.testing.assert_allclose(terms.prior[0], [7.0, 10.5, 53.0])
    assert terms.r1[0] == pytest.approx(53.0)  # 2 * 53 / 2
    assert terms.r2[0] == pytest.approx(26.5)  # 2 * 53 / 4
    # "the": a1 = 2 + 53/53 = 3, a2 = 4 + 53/26.5 = 6; n_P = 70.5
    l1 = 3 / (5 + 70.5 / 53 - 3)
    l2 = 6 / (6 + 70.5 / 26.5 - 6)
    z_the = (math.log(l1) - math.log(l2)) / math.sqrt(1 / 3 + 1 / 6)
    assert terms.z[0, 2] == pytest.approx(z_the, rel=1e-12)
    # "dog": a1 = 10.5/53, a2 = 1 + 10.5/26.5
    a1, a2 = 10.5 / 53, 1 + 10.5 / 26.5
    l1 = a1 / (5 + 70.5 / 53 - a1)
    l2 = a2 / (6 + 70.5 / 26.5 - a2)
    z_dog = (math.log(l1) - math.log(l2)) / math.sqrt(1 / a1 + 1 / a2)
    assert terms.z[0, 1] == pytest.approx(z_dog, rel=1e-12)
    assert terms.calibration[0].tolist() == [False, False, True]


def _random_corpus(seed: int, n_docs: int = 60, n_words: int = 40) -> DocTermCounts:
    rng = np.random.default_rng(seed)
    words = ["the", "of", "and", "a", "to", "in", "is"] + [f"w{i:02d}x" for i in range(n_words)]
    probs = 1.0 / np.arange(1, len(words) + 1)
    probs /= probs.sum()
    mat = rng.multinomial(30, probs, size=n_docs)
    mat[: n_docs // 2, 10] += rng.integers(0, 3, size=n_docs // 2)  # a group effect
    order = np.argsort(words)
    return DocTermCounts(
        matrix=sp.csr_matrix(mat[:, order].astype(np.int64)),
        vocabulary=np.array(words, dtype=object)[order],
    )


@pytest.mark.parametrize(
    ("alpha", "c_topic", "c_english", "top_n"),
    [(0.15, 0.11, 0.07, 20), (0.0, 1.0, 0.5, 3), (1.0, 2.0, 0.5, 20), (0.6, 0.3, 3.0, 0)],
)
def test_vectorized_matches_the_per_word_reference(
    alpha: float, c_topic: float, c_english: float, top_n: int
) -> None:
    counts = _random_corpus(7)
    n = counts.n_documents
    target = np.arange(n) < n // 2
    unmarked = ~target
    topic_rows = np.arange(n) % 3 != 0
    config = CalibratedConfig(
        alpha=alpha, c_topic=c_topic, c_english=c_english, calibration_top_n=top_n
    )
    table = calibrated_marked_words_many(
        counts,
        [Comparison(target=target, unmarked={"u": unmarked}, topic=topic_rows)],
        config=config,
        all_words=True,
    )[0]
    vocab = [str(w) for w in counts.vocabulary]
    english_arr = english_prior(counts.vocabulary)
    as_dict = lambda arr: dict(zip(vocab, map(float, arr), strict=True))  # noqa: E731
    z_ref, r1, r2, calib = reference_z(
        as_dict(counts.totals(target)),
        as_dict(counts.totals(unmarked)),
        as_dict(counts.totals(topic_rows)),
        as_dict(english_arr),
        set(config.calibration_words),
        alpha=alpha,
        c_topic=c_topic,
        c_english=c_english,
        top_n=top_n,
    )
    got = dict(zip(table["word"], table["z_u"], strict=True))
    for w in vocab:
        expected = z_ref.get(w, math.nan)
        if math.isnan(expected):
            assert math.isnan(got[w]), w
        else:
            assert got[w] == pytest.approx(expected, rel=1e-9, abs=1e-9), w
    assert table.attrs["r1"]["u"] == pytest.approx(r1, rel=1e-12)
    assert table.attrs["r2"]["u"] == pytest.approx(r2, rel=1e-12)
    assert set(table.attrs["calibration_words"]["u"]) == calib


def test_identical_groups_give_no_marked_words() -> None:
    counts = _random_corpus(3)
    group = np.arange(counts.n_documents) < 20
    table = calibrated_marked_words(counts, group, {"same": group.copy()}, all_words=True)
    assert not table["significant"].any()
    np.testing.assert_allclose(table["z_same"].dropna(), 0.0, atol=1e-12)


def test_alpha_one_reduces_to_marked_words_with_a_scaled_prior() -> None:
    texts = ["the cat sat on the mat"] * 5 + ["the dog sat on the log"] * 5 + ["the bird"] * 3
    counts = count_words(texts)
    target = np.arange(13) < 5
    other = (np.arange(13) >= 5) & (np.arange(13) < 10)
    config = CalibratedConfig(alpha=1.0, c_topic=0.5, c_english=9.0, calibration_top_n=0)
    table = calibrated_marked_words(counts, target, {"o": other}, config=config, all_words=True)
    r1, r2 = table.attrs["r1"]["o"], table.attrs["r2"]["o"]
    assert r1 == pytest.approx(r2)  # both groups count "the", "on" equally
    # w_p: the 23 + on 10 = 33, w_g = the 10 + on 5 = 15 -> r = 0.5 * 33 / 15
    assert r1 == pytest.approx(0.5 * 33 / 15)
    plain = marked_words(counts, target, {"o": other}, prior=counts.totals() / r1, all_words=True)
    merged = table.merge(plain, on="word", suffixes=("_c", "_p"))
    np.testing.assert_allclose(merged["z_o_c"], merged["z_o_p"], rtol=1e-12)
    assert list(table.columns) == list(plain.columns)


def test_batched_equals_single_comparisons() -> None:
    counts = _random_corpus(11, n_docs=90)
    n = counts.n_documents
    idx = np.arange(n)
    occupation = idx < 60
    a, b, c = idx % 3 == 0, idx % 3 == 1, idx % 3 == 2
    comparisons = [
        Comparison(target=a, unmarked={"b": b, "c": c}, name="a"),
        Comparison(target=b, unmarked={"a": a}, name="b"),
        Comparison(target=a & occupation, unmarked={"b": b & occupation}, topic=occupation),
    ]
    config = CalibratedConfig(alpha=0.3, c_topic=0.5, c_english=0.2)
    many = calibrated_marked_words_many(counts, comparisons, config=config, all_words=True)
    single = [
        calibrated_marked_words(counts, a, {"b": b, "c": c}, config=config, all_words=True),
        calibrated_marked_words(counts, b, {"a": a}, config=config, all_words=True),
        calibrated_marked_words(
            counts.subset(occupation),
            a[occupation],
            {"b": b[occupation]},
            config=config,
            all_words=True,
        ),
    ]
    for got, want in zip(many, single, strict=True):
        pd.testing.assert_frame_equal(got, want, rtol=1e-12)
        assert got.attrs["r1"] == pytest.approx(want.attrs["r1"])


def test_topic_prior_compared_uses_only_the_compared_texts() -> None:
    counts = _random_corpus(5)
    n = counts.n_documents
    target, other = np.arange(n) < 20, (np.arange(n) >= 20) & (np.arange(n) < 40)
    cfg = CalibratedConfig(topic_prior="compared")
    got = calibrated_marked_words(counts, target, {"o": other}, config=cfg, all_words=True)
    rows = target | other
    want = calibrated_marked_words(
        counts.subset(rows), target[rows], {"o": other[rows]}, all_words=True
    )
    pd.testing.assert_frame_equal(got, want, rtol=1e-12)


def test_estimator_exposes_hyperparameters_and_calibration_words() -> None:
    counts = _random_corpus(2)
    target = np.arange(counts.n_documents) < 30
    est = CalibratedMarkedWords(CalibratedConfig(alpha=0.2)).fit(counts, target, {"u": ~target})
    assert est.table_.attrs["alpha"] == 0.2
    assert est.table_.attrs["c"] == pytest.approx(
        0.2 * est.config.c_topic + 0.8 * est.config.c_english
    )
    assert {"the", "of", "and"} <= set(est.calibration_words_["u"])
    assert est.r1_["u"] > 0 and est.r2_["u"] > 0
    twin = calibrated_marked_words(counts, target, {"u": ~target}, config=est.config)
    pd.testing.assert_frame_equal(est.table_, twin)
    assert est.words_ == twin["word"].tolist()
    assert est.words_  # the comparison above is not vacuous


def test_invalid_config_and_inputs_raise_user_errors() -> None:
    with pytest.raises(ConfigError):
        CalibratedConfig(alpha=1.5)
    with pytest.raises(ConfigError):
        CalibratedConfig(c_topic=0.0)
    with pytest.raises(ConfigError):
        CalibratedConfig(english_source="gutenberg")
    with pytest.raises(ConfigError):
        CalibratedConfig(calibration_words="the")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        CalibratedConfig(topic_prior="other")  # type: ignore[arg-type]
    counts = count_words(["zebra quokka", "zebra lemur", "quokka lemur"])
    target = np.array([True, False, False])
    with pytest.raises(DataError, match="calibration words"):
        calibrated_marked_words(
            counts, target, {"u": ~target}, config=CalibratedConfig(calibration_top_n=0)
        )
    with pytest.raises(DataError, match="selects no texts"):
        calibrated_marked_words(counts, np.zeros(3, dtype=bool), {"u": ~target})
    with pytest.raises(DataError, match="unmarked"):
        calibrated_marked_words(counts, target, {})
    assert calibrated_marked_words_many(counts, []) == []


@pytest.mark.parametrize("min_count", [0, 3])
def test_significant_only_tables_equal_the_filtered_full_tables(min_count: int) -> None:
    counts = _random_corpus(13, n_docs=120)
    idx = np.arange(counts.n_documents)
    comparisons = [
        Comparison(target=idx < 60, unmarked={"rest": idx >= 60}),
        Comparison(target=idx % 2 == 0, unmarked={"odd": idx % 2 == 1, "late": idx >= 90}),
    ]
    cfg = CalibratedConfig(c_english=5.0, c_topic=5.0)
    short = calibrated_marked_words_many(counts, comparisons, config=cfg, min_count=min_count)
    full = calibrated_marked_words_many(
        counts, comparisons, config=cfg, min_count=min_count, all_words=True
    )
    assert sum(len(t) for t in short) > 0
    for got, want in zip(short, full, strict=True):
        want = want[want["significant"]].reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want)
    with pytest.raises(ConfigError):
        calibrated_marked_words_many(counts, comparisons, threshold=float("nan"))
