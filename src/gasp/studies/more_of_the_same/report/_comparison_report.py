"""The report of a comparison of runs (models): Figure 4, Table 14 and the compared tables."""

from __future__ import annotations

from pathlib import Path

from gasp.report import ReportOptions, ReportWriter, add_other_tables, key_value_table
from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import MODEL_COMPARISON, PERCENT_CHANGE
from gasp.studies.more_of_the_same.report._audit_probe import add_comparison_items

_INTRO = (
    "This report compares audits of two or more models run on the same study. For every "
    "occupation and associated gender the Subset Representational Bias (SRB) score measures "
    "whether generations that name no gender are described like generations naming women "
    "(negative) or men (positive); here those scores are compared between models. Every "
    "table is also saved as CSV and every figure as PNG and SVG next to this file."
)


def render_comparison_report(
    results: AuditResults, out_dir: str | Path, options: ReportOptions | None = None
) -> Path:
    """Write the report of a comparison (:func:`~.analysis.compare_runs`) into ``out_dir``.

    Renders Figure 4 (percent change of SRB) and Table 14 (Welch tests between models)
    when present, then every other table of ``results`` generically, then the
    comparison's metadata. Returns the path of the HTML file.
    """
    opts = options or ReportOptions()
    models = results.meta.get("models") or results.meta.get("runs") or []
    names = ", ".join(str(m) for m in models) if isinstance(models, list) else str(models)
    title = "GAS(P) comparison of models" + (f": {names}" if names else "")
    writer = ReportWriter(out_dir, title, max_rows=opts.max_rows)
    writer.section("About this report", _INTRO)
    sec = writer.section(
        "Change between models",
        "How the SRB scores of each occupation moved from one model to the other, and whether "
        "the difference across occupations is statistically significant.",
    )
    add_comparison_items(writer, results, sec)
    if results.get(PERCENT_CHANGE) is None and results.get(MODEL_COMPARISON) is None:
        writer.note(sec, "The comparison produced neither Figure 4 nor Table 14 data.")
    add_other_tables(writer, results, {PERCENT_CHANGE, MODEL_COMPARISON})
    meta = writer.section("Comparison settings", "The runs compared and the settings used.")
    meta.add(key_value_table(results.meta))
    return writer.write(opts.filename)
