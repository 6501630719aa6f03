"""The one tokenizer every method uses, and sparse document-term counts.

The tokenizer matches the published word lists of the seed papers: lowercase,
split on whitespace, strip every non-letter from each token (``almond-shaped``
becomes ``almondshaped``, ``she's`` becomes ``shes``), drop empty tokens.

A token longer than :data:`MAX_WORD_CHARS` letters is not a word (the longest word of
English dictionaries has 45 letters; the longest of wordfreq's English list, 34) but
glued text, a data URI or a hostile answer, and is dropped here, once, for every
statistic. This keeps every word list and vocabulary array of bounded width: a single
answer of a million letters would otherwise make arrays of a million characters per
vocabulary entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

# Everything that is neither a letter nor whitespace: punctuation, symbols, digits, underscore.
_NON_LETTER = re.compile(r"[^\w\s]|[\d_]")


def normalize(text: str) -> str:
    """Lowercase ``text`` and delete every character that is neither a letter nor whitespace."""
    return _NON_LETTER.sub("", text.lower())


#: The longest token counted as a word; longer ones are dropped (see the module's docstring).
MAX_WORD_CHARS = 50


def tokenize(text: str) -> list[str]:
    """Split ``text`` into the tokens used by every statistic of the package (words of
    at most :data:`MAX_WORD_CHARS` letters)."""
    return [t for t in normalize(text).split() if len(t) <= MAX_WORD_CHARS]


@dataclass(frozen=True)
class DocTermCounts:
    """Word counts of a collection of documents.

    ``matrix`` is a CSR matrix of shape (documents, vocabulary) with int64 counts;
    ``vocabulary`` holds the word of each column, sorted alphabetically.
    """

    matrix: sp.csr_matrix
    vocabulary: np.ndarray

    @property
    def n_documents(self) -> int:
        """Number of documents (rows)."""
        return int(self.matrix.shape[0])

    def index_of(self, words: Iterable[str]) -> np.ndarray:
        """Column index of each word, ``-1`` for words absent from the vocabulary."""
        words_arr = np.asarray(list(words), dtype=object)
        if words_arr.size == 0 or self.vocabulary.size == 0:
            return np.full(words_arr.shape, -1, dtype=np.int64)
        pos = np.searchsorted(self.vocabulary, words_arr)
        pos_clipped = np.minimum(pos, self.vocabulary.size - 1)
        found = self.vocabulary[pos_clipped] == words_arr
        return np.where(found, pos_clipped, -1).astype(np.int64)

    def word_counts(self, words: Sequence[str]) -> np.ndarray:
        """Dense (documents, len(words)) array of the counts of ``words``; absent words count 0."""
        idx = self.index_of(words)
        out = np.zeros((self.n_documents, len(words)), dtype=np.int64)
        present = idx >= 0
        if present.any():
            out[:, present] = self.matrix[:, idx[present]].toarray()
        return out

    def totals(self, rows: np.ndarray | slice | None = None) -> np.ndarray:
        """Summed counts per word over ``rows`` (mask, index array or slice; all if None)."""
        sub = self.matrix if rows is None else self.matrix[rows]
        return np.asarray(sub.sum(axis=0)).ravel().astype(np.int64)

    def subset(self, rows: np.ndarray | slice) -> DocTermCounts:
        """The counts of the selected documents, over the same vocabulary."""
        return DocTermCounts(matrix=self.matrix[rows], vocabulary=self.vocabulary)
