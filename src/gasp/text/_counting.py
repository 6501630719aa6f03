"""Counting the tokens of many texts into a sparse matrix, a chunk of texts at a time.

:func:`count_words` gives exactly the counts of ``tokenize(text)`` per text
(the tokenizer of :mod:`gasp.text._tokenize`, which drops tokens longer than
``MAX_WORD_CHARS``) while holding only one chunk of tokens
at a time and never looping over words in Python:

* a chunk's texts are normalized together: the ASCII ones with one byte translation
  (the deleted bytes are derived from the tokenizer's own pattern, so the result is
  the same), the others with one pass of the pattern over the chunk joined by a
  record separator (``\\x1e``: whitespace the pattern keeps and a boundary for
  lower-casing, so each text normalizes as it would alone); a chunk holding that
  separator itself falls back to one text at a time;
* the chunk's normalized texts are split on whitespace (ASCII whitespace is
  turned into spaces by the same byte translation; a text with other characters is
  re-joined by single spaces after ``str.split``) and their tokens encoded by one
  hash table pass, both in Arrow,
  the chunk's distinct words added to the run's vocabulary, and the chunk's counts
  summed into a block of the final matrix;
* at the end the blocks are copied into one CSR matrix and its columns renumbered in
  alphabetical order of the vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from gasp.text._tokenize import _NON_LETTER, MAX_WORD_CHARS, DocTermCounts, normalize

#: Texts counted per chunk by :func:`count_words` (bounds the tokens held at once).
COUNT_CHUNK_SIZE = 20_000

_SEPARATOR = "\x1e"
#: ASCII bytes the tokenizer's pattern deletes (derived from the pattern itself).
_ASCII_DELETE = bytes(i for i in range(128) if _NON_LETTER.fullmatch(chr(i)))


#: ASCII whitespace but the separator, which the counting turns into plain spaces.
_ASCII_SPACES = bytes(i for i in range(128) if chr(i).isspace() and chr(i) != _SEPARATOR)
_TO_SPACE = bytes.maketrans(_ASCII_SPACES, b" " * len(_ASCII_SPACES))
_SAME = bytes.maketrans(b"", b"")


def _normalize_joined(texts: list[str], ascii_only: bool, spaces: bool) -> list[str]:
    """``[normalize(t) for t in texts]``, computed on the texts joined together; with
    ``spaces``, every whitespace character of an ASCII text becomes a plain space."""
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != len(texts) - 1:
        out = [normalize(t) for t in texts]
    elif ascii_only:
        table = _TO_SPACE if spaces else _SAME
        data = joined.encode("ascii").lower().translate(table, _ASCII_DELETE)
        return data.decode("ascii").split(_SEPARATOR)
    else:
        out = normalize(joined).split(_SEPARATOR)
    return [" ".join(t.split()) for t in out] if spaces else out


def _normalize_many(texts: list[str], spaces: bool) -> list[str]:
    ascii_mask = [t.isascii() for t in texts]
    if all(ascii_mask):
        return _normalize_joined(texts, True, spaces)
    out = [""] * len(texts)
    for flag in (True, False):
        positions = [i for i, a in enumerate(ascii_mask) if a is flag]
        if positions:
            part = _normalize_joined([texts[i] for i in positions], flag, spaces)
            for i, text in zip(positions, part, strict=True):
                out[i] = text
    return out


def normalize_many(texts: list[str]) -> list[str]:
    """:func:`gasp.text.normalize` of every text, in order (same result, in bulk)."""
    return _normalize_many(texts, spaces=False)


def _chunks(texts: Iterable[object], size: int) -> Iterator[list[str]]:
    if isinstance(texts, pd.Series):  # a column: convert one slice at a time
        for start in range(0, len(texts), size):
            part = texts.iloc[start : start + size].tolist()
            yield [t if isinstance(t, str) else "" for t in part]
        return
    it = iter(texts)
    while chunk := list(islice(it, size)):
        yield [t if isinstance(t, str) else "" for t in chunk]


class _Blocks:
    """CSR blocks of consecutive documents over a growing vocabulary."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.indptr: list[np.ndarray] = []
        self.indices: list[np.ndarray] = []
        self.data: list[np.ndarray] = []
        self.n_documents = 0
        self.nnz = 0

    def add(self, texts: list[str]) -> None:
        """Count the tokens of ``texts`` into a new block."""
        # Tokens are what str.split() gives: a plain space now separates them.
        docs = pa.array(_normalize_many(texts, spaces=True), type=pa.large_string())
        pieces = pc.split_pattern(docs, " ")
        tokens = pc.list_flatten(pieces)
        parents = pc.list_parent_indices(pieces)
        lengths = pc.utf8_length(tokens)
        kept = pc.and_(pc.greater(lengths, 0), pc.less_equal(lengths, MAX_WORD_CHARS))
        encoded = pc.dictionary_encode(tokens.filter(kept))
        del docs, pieces, tokens
        codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
        uniques = encoded.dictionary.to_pylist()
        vocab = self.vocabulary
        local = np.fromiter(
            (vocab.setdefault(w, len(vocab)) for w in uniques), dtype=np.int64, count=len(uniques)
        )
        rows = np.asarray(parents.filter(kept).to_numpy(zero_copy_only=False), dtype=np.int64)
        block = sp.coo_matrix(
            (np.ones(rows.size, dtype=np.int64), (rows, local[codes])),
            shape=(len(texts), max(len(vocab), 1)),
        ).tocsr()
        block.sum_duplicates()
        self.indptr.append(block.indptr[1:].astype(np.int64) + self.nnz)
        self.nnz += int(block.nnz)
        self.indices.append(block.indices.astype(np.int32, copy=False))
        self.data.append(block.data.astype(np.int64, copy=False))
        self.n_documents += len(texts)

    def matrix(self) -> DocTermCounts:
        """The counts of every document, columns in alphabetical order of the words."""
        nnz = self.nnz
        indptr = np.concatenate([np.zeros(1, dtype=np.int64), *self.indptr])
        index_dtype = np.int32 if max(nnz, len(self.vocabulary)) < 2**31 else np.int64
        indices = np.empty(nnz, dtype=index_dtype)
        data = np.empty(nnz, dtype=np.int64)
        at = 0
        while self.indices:  # move block by block, freeing each as it is copied
            part = self.indices.pop(0)
            indices[at : at + part.size] = part
            data[at : at + part.size] = self.data.pop(0)
            at += part.size
        self.indptr.clear()
        words = np.fromiter(self.vocabulary, dtype=object, count=len(self.vocabulary))
        order = np.argsort(words, kind="stable")
        rank = np.empty(order.size, dtype=index_dtype)
        rank[order] = np.arange(order.size, dtype=index_dtype)
        matrix = sp.csr_matrix(
            (data, rank[indices], indptr.astype(index_dtype, copy=False)),
            shape=(self.n_documents, words.size),
        )
        matrix.has_sorted_indices = False
        matrix.sort_indices()
        return DocTermCounts(matrix=matrix, vocabulary=words[order])


def count_words(texts: Iterable[str], chunk_size: int = COUNT_CHUNK_SIZE) -> DocTermCounts:
    """Count the tokens of every text into a sparse (documents x vocabulary) matrix.

    Texts that are not strings count as empty. The texts are read ``chunk_size`` at a
    time (an iterator of texts is never held whole); the result does not depend on
    ``chunk_size``.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    blocks = _Blocks()
    for chunk in _chunks(texts, chunk_size):
        blocks.add(chunk)
    return blocks.matrix()
