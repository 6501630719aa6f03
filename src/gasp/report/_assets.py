"""The stylesheet and the script inlined in every report (package data in ``static/``).

The script reads the example index from the JSON block ``#gasp-examples`` and
renders the generations of a clicked word lazily, one page at a time. Model text
only ever reaches the document through ``textContent`` and text nodes.
"""

from __future__ import annotations

from importlib.resources import files


def _read(name: str) -> str:
    return files("gasp.report").joinpath("static", name).read_text(encoding="utf-8")


REPORT_CSS: str = _read("report.css")
REPORT_JS: str = _read("report.js")
