"""The interface every word-embedding provider implements, and an in-memory implementation.

A provider maps words to vectors. :meth:`WordEmbeddings.lookup` returns the
vectors of the words it knows (float32 rows, in input order) together with a
boolean mask over the input telling which words were found, so that callers can
count out-of-vocabulary words instead of silently losing them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class WordEmbeddings(Protocol):
    """Word vectors behind one small interface.

    ``name`` identifies the model (written into results), ``dim`` is the vector
    length.
    """

    name: str
    dim: int

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of the found words and a found-mask over ``words``.

        Returns ``(vectors, found)``: ``vectors`` has shape ``(found.sum(), dim)``
        and dtype float32, one row per found word in input order; ``found`` is a
        boolean array of length ``len(words)``.
        """
        ...


class ArrayEmbeddings:
    """Word vectors held in one (vocabulary x dim) array with a word-to-row mapping.

    ``vectors`` may be a memory map; only the looked-up rows are read.
    ``lowercase_fallback`` retries a word in lower case when it is not found as
    given (useful for cased vocabularies such as word2vec GoogleNews).
    """

    def __init__(
        self,
        name: str,
        vectors: np.ndarray,
        index: Mapping[str, int],
        *,
        lowercase_fallback: bool = False,
    ) -> None:
        if vectors.ndim != 2:
            raise ValueError("vectors must be a 2-D array (vocabulary x dim)")
        self.name = name
        self.dim = int(vectors.shape[1])
        self._vectors = vectors
        self._index = index
        self._lowercase_fallback = lowercase_fallback

    @property
    def vocabulary_size(self) -> int:
        """Number of words with a vector."""
        return len(self._index)

    def rows(self, words: Sequence[str]) -> np.ndarray:
        """Row of each word in the vector array, ``-1`` where the word is absent."""
        get = self._index.get
        rows = np.fromiter((get(w, -1) for w in words), dtype=np.int64, count=len(words))
        if self._lowercase_fallback:
            for i in np.flatnonzero(rows < 0):
                rows[i] = get(words[int(i)].lower(), -1)
        return rows

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of the found words (float32 rows) and the found-mask over ``words``."""
        rows = self.rows(words)
        found = rows >= 0
        if not found.any():
            return np.zeros((0, self.dim), dtype=np.float32), found
        vectors = np.asarray(self._vectors[rows[found]], dtype=np.float32)
        return vectors, found

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.dim})"
