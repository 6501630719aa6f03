"""Choose word embeddings by a short specification string.

``glove`` (default; GloVe 6B 50d), ``minilm`` (sentence-transformers MiniLM) or
a path to a gensim KeyedVectors / word2vec file. Providers are cached per
process, so loading the same specification twice returns the same object.
"""

from __future__ import annotations

import functools
from pathlib import Path

from gasp.embeddings._base import WordEmbeddings
from gasp.embeddings._glove import GloVeEmbeddings
from gasp.embeddings._keyed_vectors import load_keyed_vectors
from gasp.embeddings._minilm import MiniLMEmbeddings
from gasp.errors import ConfigError

DEFAULT_EMBEDDINGS = "glove"
_ALIASES: dict[str, str] = {
    "glove": "glove",
    "glove-6b-50d": "glove",
    "glove6b50d": "glove",
    "minilm": "minilm",
    "all-minilm-l6-v2": "minilm",
}
_PATH_SUFFIXES = (".bin", ".gz", ".kv", ".txt", ".vec", ".model", ".wv")


def available_embeddings() -> tuple[str, ...]:
    """The built-in specifications (a file path is accepted too)."""
    return ("glove", "minilm")


def load_embeddings(spec: str = DEFAULT_EMBEDDINGS) -> WordEmbeddings:
    """Word embeddings for ``spec``: ``glove`` (default), ``minilm`` or a file path.

    Raises :class:`~gasp.errors.ConfigError` for an unknown specification or a
    missing file.
    """
    key = check_embeddings(spec)
    alias = _ALIASES.get(key.lower())
    if alias is not None:
        return _builtin(alias)
    return _from_file(str(Path(key).expanduser().resolve()))


def check_embeddings(spec: str) -> str:
    """The specification ``spec`` names (a built-in name or an existing file), loading
    nothing; :class:`~gasp.errors.ConfigError` for an unknown one or a missing file."""
    key = spec.strip() or DEFAULT_EMBEDDINGS
    if key.lower() in _ALIASES:
        return key
    path = Path(key).expanduser()
    if path.is_file():
        return key
    if path.suffix.lower() in _PATH_SUFFIXES or "/" in key or "\\" in key:
        raise ConfigError(f"word-vector file not found: {key}")
    raise ConfigError(
        f"unknown embeddings {spec!r}: "
        "use 'glove', 'minilm' or a path to a gensim KeyedVectors file"
    )


@functools.cache
def _builtin(name: str) -> WordEmbeddings:
    if name == "glove":
        return GloVeEmbeddings()
    return MiniLMEmbeddings()


@functools.cache
def _from_file(path: str) -> WordEmbeddings:
    return load_keyed_vectors(path)
