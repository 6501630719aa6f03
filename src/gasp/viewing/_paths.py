"""Paths the browser may reach: only files under the folders given, never through ``..``
or a symbolic link that leads outside them."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath


def inside(path: Path, root: Path) -> bool:
    """True when ``path`` (resolved) is ``root`` (resolved) or lies under it."""
    try:
        real, top = path.resolve(), root.resolve()
    except (OSError, RuntimeError):
        return False
    return real == top or top in real.parents


def safe_file(root: Path, relative: str) -> Path | None:
    """The regular file ``relative`` (a ``/``-separated path) under ``root``, or None.

    None for an absolute path, an empty or ``.``/``..`` component, a backslash or a NUL,
    a link whose target lies outside ``root``, and anything that is not a regular file.
    Nothing outside ``root`` is opened: every component is checked with ``lstat`` and
    links are resolved before the file itself is touched.
    """
    if not relative or "\x00" in relative or "\\" in relative or relative.startswith("/"):
        return None
    parts = PurePosixPath(relative).parts
    if any(part in ("", ".", "..") for part in relative.split("/")) or not parts:
        return None
    top = root.resolve()
    current = top
    for part in parts:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return None
        if (mode & 0o170000) == 0o120000:  # a symbolic link: allowed only where it stays inside
            if not inside(current, top):
                return None
            current = current.resolve()
    if not inside(current, top) or not current.is_file():
        return None
    return current


__all__ = ["inside", "safe_file"]
