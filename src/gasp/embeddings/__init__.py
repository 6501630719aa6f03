"""Word embeddings behind one interface (GloVe 6B 50d by default, MiniLM, gensim files)
and the unit-vector helper :func:`unit_rows` of every cosine computation."""

from gasp.embeddings._base import ArrayEmbeddings, WordEmbeddings
from gasp.embeddings._glove import GLOVE_NAME, GloVeEmbeddings
from gasp.embeddings._keyed_vectors import load_keyed_vectors
from gasp.embeddings._minilm import MINILM_NAME, MiniLMEmbeddings
from gasp.embeddings._registry import (
    DEFAULT_EMBEDDINGS,
    available_embeddings,
    check_embeddings,
    load_embeddings,
)
from gasp.embeddings._vectors import unit_rows

__all__ = [
    "DEFAULT_EMBEDDINGS",
    "GLOVE_NAME",
    "MINILM_NAME",
    "ArrayEmbeddings",
    "GloVeEmbeddings",
    "MiniLMEmbeddings",
    "WordEmbeddings",
    "available_embeddings",
    "check_embeddings",
    "load_embeddings",
    "load_keyed_vectors",
    "unit_rows",
]
