"""A disk cache of models loaded from GGUF files, so later starts skip dequantization.

Loading a GGUF file through transformers dequantizes every tensor at every start
(tens of seconds on a small CPU). After the first load the model and tokenizer are
saved with ``save_pretrained`` (safetensors) into a cache entry; later loads read
that folder in seconds.

An entry is named after the GGUF file, the SHA-256 of its content and the dtype, and
holds ``gasp-weight-cache.json`` (written last) with the GGUF hash and the size and
SHA-256 of every file in the entry. An entry whose record is missing, unreadable,
for another GGUF content, or whose files differ from it is treated as absent and
rebuilt. Entries are written into a temporary folder beside the final one and moved
into place with one rename, so a killed process never leaves a half-written entry
that looks complete.

The cache lives in ``$GASP_CACHE_DIR``, else ``$XDG_CACHE_HOME/gasp``, else
``~/.cache/gasp`` (under ``models/``); ``GASP_WEIGHT_CACHE=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

CACHE_DIR_ENV = "GASP_CACHE_DIR"
WEIGHT_CACHE_ENV = "GASP_WEIGHT_CACHE"
RECORD_FILE = "gasp-weight-cache.json"
CACHE_FORMAT = 1
_CHUNK = 1 << 22


def cache_dir() -> Path:
    """gasp's cache folder: ``$GASP_CACHE_DIR``, ``$XDG_CACHE_HOME/gasp`` or ``~/.cache/gasp``."""
    explicit = os.environ.get(CACHE_DIR_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "gasp"


def weight_cache_enabled() -> bool:
    """False when ``GASP_WEIGHT_CACHE`` is ``0``, ``false``, ``no`` or ``off``."""
    value = os.environ.get(WEIGHT_CACHE_ENV, "").strip().lower()
    return value not in {"0", "false", "no", "off"}


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's content (hex)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _files_of(folder: Path) -> dict[str, dict[str, object]]:
    return {
        str(p.relative_to(folder)): {"size": p.stat().st_size, "sha256": file_sha256(p)}
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != RECORD_FILE
    }


class WeightCache:
    """Cache entries of GGUF-loaded models under ``root`` (default :func:`cache_dir`/models)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else cache_dir() / "models"

    def entry(self, gguf: Path, gguf_sha256: str, variant: str) -> Path:
        """The folder of the entry for this GGUF content and variant (e.g. the dtype)."""
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in variant)
        return self.root / f"{gguf.stem}-{gguf_sha256[:16]}-{safe}"

    def lookup(self, gguf: Path, variant: str, gguf_sha256: str | None = None) -> Path | None:
        """The verified entry for ``gguf`` (its current content), or None when absent or bad."""
        sha = gguf_sha256 or file_sha256(gguf)
        folder = self.entry(gguf, sha, variant)
        return folder if self.verify(folder, sha, variant) else None

    def verify(self, folder: Path, gguf_sha256: str, variant: str) -> bool:
        """Whether ``folder`` is a complete entry for this GGUF hash whose files are intact."""
        try:
            record = json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))
            if (
                record.get("format") != CACHE_FORMAT
                or record.get("gguf_sha256") != gguf_sha256
                or record.get("variant") != variant
                or not record.get("files")
            ):
                return False
            return bool(_files_of(folder) == record["files"])
        except (OSError, ValueError, AttributeError):
            return False

    def store(
        self,
        gguf: Path,
        variant: str,
        write: Callable[[Path], None],
        gguf_sha256: str | None = None,
    ) -> Path:
        """Build the entry: ``write(folder)`` fills a temporary folder, which is renamed in place.

        A bad entry already there is replaced; a good one (written meanwhile by another
        process) is kept.
        """
        sha = gguf_sha256 or file_sha256(gguf)
        final = self.entry(gguf, sha, variant)
        self.root.mkdir(parents=True, exist_ok=True)
        temp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".tmp", dir=self.root))
        try:
            write(temp)
            record = {
                "format": CACHE_FORMAT,
                "gguf_file": gguf.name,
                "gguf_sha256": sha,
                "variant": variant,
                "files": _files_of(temp),
            }
            record_tmp = temp / (RECORD_FILE + ".tmp")
            record_tmp.write_text(json.dumps(record, indent=1), encoding="utf-8")
            record_tmp.replace(temp / RECORD_FILE)
            if final.exists():
                if self.verify(final, sha, variant):
                    return final
                shutil.rmtree(final, ignore_errors=True)
            try:
                temp.rename(final)
            except OSError:
                if not self.verify(final, sha, variant):
                    raise
            return final
        finally:
            if temp.exists():
                shutil.rmtree(temp, ignore_errors=True)

    def clear_stale(self, gguf: Path, variant: str, keep: Path) -> None:
        """Remove the entries of this GGUF file name and variant for other (older) contents."""
        suffix = self.entry(gguf, "0" * 16, variant).name[len(gguf.stem) + 18 :]
        for other in self.root.glob(f"{gguf.stem}-*-{suffix}"):
            if other != keep and other.is_dir():
                with contextlib.suppress(OSError):
                    shutil.rmtree(other)
