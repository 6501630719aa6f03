"""HTML pieces of the browser's pages: escaping, numbers, tables, the page around them.

Every value that comes from a run (model texts, names, prompts, folder names) goes
through :func:`esc`; model texts sit in ``<bdi>`` so a right-to-left override inside
one cannot reorder the page around it. Data for charts travels as JSON in
``<script type="application/json">`` with ``<``, ``>`` and ``&`` escaped.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

#: The stylesheet and scripts every page loads (relative, so an exported site works).
STATIC = "static"


def esc(value: Any) -> str:
    """``value`` as HTML text (None as blank)."""
    return "" if value is None else html.escape(str(value), quote=True)


def number(value: Any, digits: int = 3) -> str:
    """A number with ``digits`` significant digits; blank for None or NaN."""
    if value is None or isinstance(value, bool):
        return esc(value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        return esc(value)
    if not math.isfinite(x):
        return ""
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e6):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}" if abs(x) < 1 else f"{x:,.{max(digits - 1, 1)}f}"


def interval(low: Any, high: Any) -> str:
    """`` [low, high]`` or blank where the interval is missing."""
    if number(low) == "" or number(high) == "":
        return ""
    return f" [{number(low)}, {number(high)}]"


def marked(text: str, marks: Iterable[tuple[int, int]]) -> str:
    """``text`` escaped, with the spans ``marks`` in ``<mark>``, inside ``<bdi>``."""
    out, last = [], 0
    for start, end in sorted(marks):
        if start < last:
            continue
        out.append(esc(text[last:start]) + f"<mark>{esc(text[start:end])}</mark>")
        last = end
    out.append(esc(text[last:]))
    return f'<bdi class="text">{"".join(out)}</bdi>'


def json_script(element_id: str, data: Any) -> str:
    """``data`` as a JSON data block a script can read (never ends the script early)."""
    body = json.dumps(data, allow_nan=False, default=str)
    body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{esc(element_id)}">{body}</script>'


def table(
    columns: Sequence[str], rows: Iterable[Sequence[str]], *, attrs: str = "", row_attrs: Any = None
) -> str:
    """A table of already escaped cells; ``row_attrs(i)`` gives each row's attributes."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        extra = f" {row_attrs(i)}" if row_attrs is not None else ""
        body.append(f"<tr{extra}>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    return f"<table {attrs}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def link(href: str, text: str) -> str:
    """A link; ``href`` is a page name this package made, ``text`` is escaped."""
    return f'<a href="{esc(href)}">{esc(text)}</a>'


def pager(base: str, page: int, has_next: bool) -> str:
    """Previous and next links of a paginated page ``{base}-{n}.html``."""
    parts = []
    if page > 1:
        parts.append(link(f"{base}-{page - 1}.html", "← previous"))
    parts.append(f"<span>page {page}</span>")
    if has_next:
        parts.append(link(f"{base}-{page + 1}.html", "next →"))
    return f'<nav class="pager">{" · ".join(parts)}</nav>'


def document(title: str, body: str, *, charts: bool = False, live: bool = False) -> str:
    """A whole page: the title, the navigation, ``body``; Plotly only where ``charts``."""
    scripts = f'<script src="{STATIC}/plotly.min.js"></script>' if charts else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)}</title><link rel="icon" href="data:,">'
        f'<link rel="stylesheet" href="{STATIC}/view.css">{scripts}'
        f'<script src="{STATIC}/view.js" defer></script></head>'
        f'<body data-live="{"1" if live else "0"}"><header><a href="index.html">gasp view</a>'
        ' · <a href="releases.html">releases over time</a></header>'
        f"<main><h1>{esc(title)}</h1>{body}</main></body></html>\n"
    )


def error_box(message: str) -> str:
    """An error shown in the page (a damaged store, a half-written file)."""
    return f'<p class="error" role="alert">{esc(message)}</p>'


__all__ = [
    "STATIC",
    "document",
    "error_box",
    "esc",
    "interval",
    "json_script",
    "link",
    "marked",
    "number",
    "pager",
    "table",
]
