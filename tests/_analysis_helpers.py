"""Shared helpers of the analysis tests: small random word embeddings over the synthetic words."""

from __future__ import annotations

import numpy as np

from gasp.embeddings import ArrayEmbeddings
from gasp.studies.more_of_the_same.analysis._synthetic import content_vocabulary

PLANTED = {
    "F": ["yoga", "empathy", "advocate", "diversity"],
    "M": ["basketball", "gaming", "startup", "engine"],
}


def random_embeddings(vocabulary_size: int = 2000, dim: int = 25, seed: int = 0) -> ArrayEmbeddings:
    """Gaussian vectors for the synthetic content words and the planted words."""
    words, _ = content_vocabulary(vocabulary_size)
    vocab = list(dict.fromkeys([*words, *PLANTED["F"], *PLANTED["M"]]))
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(len(vocab), dim)).astype(np.float32)
    return ArrayEmbeddings("random", vectors, {w: i for i, w in enumerate(vocab)})
