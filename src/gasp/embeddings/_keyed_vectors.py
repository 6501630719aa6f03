"""Any gensim ``KeyedVectors`` file (for example word2vec GoogleNews, as used by seed ``000``).

gensim is an optional extra (``pip install "gasp[gensim]"``) imported only when a
file is loaded. Files ending in ``.bin`` or ``.bin.gz`` are read as binary
word2vec files, ``.txt``, ``.vec`` (optionally gzipped) as text word2vec files,
anything else with ``KeyedVectors.load`` (memory-mapped).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gasp.embeddings._base import ArrayEmbeddings
from gasp.errors import BackendError, ConfigError

_INSTALL = 'pip install "gasp[gensim]"'


def _load_gensim(path: Path) -> Any:
    try:
        from gensim.models import KeyedVectors
    except ImportError as exc:
        raise BackendError(f"reading {path.name} needs gensim: {_INSTALL}") from exc
    name = path.name.lower()
    try:
        if name.endswith((".bin", ".bin.gz")):
            return KeyedVectors.load_word2vec_format(str(path), binary=True)
        if name.endswith((".txt", ".vec", ".txt.gz", ".vec.gz")):
            return KeyedVectors.load_word2vec_format(str(path), binary=False)
        return KeyedVectors.load(str(path), mmap="r")
    except (OSError, ValueError, EOFError) as exc:
        raise ConfigError(f"cannot read word vectors from {path}: {exc}") from exc


def load_keyed_vectors(path: str | Path, *, lowercase_fallback: bool = True) -> ArrayEmbeddings:
    """Word vectors from a gensim KeyedVectors or word2vec file at ``path``.

    Words are looked up as given and, with ``lowercase_fallback``, retried in
    lower case (the package's tokens are lower case; word2vec vocabularies are cased).
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(f"word-vector file not found: {file}")
    kv = _load_gensim(file)
    index = {str(key): int(row) for key, row in kv.key_to_index.items()}
    return ArrayEmbeddings(
        f"keyed-vectors:{file.name}", kv.vectors, index, lowercase_fallback=lowercase_fallback
    )
