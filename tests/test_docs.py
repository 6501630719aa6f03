"""The documentation: the README is a short front door that links every page of ``docs/``,
names every package of ``src/gasp`` in its table, and the pages build strictly as an
MkDocs site (a broken link, a missing anchor or a page left out of the navigation fails)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "gasp"

#: The README stays something a newcomer reads in five minutes.
README_MAX_LINES = 150

#: The two commands of the quick start, exactly as a newcomer types them.
TOUR_COMMAND = "scripts/setup.sh && .venv/bin/gasp tour --out runs/tour"
TEST_COMMAND = "scripts/setup.sh --dev && .venv/bin/python -m pytest -q -n auto --dist loadfile"


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _pages() -> set[str]:
    return {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}


def _linked_pages(markdown: str) -> set[str]:
    """The docs pages a README text links, ``docs/x.md`` or ``docs/x.md#anchor``."""
    return set(re.findall(r"\]\(docs/([^)#\s]+\.md)(?:#[^)\s]*)?\)", markdown))


def _table_rows(markdown: str) -> dict[str, str]:
    """Every ``gasp.x`` named in the first cell of a row of the README's package table,
    with the layer its second cell gives."""
    section = markdown.split("## How it is organised", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("| `gasp."):
            cells = line.split("|")
            for name in re.findall(r"`(gasp(?:\.\w+)+)`", cells[1]):
                rows[name] = cells[2].strip()
    return rows


def _architecture_layers() -> dict[str, str]:
    """The layer of each package, as ``tests/test_architecture.py`` declares them."""
    spec = importlib.util.spec_from_file_location(
        "_architecture_rules", ROOT / "tests" / "test_architecture.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: layer for layer, names in module.LAYERS for name in names}


def _source_packages() -> set[str]:
    """Every package under ``src/gasp`` one level down, and every study package."""
    found = {
        f"gasp.{p.parent.name}"
        for p in SRC.glob("*/__init__.py")
        if not p.parent.name.startswith("_")
    }
    found |= {
        f"gasp.studies.{p.parent.name}"
        for p in (SRC / "studies").glob("*/__init__.py")
        if not p.parent.name.startswith("_")
    }
    return found


def _nav_pages(nav: object) -> set[str]:
    if isinstance(nav, str):
        return {nav} if nav.endswith(".md") else set()
    if isinstance(nav, list):
        return set().union(*(_nav_pages(entry) for entry in nav)) if nav else set()
    if isinstance(nav, dict):
        return set().union(*(_nav_pages(value) for value in nav.values())) if nav else set()
    return set()


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    text = _readme()
    assert len(text.splitlines()) <= README_MAX_LINES
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    commands = [block.strip() for block in blocks]
    assert TOUR_COMMAND in commands
    assert TEST_COMMAND in commands


def test_readme_links_every_docs_page() -> None:
    pages = _pages()
    assert "index.md" in pages and len(pages) >= 10
    assert pages - _linked_pages(_readme()) == set()


def test_link_finder_notices_a_page_left_out() -> None:
    text = "see [a](docs/a.md) and [b](docs/b.md#part), not docs/c.md"
    assert _linked_pages(text) == {"a.md", "b.md"}
    assert {"a.md", "b.md", "c.md"} - _linked_pages(text) == {"c.md"}


def test_readme_links_resolve() -> None:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _readme()):
        if re.match(r"[a-z]+://", target) or target.startswith("#"):
            continue
        if not (ROOT / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert broken == []


def test_readme_package_table_names_every_package() -> None:
    listed = set(_table_rows(_readme()))
    present = _source_packages()
    assert {"gasp.auditing", "gasp.interop", "gasp.io"} <= present
    assert len(present) >= 20
    assert present - listed == set(), "packages missing from the README's table"
    assert listed - present == set(), "the README's table names packages that do not exist"


def test_readme_package_table_gives_the_architecture_layers() -> None:
    layers = _architecture_layers()
    wrong = {}
    for name, layer in _table_rows(_readme()).items():
        top = name.split(".")[1]
        if layers.get(top) != layer:
            wrong[name] = (layer, layers.get(top))
    assert wrong == {}, "README layer != tests/test_architecture.py layer"


def test_mkdocs_navigation_lists_every_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["validation"]["nav"]["omitted_files"] == "warn"
    assert config["validation"]["links"]["not_found"] == "warn"
    assert _nav_pages(config["nav"]) == _pages()


def test_docs_build_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (scripts/setup.sh --dev installs it)")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
