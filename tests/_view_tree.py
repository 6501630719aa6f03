"""A tree of saved runs and audits for the ``gasp view`` tests, made with mock models
once per test session: three audits of two models (narratives and pronoun pairs) in
time order, an OccuGender run, a run whose model writes hostile text, a truncated store,
half-written results, and links that lead out of the tree."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

import gasp

#: Model text that must show as text: a script, a script end, an event handler, an
#: element that would run one, and a right-to-left override.
HOSTILE = (
    "Rachel wrote <script>window.pwned = 1</script> then </script><img src=x "
    'onerror="window.pwned = 2"> and <b onmouseover="window.pwned = 3">bold</b> '
    "\u202eevil reversed\u202c she said."
)
#: The female share of model b in each release (a's stays 0.5).
RELEASES = (0.9, 0.7, 0.5)


@dataclass(frozen=True)
class Tree:
    """Where the fixture tree's parts are."""

    root: Path
    outside: Path
    audits: tuple[Path, ...]
    occugender: Path
    words: Path
    hostile: Path
    truncated: Path
    half_written: Path


def make_tree(base: Path) -> Tree:
    """Make the tree under ``base`` (``base/tree``, and ``base/outside`` beside it)."""
    root, outside = base / "tree", base / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.html").write_text("SECRET OUTSIDE", encoding="utf-8")
    audits = []
    for number, share in enumerate(RELEASES, start=1):
        folder = root / "releases" / f"release-{number}"
        gasp.audit(
            ["a=mock/personas", "b=mock/personas"],
            studies=["narratives", "pronoun-pairs"],
            baseline="a",
            out=folder,
            quick=True,
            model_options=[f"b:female_share={share}", f"b:seed={number}"],
        )
        audits.append(folder)
    occugender = root / "occugender"
    gasp.run("occugender", "mock/scoring", out=occugender, quick=True)
    words = root / "more-of-the-same"
    gasp.run("more-of-the-same", "mock/personas", out=words, quick=True)
    hostile = root / "hostile"
    gasp.run(
        "narratives", "mock/constant", out=hostile, quick=True, model_options={"text": HOSTILE}
    )
    truncated = root / "broken" / "truncated"
    truncated.mkdir(parents=True)
    store = (audits[0] / "a" / "narratives" / "run.sqlite").read_bytes()
    (truncated / "run.sqlite").write_bytes(store[: len(store) // 3])
    half = root / "broken" / "half-written"
    shutil.copytree(audits[0] / "a" / "pronoun-pairs", half)
    index = (half / "results" / "results.json").read_text(encoding="utf-8")
    (half / "results" / "results.json").write_text(index[: len(index) // 2], encoding="utf-8")
    os.symlink(outside, root / "escape")
    os.symlink(outside / "secret.html", audits[0] / "a" / "narratives" / "report" / "leak.html")
    os.mkfifo(outside / "pipe")
    os.symlink(outside / "pipe", audits[0] / "a" / "narratives" / "report" / "pipe.html")
    return Tree(root, outside, tuple(audits), occugender, words, hostile, truncated, half)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` (links not followed) with its size and modification time."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            stat = os.lstat(Path(dirpath) / name)
            out[str(Path(dirpath, name).relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return out


@pytest.fixture(scope="session")
def view_tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """The tree, made once per test session."""
    return make_tree(tmp_path_factory.mktemp("view"))
