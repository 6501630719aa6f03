"""A static copy of the browser's pages that opens from disk with no server.

Starting from the index, every page a page links to is written (paginated texts up to
:data:`MAX_PAGES` pages per list), with the scripts and each run's own report copied
beside them. Nothing is written inside the folders viewed: ``out`` may not lie in one.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from gasp.errors import ConfigError
from gasp.viewing._assets import ASSETS, asset_path
from gasp.viewing._paths import inside, safe_file
from gasp.viewing._site import Site

#: The most pages of one paginated list of texts an export holds.
MAX_PAGES = 10
_HREF = re.compile(r'href="([^"#?:]+)"')
_PAGE = re.compile(r"^(?:words|stories|job|pairs)-.*-([0-9]+)\.html$")


def export_site(folders: Sequence[str | Path], out: str | Path) -> Path:
    """Write the pages of the runs and audits under ``folders`` to ``out``; returns
    the path of its ``index.html``."""
    roots = [Path(f).resolve() for f in folders]
    target = Path(out).resolve()
    for root in roots:
        if inside(target, root):
            raise ConfigError(f"--export {out} lies inside {root}: gasp view never writes there")
    site = Site(roots, live=False)
    site.scan()
    (target / "static").mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        source = asset_path(name)
        if source is not None:
            shutil.copyfile(source, target / "static" / name)
    todo, done = list(site.page_names()), set()
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        if name.startswith("files/"):
            _copy_file(roots, name, target)
            continue
        numbered = _PAGE.search(name)
        if numbered and int(numbered.group(1)) > MAX_PAGES:
            continue
        html = site.render(name)
        if html is None:
            continue
        (target / name).write_text(html, encoding="utf-8")
        todo.extend(h for h in _HREF.findall(html) if h not in done and not h.startswith("static/"))
    return target / "index.html"


def _copy_file(roots: list[Path], name: str, target: Path) -> None:
    """Copy ``files/<root>/<path>`` (a run's report) and the figures beside it."""
    _, number, rel = name.split("/", 2)
    if not number.isdigit() or int(number) >= len(roots):
        return
    root = roots[int(number)]
    source = safe_file(root, rel)
    if source is None:
        return
    dest = target / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, dest)
    figures = source.parent / "figures"
    if figures.is_dir() and not figures.is_symlink():
        for figure in figures.iterdir():
            found = safe_file(root, f"{Path(rel).parent.as_posix()}/figures/{figure.name}")
            if found is not None:
                (dest.parent / "figures").mkdir(exist_ok=True)
                shutil.copyfile(found, dest.parent / "figures" / figure.name)


__all__ = ["MAX_PAGES", "export_site"]
