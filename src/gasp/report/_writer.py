"""Assemble a report: sections of tables and figures, written beside the HTML as CSV/PNG/SVG."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from gasp.report._figures import save_figure
from gasp.report._html import (
    Section,
    TableStyle,
    escape,
    figure_html,
    html_table,
    item_html,
    page_shell,
    slug,
)
from gasp.report._viewer import ViewerText
from gasp.results import AuditResults, TableLayout, replace_with

TABLES_DIR = "tables"
FIGURES_DIR = "figures"


def layout_style(layout: TableLayout) -> TableStyle:
    """The rendering of a table from its saved layout (word and share columns)."""
    return TableStyle(
        word_columns=layout.word_columns,
        share_columns=layout.share_columns,
        percent=layout.percent,
    )


class ReportWriter:
    """Collects sections of a report and writes the HTML, CSV tables and PNG/SVG figures.

    ``out_dir`` receives ``<filename>`` (the page), ``tables/<name>.csv`` for every
    table added and ``figures/<name>.png`` and ``.svg`` for every figure added.
    ``examples`` (the saved index of :func:`gasp.results.build_example_index`) makes
    the words in word columns clickable; ``max_rows`` limits the rows of a table shown in the page;
    ``viewer`` words the panel that shows the examples (the study's own labels).
    """

    def __init__(
        self,
        out_dir: str | Path,
        title: str,
        subtitle: str = "",
        examples: Mapping[str, Any] | None = None,
        max_rows: int = 1000,
        viewer: ViewerText | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.title = title
        self.subtitle = subtitle
        self.examples = examples
        self.max_rows = max_rows
        self.viewer = viewer
        words = examples.get("words", {}) if examples is not None else {}
        self.known_words: frozenset[str] = frozenset(words)
        self.sections: list[Section] = []
        self.tables_written: list[Path] = []
        self.figures_written: list[Path] = []
        self._names: set[str] = set()

    def section(self, title: str, intro: str = "") -> Section:
        """Start a new section and return it."""
        sec = Section(title=title, intro=intro)
        used = {s.ident for s in self.sections}
        base, i = sec.ident, 2
        while sec.ident in used:
            sec.ident = f"{base}-{i}"
            i += 1
        self.sections.append(sec)
        return sec

    def _unique(self, name: str) -> str:
        base = slug(name).replace("-", "_")
        out, i = base, 2
        while out in self._names:
            out = f"{base}_{i}"
            i += 1
        self._names.add(out)
        return out

    def table(
        self,
        section: Section,
        name: str,
        df: pd.DataFrame,
        title: str,
        explanation: str,
        style: TableStyle | None = None,
        collapsed: bool = False,
    ) -> Path:
        """Write ``df`` as ``tables/<name>.csv`` and add it (escaped) to ``section``.

        ``style`` names the word and share columns (none when not given). With
        ``collapsed`` the table is folded away behind a "show" toggle.
        """
        name = self._unique(name)
        folder = self.out_dir / TABLES_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.csv"
        replace_with(path, lambda tmp: df.to_csv(tmp, index=False))
        self.tables_written.append(path)
        style = replace(style or TableStyle(), max_rows=self.max_rows)
        body = html_table(df, style=style, known_words=self.known_words, table_id=f"t-{name}")
        if collapsed:
            body = (
                f'<details class="more"><summary>Show the table ({len(df)} rows)</summary>'
                f"{body}</details>"
            )
        body += (
            f'<p class="files">CSV: <a class="file" href="{TABLES_DIR}/{escape(name)}.csv">'
            f"{TABLES_DIR}/{escape(name)}.csv</a></p>"
        )
        section.add(item_html(title, explanation, body, ident=f"table-{name}"))
        return path

    def saved_table(
        self,
        section: Section,
        results: AuditResults,
        name: str,
        title: str,
        explanation: str,
        style: TableStyle | None = None,
        *,
        collapsed: bool = False,
        prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
        saved_layout: bool = False,
    ) -> Path | None:
        """:meth:`table` of the results' table ``name`` (``prepare`` applied first), with
        ``style`` or, with ``saved_layout``, the table's saved layout (its word and share
        columns); None, adding nothing, when the run did not save that table."""
        df = results.get(name)
        if df is None:
            return None
        if saved_layout:
            style = layout_style(results.layout(name))
        return self.table(
            section, name, prepare(df) if prepare else df, title, explanation, style, collapsed
        )

    def figure(
        self,
        section: Section,
        name: str,
        fig: Figure | None,
        title: str,
        explanation: str,
        caption: str = "",
    ) -> Path | None:
        """Save ``fig`` as ``figures/<name>.png`` and ``.svg`` and embed it in ``section``.

        Returns the PNG path, or None (adding nothing) when ``fig`` is None.
        """
        if fig is None:
            return None
        name = self._unique(name)
        folder = self.out_dir / FIGURES_DIR
        png = save_figure(fig, folder, name)
        self.figures_written.extend([folder / f"{name}.png", folder / f"{name}.svg"])
        links = {
            "PNG": f"{FIGURES_DIR}/{name}.png",
            "SVG": f"{FIGURES_DIR}/{name}.svg",
        }
        body = figure_html(png, alt=title, caption=caption or title, links=links)
        section.add(item_html(title, explanation, body, ident=f"figure-{name}"))
        return folder / f"{name}.png"

    def note(self, section: Section, text: str) -> None:
        """Add a plain-text note to ``section``."""
        section.add_paragraph(text, cls="note")

    def render(self) -> str:
        """The page as HTML text."""
        return page_shell(self.title, self.sections, self.subtitle, self.examples, self.viewer)

    def write(self, filename: str = "report.html") -> Path:
        """Write the page to ``out_dir/filename`` (atomically) and return its path."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / filename
        text = self.render()
        replace_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        self._remove_stale()
        return path

    def _remove_stale(self) -> None:
        """Delete tables and figures a previous rendering left that this one did not write."""
        written = {p.resolve() for p in (*self.tables_written, *self.figures_written)}
        for sub, suffixes in ((TABLES_DIR, {".csv"}), (FIGURES_DIR, {".png", ".svg"})):
            folder = self.out_dir / sub
            if not folder.is_dir():
                continue
            for file in folder.iterdir():
                if file.is_file() and file.suffix in suffixes and file.resolve() not in written:
                    file.unlink()
