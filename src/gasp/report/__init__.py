"""The report: self-contained HTML pages rendered from saved results (it computes nothing).

The framework (:class:`ReportWriter`, :func:`page_shell`, :func:`html_table`,
:func:`figure_html`, :func:`save_figure`, the word browser fed by saved examples, the
sentences of :mod:`gasp.report.rules` that state a saved rule) serves every study; each
study builds its section with it from its saved results. The Probe's page is
:func:`probe_page`. The report never opens a run store, never counts words and never
associates genders.
"""

from gasp.report import rules
from gasp.report._figures import error_bars, new_figure, outside_legend, save_figure
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
    word_button,
)
from gasp.report._index import INDEX_FILE, IndexEntry, write_index
from gasp.report._options import REPORT_FILE, ReportOptions
from gasp.report._probe_page import ProbeView, probe_page
from gasp.report._sections import (
    add_incomplete_note,
    add_manifest,
    add_other_tables,
    page_examples,
)
from gasp.report._viewer import ViewerText
from gasp.report._writer import ReportWriter, layout_style

__all__ = [
    "INDEX_FILE",
    "REPORT_FILE",
    "IndexEntry",
    "ProbeView",
    "ReportOptions",
    "ReportWriter",
    "Section",
    "TableStyle",
    "ViewerText",
    "add_incomplete_note",
    "add_manifest",
    "add_other_tables",
    "colour_scale",
    "error_bars",
    "escape",
    "figure_html",
    "html_table",
    "item_html",
    "json_for_script",
    "key_value_table",
    "layout_style",
    "new_figure",
    "outside_legend",
    "page_examples",
    "page_shell",
    "probe_page",
    "redact",
    "rules",
    "save_figure",
    "word_button",
    "write_index",
]
