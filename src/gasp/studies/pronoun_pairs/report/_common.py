"""Tables whose every number opens its texts, and the page frame of both studies."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from gasp.report import ReportWriter, Section, ViewerText, escape, item_html

#: The viewer's labels both studies leave out: no associated group, no look-up box (a
#: number, not a word, opens the texts).
_NOT_SHOWN = dict.fromkeys(
    ("not_named", "associated", "not_associated", "lookup", "lookup_placeholder"), ""
)
#: The text viewer of the paired test: a number opens the answers (or triples) it counts.
PAIRS_VIEWER = ViewerText(
    title="Texts behind \u201c{key}\u201d",
    summary="The answers this number counts, by the pronoun of the prompt, or the triples it "
    "counts with their he | she | they answers. Counts are all texts behind the number; up "
    "to {cap} are kept per number, shared among the groups, {per_page} per page.",
    missing="No texts are saved for this number.",
    named="pronoun",
    lookup_button="Show texts",
    **_NOT_SHOWN,
)
#: The text viewer of the narrative test: a number opens the stories it counts (the line
#: above a story names the protagonist and the gender of the name; the tabs group by it).
NARRATIVE_VIEWER = ViewerText(
    title="Stories behind \u201c{key}\u201d",
    summary="The stories this number counts, by the gender of the protagonist's name (F: "
    "female, M: male, U: unknown or no name). Counts are all stories behind the number; up "
    "to {cap} are kept per number, shared among the groups, {per_page} per page.",
    missing="No stories are saved for this number.",
    template="opening",
    named="",
    lookup_button="Show stories",
    **_NOT_SHOWN,
)

#: A cell of a clickable table: the text shown and the key of its texts (None: plain).
Cell = tuple[str, str | None]


def pct(value: Any, digits: int = 1) -> str:
    """A share in [0, 1] as a percentage ("" when missing)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return ""
    return "" if math.isnan(x) else f"{100 * x:.{digits}f}%"


def pct_ci(row: Mapping[str, Any], key: str) -> str:
    """``key`` of ``row`` as a percentage with its interval ``key_low``-``key_high``."""
    text = pct(row.get(key))
    low, high = pct(row.get(f"{key}_low")), pct(row.get(f"{key}_high"))
    return f"{text} ({low}–{high})" if text and low and high else text


def button(label: str, key: str) -> str:
    """A number that opens the texts saved under ``key`` (both escaped)."""
    return f'<button type="button" class="w" data-word="{escape(key)}">{escape(label)}</button>'


def clickable_table(
    columns: Sequence[str], rows: Sequence[Sequence[Cell]], known: frozenset[str]
) -> str:
    """An escaped, sortable table; a cell whose key has saved texts is a button."""
    head = "".join(f'<th scope="col">{escape(c)}</th>' for c in columns)
    body = []
    for row in rows:
        cells = []
        for label, key in row:
            inner = button(label, key) if key is not None and key in known else escape(label)
            cells.append(f"<td>{inner}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="table-wrap"><table class="data sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def add_clickable(
    writer: ReportWriter,
    section: Section,
    *,
    name: str,
    title: str,
    explanation: str,
    shown: tuple[Sequence[str], Sequence[Sequence[Cell]]],
    data: pd.DataFrame,
) -> None:
    """The clickable table ``shown`` (columns, rows), then ``data`` (the numbers with every
    column, folded away) written as ``tables/<name>.csv``."""
    columns, rows = shown
    section.add(item_html(title, explanation, clickable_table(columns, rows, writer.known_words)))
    writer.table(
        section,
        name,
        data,
        f"{title}: every column",
        "The table as saved (shares from 0 to 1, interval bounds in their own columns).",
        collapsed=True,
    )


def cells(
    values: Sequence[Any], fmt: Callable[[Any], str], keys: Sequence[str | None]
) -> list[Cell]:
    """Cells of ``values`` formatted by ``fmt`` with their keys."""
    return [(fmt(v), k) for v, k in zip(values, keys, strict=True)]
