"""The audit report: one self-contained HTML file with CSV tables and PNG/SVG figures.

:func:`render_audit_report` renders one run, :func:`render_comparison_report` a
comparison of models. The building blocks (:class:`ReportWriter`, :func:`page_shell`,
:func:`html_table`, :func:`figure_html`, :func:`build_example_index`) let other
commands write reports of the same look with clickable words.
"""

from gasp.report._audit_report import REPORT_FILE, ReportOptions, render_audit_report
from gasp.report._comparison_report import render_comparison_report
from gasp.report._examples import EXAMPLE_GROUPS, build_example_index, split_cap, word_spans
from gasp.report._figures import save_figure
from gasp.report._html import (
    Section,
    TableStyle,
    colour_scale,
    escape,
    figure_html,
    html_table,
    item_html,
    json_for_script,
    key_value_table,
    page_shell,
    redact,
)
from gasp.report._writer import ReportWriter, collect_words, word_columns

__all__ = [
    "EXAMPLE_GROUPS",
    "REPORT_FILE",
    "ReportOptions",
    "ReportWriter",
    "Section",
    "TableStyle",
    "build_example_index",
    "collect_words",
    "colour_scale",
    "escape",
    "figure_html",
    "html_table",
    "item_html",
    "json_for_script",
    "key_value_table",
    "page_shell",
    "redact",
    "render_audit_report",
    "render_comparison_report",
    "save_figure",
    "split_cap",
    "word_columns",
    "word_spans",
]
