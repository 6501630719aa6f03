"""Unit vectors: the one row normalisation of embedding matrices in the package.

Cosine similarities (the Chamfer distances of SRB scores, the spherical k-means of
the Probe step) are dot products of unit-length vectors. :func:`unit_rows` scales
every row to unit Euclidean length; a row of zeros (a word without a vector, or an
embedding model's zero output) stays zero, so its cosine similarity with every
vector is 0 rather than NaN.
"""

from __future__ import annotations

import numpy as np


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` with every row (last axis) scaled to unit length, as float64.

    The result has the shape of ``vectors`` (a 1-D vector is one row; an empty
    matrix stays empty); rows whose norm is zero stay zero. Non-finite entries
    propagate (NaN rows stay NaN).
    """
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("unit_rows needs a vector or a matrix of vectors, got a scalar")
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
