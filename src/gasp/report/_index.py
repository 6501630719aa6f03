"""An index page linking the reports of several runs (``gasp tour``).

The page is self-contained like every report: one table with a row per run, its
status, wall time, headline lines and a link to its report (relative to the index,
so the folder can be moved or archived as a whole).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from gasp.report._html import Section, escape, page_shell
from gasp.results import replace_with

#: File name of the index page.
INDEX_FILE = "index.html"


@dataclasses.dataclass(frozen=True)
class IndexEntry:
    """One run on the index page."""

    name: str
    description: str
    #: The run's report, or None when it has none (failed before the report step).
    report: Path | None
    #: "complete", "incomplete" (some step did not finish) or "failed".
    status: str
    seconds: float
    #: Headline lines of the run (plain text).
    lines: tuple[str, ...] = ()
    #: Why the run failed, when it did.
    error: str = ""


def _status_cell(entry: IndexEntry) -> str:
    text = escape(entry.status)
    if entry.error:
        text += f"<br><span class='note'>{escape(entry.error)}</span>"
    return text


def _row(entry: IndexEntry, index_dir: Path) -> str:
    if entry.report is not None:
        href = Path(os.path.relpath(entry.report, index_dir)).as_posix()
        link = f"<a href='{escape(href)}'>{escape(entry.name)}</a>"
    else:
        link = escape(entry.name)
    lines = "".join(f"<li>{escape(line)}</li>" for line in entry.lines)
    summary = f"<ul>{lines}</ul>" if lines else ""
    return (
        f"<tr><td>{link}</td><td>{escape(entry.description)}</td>"
        f"<td>{_status_cell(entry)}</td><td>{entry.seconds:.0f}&nbsp;s</td><td>{summary}</td></tr>"
    )


def write_index(
    entries: Sequence[IndexEntry], out_dir: str | Path, title: str, subtitle: str = ""
) -> Path:
    """Write the index page of ``entries`` to ``out_dir/index.html`` (atomically)."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    section = Section("Studies", ident="studies")
    section.add_paragraph(
        "Each row is one study run in this folder. Click its name to open its report; the "
        "lines beside it are the headline figures its analysis printed. A study that failed "
        "says why; run the same command again to resume it."
    )
    head = "<tr><th>study</th><th>what it measures</th><th>status</th><th>time</th>"
    head += "<th>headline</th></tr>"
    rows = "".join(_row(entry, folder.resolve()) for entry in entries)
    section.add(f"<table>{head}{rows}</table>")
    path = folder / INDEX_FILE
    text = page_shell(title, [section], subtitle)
    replace_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


__all__ = ["INDEX_FILE", "IndexEntry", "write_index"]
