"""Chamfer distance and Subset Representational Bias scores (seed 000, Section 3.2.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gasp.embeddings import ArrayEmbeddings
from gasp.errors import DataError
from gasp.stats import bootstrap_ci, chamfer_distance, srb_score, srb_scores


def _toy_embeddings() -> ArrayEmbeddings:
    """Five 2-D word vectors with easy cosine distances."""
    words = ["east", "north", "west", "northeast", "south", "long_east"]
    vectors = np.array(
        [[1, 0], [0, 1], [-1, 0], [1, 1], [0, -1], [5, 0]],
        dtype=np.float32,
    )
    return ArrayEmbeddings("toy", vectors, {w: i for i, w in enumerate(words)})


def _reference_chamfer(X: np.ndarray, Y: np.ndarray) -> float:
    """A plain per-pair loop of CH(X, Y) = mean_x min_y (1 - cos(x, y))."""
    total = 0.0
    for x in X:
        best = 2.0
        for y in Y:
            cos = float(np.dot(x, y)) / (
                math.sqrt(float(np.dot(x, x))) * math.sqrt(float(np.dot(y, y)))
            )
            best = min(best, 1.0 - cos)
        total += best
    return total / len(X)


def test_chamfer_hand_computed() -> None:
    # east -> east: 0, north -> east: 1; mean 0.5
    assert chamfer_distance(np.array([[1, 0], [0, 1]]), np.array([[1, 0]])) == pytest.approx(0.5)
    # one-sided: the target east is at distance 0 from the candidate east
    assert chamfer_distance(np.array([[1, 0]]), np.array([[1, 0], [0, 1]])) == pytest.approx(0.0)
    # (1, 1) against (1, 0) and (0, 2): 1 - 1/sqrt(2) to each
    assert chamfer_distance(np.array([[1, 1]]), np.array([[1, 0], [0, 2]])) == pytest.approx(
        1 - 1 / math.sqrt(2)
    )
    # opposite vectors are at distance 2, scale does not matter
    assert chamfer_distance(np.array([[-3, 0]]), np.array([[1, 0]])) == pytest.approx(2.0)
    # a zero vector has cosine 0 with everything
    assert chamfer_distance(np.array([[0, 0]]), np.array([[1, 0]])) == pytest.approx(1.0)


def test_chamfer_rejects_empty_and_mismatched_sets() -> None:
    with pytest.raises(DataError):
        chamfer_distance(np.zeros((0, 2)), np.ones((1, 2)))
    with pytest.raises(DataError):
        chamfer_distance(np.ones((1, 2)), np.ones((1, 3)))


def test_chamfer_matches_plain_loop() -> None:
    rng = np.random.default_rng(7)
    for n, m, d in [(1, 1, 3), (5, 8, 4), (40, 17, 50)]:
        X = rng.normal(size=(n, d))
        Y = rng.normal(size=(m, d))
        assert abs(chamfer_distance(X, Y) - _reference_chamfer(X, Y)) < 1e-9
        assert abs(chamfer_distance(Y, X) - _reference_chamfer(Y, X)) < 1e-9


def test_srb_hand_computed_on_toy_vectors() -> None:
    emb = _toy_embeddings()
    # S = {east, north}; A = {east}: CH = (0 + 1) / 2; B = {northeast}: CH = 1 - 1/sqrt(2)
    r = srb_score(["east", "north"], ["east"], ["northeast"], emb)
    ch_sb = 1 - 1 / math.sqrt(2)
    assert r.ch_sa == pytest.approx(0.5)
    assert r.ch_sb == pytest.approx(ch_sb)
    assert r.score == pytest.approx(0.5 - ch_sb)
    assert r.reason is None
    assert (r.n_s, r.n_a, r.n_b) == (2, 1, 1)


def test_srb_antisymmetry_and_identity() -> None:
    emb = _toy_embeddings()
    S, A, B = ["east", "north", "northeast"], ["west", "north"], ["south", "long_east"]
    forward = srb_score(S, A, B, emb)
    backward = srb_score(S, B, A, emb)
    assert forward.score == pytest.approx(-backward.score, abs=1e-12)
    same = srb_score(S, S, B, emb)
    assert same.ch_sa == pytest.approx(0.0, abs=1e-12)
    # CH(S, B): east 0 (long_east), north 1 (east), northeast 1 - cos 45 degrees (long_east)
    assert same.score == pytest.approx(-(0 + 1 + (1 - math.sqrt(0.5))) / 3)
    # the scale of a vector does not matter: east and long_east are the same direction
    assert srb_score(["east"], ["long_east"], ["north"], emb).ch_sa == pytest.approx(0.0, abs=1e-12)


def test_srb_removes_pronouns_deduplicates_and_counts_oov() -> None:
    emb = _toy_embeddings()
    r = srb_score(["She", "east", "east", "theirs", "unknownword"], ["east"], ["north"], emb)
    assert r.pronouns_s == 2
    assert r.oov_s == 1
    assert r.n_s == 1
    assert r.score == pytest.approx(-1.0)
    kept = srb_score(["east", "her"], ["east"], ["north"], emb, remove_pronouns=False)
    assert kept.oov_s == 1  # 'her' is kept, then has no vector
    assert kept.pronouns_s == 0


def test_srb_nan_with_reason_when_a_set_is_empty() -> None:
    emb = _toy_embeddings()
    r = srb_score(["he", "his"], ["east"], ["north"], emb)
    assert math.isnan(r.score) and math.isnan(r.ch_sa)
    assert r.reason is not None and "S" in r.reason
    r2 = srb_score(["east"], ["east"], ["qwxzv"], emb)
    assert math.isnan(r2.score)
    assert r2.reason is not None and "B" in r2.reason
    assert r2.oov_b == 1


def test_srb_scores_batch_matches_single_calls() -> None:
    emb = _toy_embeddings()
    rng = np.random.default_rng(3)
    words = ["east", "north", "west", "northeast", "south", "long_east"]
    triples = [
        tuple(list(rng.choice(words, size=rng.integers(1, 5))) for _ in range(3)) for _ in range(20)
    ]
    batch = srb_scores(triples, emb)
    for (S, A, B), result in zip(triples, batch, strict=True):
        single = srb_score(S, A, B, emb)
        assert result.to_dict() == pytest.approx(single.to_dict())
        distinct = [list(dict.fromkeys(x)) for x in (S, A, B)]
        vec = [np.array([emb.lookup([w])[0][0] for w in group]) for group in distinct]
        expected = _reference_chamfer(vec[0], vec[1]) - _reference_chamfer(vec[0], vec[2])
        assert abs(result.score - expected) < 1e-9


def test_srb_with_glove_follows_the_papers_example() -> None:
    # Section 3.2.2: C1 = (her, empowered, young) is closer to T1 = (awards, stanford,
    # underserved) than to T2 = (opensource, tackling, venture); C2 = (him, startup,
    # technical) is closer to T2.
    t1, t2 = ["awards", "stanford", "underserved"], ["opensource", "tackling", "venture"]
    c1, c2 = srb_scores(
        [(["her", "empowered", "young"], t1, t2), (["him", "startup", "technical"], t1, t2)]
    )
    assert c1.score < 0 < c2.score
    assert c1.pronouns_s == 1 and c1.n_s == 2
    assert -2 <= c1.score <= 2


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 6), st.just(3)), elements=st.integers(-5, 5)),
    arrays(np.float64, st.tuples(st.integers(1, 6), st.just(3)), elements=st.integers(-5, 5)),
)
def test_chamfer_properties(X: np.ndarray, Y: np.ndarray) -> None:
    d = chamfer_distance(X, Y)
    assert 0.0 <= d <= 2.0
    assert abs(d - _reference_chamfer_safe(X, Y)) < 1e-9
    assert chamfer_distance(X, X) <= 1.0  # zero rows are at distance 1, others at 0


def _reference_chamfer_safe(X: np.ndarray, Y: np.ndarray) -> float:
    """The plain loop, with cosine 0 for zero vectors."""
    total = 0.0
    for x in X:
        best = 2.0
        for y in Y:
            nx, ny = math.sqrt(float(np.dot(x, x))), math.sqrt(float(np.dot(y, y)))
            cos = float(np.dot(x, y)) / (nx * ny) if nx > 0 and ny > 0 else 0.0
            best = min(best, min(2.0, max(0.0, 1.0 - cos)))
        total += best
    return total / len(X)


def test_bootstrap_of_an_srb_score_by_resampling_words() -> None:
    emb = _toy_embeddings()
    S = np.array(["east", "northeast", "east", "north"])

    def score(words: np.ndarray) -> float:
        return srb_score(list(words), ["east"], ["north"], emb).score

    res = bootstrap_ci([S], score, rng=np.random.default_rng(0), n_resamples=200)
    assert res.low <= res.estimate <= res.high
    assert res.low >= -1.0 and res.high <= 1.0
