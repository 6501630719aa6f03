"""The report: self-contained HTML pages rendered from saved results (it computes nothing).

The framework (:class:`ReportWriter`, :func:`page_shell`, :func:`html_table`,
:func:`figure_html`, the word browser fed by saved examples) serves any study; the
More of the Same audit section is :func:`render_audit_report`, the comparison of
models :func:`render_comparison_report`, the Probe's page :func:`probe_page`.
:func:`render_run_report` finds a run's saved results and renders them: the report
never opens a run store, never counts words and never associates genders.
"""

from gasp.report._audit_report import render_audit_report
from gasp.report._comparison_report import render_comparison_report
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
from gasp.report._options import REPORT_FILE, ReportOptions
from gasp.report._probe_page import ProbeView, probe_page
from gasp.report._run_report import (
    RunPaths,
    locate_run,
    render_run_report,
    run_folder_paths,
)
from gasp.report._sections import page_examples
from gasp.report._writer import ReportWriter, layout_style

__all__ = [
    "REPORT_FILE",
    "ProbeView",
    "ReportOptions",
    "ReportWriter",
    "RunPaths",
    "Section",
    "TableStyle",
    "colour_scale",
    "escape",
    "figure_html",
    "html_table",
    "item_html",
    "json_for_script",
    "key_value_table",
    "layout_style",
    "locate_run",
    "page_examples",
    "page_shell",
    "probe_page",
    "redact",
    "render_audit_report",
    "render_comparison_report",
    "render_run_report",
    "run_folder_paths",
    "save_figure",
]
