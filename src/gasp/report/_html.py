"""HTML building blocks of the report: escaped tables, embedded figures, the page shell.

Every report is one self-contained HTML file: the stylesheet and the script are
inline, figures are embedded as base64 PNG, and the example generations travel as
a JSON blob in a ``<script type="application/json">`` block. Model text is never
written into the page as markup: the script inserts it with ``textContent``. A
Content-Security-Policy allows no network access and runs only the page's own
script (by its SHA-256 hash), so injected markup could not execute even if it
reached the document.
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gasp.report._assets import REPORT_CSS, REPORT_JS
from gasp.report._viewer import ViewerText
from gasp.results import plain_text
from gasp.text import slug

# Keys whose values are never shown (manifests may carry backend options).
_SECRET_KEY = re.compile(
    r"(api[_-]?key|secret|token$|password|passwd|authorization|credential)", re.I
)


def escape(value: object) -> str:
    """``value`` as text safe inside HTML element content and quoted attributes."""
    return html.escape("" if value is None else str(value), quote=True)


def json_for_script(obj: Any) -> str:
    """``obj`` as JSON safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` (and the line separators U+2028/U+2029) are written as
    ``\\uXXXX`` escapes, so no text in the data can close the script element.
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def redact(value: Any) -> Any:
    """A copy of a nested mapping with every secret-looking key's value removed."""
    if isinstance(value, Mapping):
        return {
            str(k): ("[redacted]" if _SECRET_KEY.search(str(k)) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value


def format_value(value: object, digits: int = 4) -> str:
    """A table cell as text: floats rounded to ``digits`` significant digits, NaN blank."""
    if value is None:
        return ""
    if isinstance(value, float | np.floating):
        x = float(value)
        if math.isnan(x):
            return ""
        if x != 0 and (abs(x) < 10 ** -(digits - 1) or abs(x) >= 10**7):
            return f"{x:.{digits - 1}e}"
        return f"{x:.{digits}g}" if abs(x) >= 1 else f"{x:.{digits}f}".rstrip("0").rstrip(".")
    if isinstance(value, np.integer):
        return str(int(value))
    return plain_text(value)


def colour_scale(share: float) -> str:
    """Background colour for a share in [0, 1]: dark blue (0) through teal to green (1)."""
    if share is None or not math.isfinite(share):
        return "#eeeeee"
    t = min(max(float(share), 0.0), 1.0)
    stops = [(0.0, (23, 42, 107)), (0.5, (33, 145, 140)), (1.0, (94, 201, 98))]
    for (t0, c0), (t1, c1) in itertools.pairwise(stops):
        if t <= t1:
            u = (t - t0) / (t1 - t0)
            rgb = tuple(round(a + (b - a) * u) for a, b in zip(c0, c1, strict=True))
            return "#{:02x}{:02x}{:02x}".format(*rgb)
    return "#5ec962"


def word_button(word: str, cls: str = "") -> str:
    """A clickable word that opens its example generations (``cls``: extra CSS classes)."""
    w = escape(word)
    extra = f" {escape(cls)}" if cls else ""
    return f'<button type="button" class="w{extra}" data-word="{w}">{w}</button>'


def _word_cell(value: object, known_words: frozenset[str] | None) -> str:
    text = format_value(value)
    if not text:
        return ""
    parts = [p.strip() for p in re.split(r"[,;]", text)] if ("," in text or ";" in text) else [text]
    out = []
    for part in parts:
        key = part.lower()
        if part and (known_words is None or key in known_words):
            out.append(word_button(key))
        else:
            out.append(escape(part))
    return ", ".join(out)


@dataclass(frozen=True)
class TableStyle:
    """How :func:`html_table` renders some columns.

    ``word_columns`` hold a word or a comma-separated list of words: each word that
    has example generations becomes a button; ``share_columns`` hold shares in
    [0, 1] (or percentages in [0, 100] when ``percent``) coloured on the scale of
    :func:`colour_scale`.
    """

    word_columns: Sequence[str] = ()
    share_columns: Sequence[str] = ()
    percent: bool = False
    max_rows: int = 1000
    #: What an empty table says instead (why it is empty, what fills it).
    empty: str = "This table is empty for this run."


def html_table(
    df: pd.DataFrame,
    style: TableStyle | None = None,
    known_words: Iterable[str] | None = None,
    table_id: str | None = None,
) -> str:
    """``df`` as an escaped, sortable HTML table (the first ``style.max_rows`` rows).

    Every header and cell is escaped. Columns named in ``style.word_columns`` link
    their words to the example generations (only words in ``known_words`` when it
    is given).
    """
    style = style or TableStyle()
    if df is None or df.empty:
        return f'<p class="empty">{escape(style.empty)}</p>'
    words = frozenset(w.lower() for w in known_words) if known_words is not None else None
    shown = df.head(style.max_rows)
    cols = list(shown.columns)
    word_cols = {c for c in style.word_columns if c in cols}
    share_cols = {c for c in style.share_columns if c in cols}
    numeric = {c for c in cols if pd.api.types.is_numeric_dtype(shown[c])}
    head = "".join(
        f'<th scope="col" class="{"num" if c in numeric else "txt"}">{escape(c)}</th>' for c in cols
    )
    rows = []
    for record in shown.itertuples(index=False, name=None):
        cells = []
        for c, v in zip(cols, record, strict=True):
            if c in word_cols:
                cells.append(f'<td class="words">{_word_cell(v, words)}</td>')
            elif c in share_cols:
                x = float(v) if isinstance(v, int | float | np.number) else float("nan")
                share = x / 100.0 if style.percent else x
                colour = colour_scale(share)
                fg = "#ffffff" if math.isfinite(share) and share < 0.75 else "#111111"
                cells.append(
                    f'<td class="num" style="background:{colour};color:{fg}">'
                    f"{escape(format_value(v))}</td>"
                )
            else:
                text = format_value(v)
                cls = "num" if c in numeric else ("txt long" if len(text) > 40 else "txt")
                cells.append(f'<td class="{cls}">{escape(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    more = ""
    if len(df) > len(shown):
        more = (
            f'<p class="note">Showing the first {len(shown)} of {len(df)} rows; '
            "the CSV file holds them all.</p>"
        )
    ident = f' id="{escape(table_id)}"' if table_id else ""
    return (
        f'<div class="table-wrap"><table class="data sortable"{ident}>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>{more}"
    )


def key_value_table(items: Mapping[str, Any]) -> str:
    """A two-column table of ``items`` (nested values as indented JSON); secrets redacted."""
    rows = []
    for key, value in redact(dict(items)).items():
        if isinstance(value, Mapping | list):
            shown = f"<pre>{escape(json.dumps(value, indent=2, default=str))}</pre>"
        else:
            shown = escape(format_value(value))
        rows.append(f'<tr><th scope="row">{escape(key)}</th><td>{shown}</td></tr>')
    if not rows:
        return '<p class="empty">Nothing recorded.</p>'
    return f'<div class="table-wrap"><table class="kv">{"".join(rows)}</table></div>'


def figure_html(png: bytes, alt: str, caption: str, links: Mapping[str, str] | None = None) -> str:
    """A ``<figure>`` embedding ``png`` as a data URL, with a caption and file links."""
    data = base64.b64encode(png).decode("ascii")
    link_html = ""
    if links:
        link_html = " ".join(
            f'<a class="file" href="{escape(href)}">{escape(label)}</a>'
            for label, href in links.items()
        )
        link_html = f'<span class="files">Files: {link_html}</span>'
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{escape(alt)}">'
        f"<figcaption>{escape(caption)} {link_html}</figcaption></figure>"
    )


@dataclass
class Section:
    """One titled part of a report: an explanation and blocks of HTML."""

    title: str
    intro: str = ""
    blocks: list[str] = field(default_factory=list)
    ident: str = ""

    def __post_init__(self) -> None:
        if not self.ident:
            self.ident = slug(self.title)

    def add(self, block_html: str) -> None:
        """Append trusted, already-escaped HTML."""
        self.blocks.append(block_html)

    def add_paragraph(self, text: str, cls: str = "") -> None:
        """Append a paragraph of plain text (escaped)."""
        attr = f' class="{escape(cls)}"' if cls else ""
        self.blocks.append(f"<p{attr}>{escape(text)}</p>")

    def render(self) -> str:
        """The section as HTML."""
        intro = f'<p class="intro">{escape(self.intro)}</p>' if self.intro else ""
        return (
            f'<section id="{escape(self.ident)}"><h2>{escape(self.title)}</h2>{intro}'
            + "".join(self.blocks)
            + "</section>"
        )


def item_html(title: str, explanation: str, body: str, ident: str = "") -> str:
    """A titled table or figure block: heading, the reading guide, then ``body``."""
    anchor = f' id="{escape(ident)}"' if ident else ""
    return (
        f'<div class="item"{anchor}><h3>{escape(title)}</h3>'
        f'<p class="how">{escape(explanation)}</p>{body}</div>'
    )


def script_hash(script: str) -> str:
    """The CSP source expression allowing exactly ``script`` to run."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def page_shell(
    title: str,
    sections: Sequence[Section],
    subtitle: str = "",
    examples: Mapping[str, Any] | None = None,
    viewer: ViewerText | None = None,
) -> str:
    """The complete, self-contained HTML page of ``sections``.

    ``examples`` is the word-to-generations index of
    :func:`gasp.results.build_example_index` (embedded as JSON; words in tables
    open it); ``viewer`` is the wording of the panel that shows them (the defaults of
    :class:`ViewerText` when not given), embedded with them under the key ``viewer``.
    The page loads nothing from anywhere.
    """
    viewer = viewer or ViewerText()
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src {script_hash(REPORT_JS)}; base-uri 'none'; form-action 'none'"
    )
    nav = "".join(f'<li><a href="#{escape(s.ident)}">{escape(s.title)}</a></li>' for s in sections)
    body = "".join(s.render() for s in sections)
    blob = dict(examples) if examples is not None else {"docs": [], "words": {}}
    data = json_for_script(blob | {"viewer": viewer.to_json()})
    sub = f'<p class="subtitle">{escape(subtitle)}</p>' if subtitle else ""
    has_words = examples is not None and bool(examples.get("words"))
    lookup_attr = "" if has_words and viewer.lookup else " hidden"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{REPORT_CSS}</style></head>"
        f"<body><header><h1>{escape(title)}</h1>{sub}"
        f'<div class="lookup"{lookup_attr}><label>{escape(viewer.lookup)} '
        '<input id="word-lookup" type="search" autocomplete="off" '
        f'placeholder="{escape(viewer.lookup_placeholder)}"></label>'
        f'<button type="button" id="word-lookup-go">{escape(viewer.lookup_button)}</button></div>'
        f"<nav><ul>{nav}</ul></nav></header><main>{body}</main>"
        '<aside id="examples" hidden aria-live="polite"><div class="panel-head">'
        '<h2 id="ex-title">Example generations</h2>'
        '<button type="button" id="ex-close" aria-label="Close">×</button></div>'
        '<p id="ex-summary"></p><div id="ex-tabs" role="tablist"></div>'
        '<ol id="ex-list"></ol><div id="ex-pager"></div></aside>'
        f'<script type="application/json" id="gasp-examples">{data}</script>'
        f"<script>{REPORT_JS}</script></body></html>\n"
    )
