""":func:`view`: every run and audit under some folders in a local, read-only browser."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gasp._api._keywords import require_bool, require_int, require_path, require_text
from gasp.errors import ArgumentTypeError


def view(
    folders: Sequence[str | Path] | str | Path = (".",),
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    open_browser: bool = True,
    export: str | Path | None = None,
) -> str:
    """Browse every run and audit found under ``folders`` in a local web page, as ``gasp
    view`` does: an index with live progress, each audit's scorecard, each metric over
    releases, and the texts behind each number. Nothing is ever written to the folders.

    With ``export`` the pages are written as a static site to that folder (it opens from
    disk with no server) and the path of its ``index.html`` is returned. Otherwise the
    pages are served on ``host``:``port`` (``port=0``: a free one) until interrupted, a
    browser opens unless ``open_browser=False``, and the address is returned when the
    server stops. A ``host`` other than 127.0.0.1 is warned about.

    Example:
        >>> import gasp
        >>> run = gasp.run("pronoun-pairs", "mock/personas", out=folder / "runs" / "pairs",
        ...                quick=True)
        >>> page = gasp.view([folder / "runs"], export=folder / "site")
        >>> page.endswith("index.html")
        True
    """
    fn = "gasp.view"
    given = [folders] if isinstance(folders, str | Path) else folders
    if not isinstance(given, Sequence):
        raise ArgumentTypeError(f"{fn}(): folders must be a folder or a list of folders")
    roots = [require_path(fn, "folders", f, optional=False, folder=False) for f in given]
    require_text(fn, "host", host)
    require_int(fn, "port", port, minimum=0, maximum=65535)
    require_bool(fn, "open_browser", open_browser)
    target = require_path(fn, "export", export)
    from gasp.viewing import view as serve

    return serve([r for r in roots if r is not None], host=host, port=port,
                 open_browser=open_browser, export=target)  # fmt: skip


__all__ = ["view"]
