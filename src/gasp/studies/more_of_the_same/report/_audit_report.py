"""The report of one run of More of the Same: who is represented, how, what it means.

:func:`render_audit_report` renders a saved :class:`~gasp.results.AuditResults` into
one self-contained HTML file with every table as CSV and every figure as PNG and SVG
beside it. It reads only the results: the tables as the analysis wrote them (a
table the analysis did not produce is simply absent), the settings that word its
rules, the layouts that name word and share columns, the example generations the
analysis selected and the run manifest it saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gasp.report import ReportOptions, ReportWriter, add_manifest, add_other_tables, page_examples
from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import (
    ASSOCIATION_ACCURACY,
    CAPTURE_RATE,
    CHANCE,
    DECILES,
    EXCLUDED,
    MARKED_WORDS,
    MARKED_WORDS_BY_GROUP,
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
    REPRESENTATION,
    SAMPLE_ASSOCIATIONS,
    SRB_PAIRED,
    SRB_SCORES,
    SRB_TEST,
    WORD_TABLES,
)
from gasp.studies.more_of_the_same.report._audit_how import add_how_section
from gasp.studies.more_of_the_same.report._audit_probe import (
    add_comparison_items,
    add_probe_section,
)
from gasp.studies.more_of_the_same.report._audit_who import add_association_table, add_who_section

_INTRO = (
    "This report audits the text a language model generated for the study below, "
    "following the GAS(P) method of Mickel et al. (More of the Same): Generate texts with "
    "and without naming a gender, Associate each text whose prompt names no gender with "
    "the gender its pronouns and titles point to, run Statistical tests of how the groups "
    "are described, and Probe what the differences mean. Words in tables are buttons: "
    "click one (or type it in the box at the top) to read the generations that contain "
    "it, with the word highlighted, split by the gender named in the prompt or, where "
    "none was named, by the associated gender. Every table is also saved as CSV and "
    "every figure as PNG and SVG next to this file."
)

_RENDERED = {
    REPRESENTATION,
    DECILES,
    CAPTURE_RATE,
    ASSOCIATION_ACCURACY,
    SAMPLE_ASSOCIATIONS,
    MARKED_WORDS,
    MARKED_WORDS_BY_GROUP,
    SRB_PAIRED,
    SRB_SCORES,
    SRB_TEST,
    WORD_TABLES,
    EXCLUDED,
    CHANCE,
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
}


def _title(results: AuditResults, manifest: Mapping[str, Any] | None) -> tuple[str, str]:
    meta = dict(results.meta)
    man = dict(manifest or {})
    study = man.get("study")
    study_name = (
        (study.get("name") if isinstance(study, Mapping) else study) or meta.get("study") or "audit"
    )
    model = man.get("model") or meta.get("model_id") or meta.get("model") or ""
    if isinstance(model, Mapping):
        model = model.get("model_id") or model.get("name") or model.get("spec") or ""
    title = f"GAS(P) audit: {study_name}" + (f" on {model}" if model else "")
    bits = []
    for key in ("run_id", "created_at", "created"):
        value = man.get(key) or meta.get(key)
        if value:
            bits.append(f"{key.replace('_', ' ')}: {value}")
    return title, " · ".join(bits)


def render_audit_report(
    results: AuditResults,
    out_dir: str | Path,
    manifest: Mapping[str, Any] | None = None,
    options: ReportOptions | None = None,
) -> Path:
    """Write the report of one run into ``out_dir`` and return the path of the HTML file.

    ``manifest`` overrides the manifest saved with the results (``meta["manifest"]``);
    without either the manifest section says so. Without saved examples words are not
    clickable. Missing tables are left out of the page.
    """
    opts = options or ReportOptions()
    if manifest is None:
        saved = results.meta.get("manifest")
        manifest = saved if isinstance(saved, Mapping) else None
    examples = page_examples(results, opts)
    title, subtitle = _title(results, manifest)
    writer = ReportWriter(out_dir, title, subtitle, examples, max_rows=opts.max_rows)
    intro = writer.section("About this report", _INTRO)
    if examples is None:
        intro.add_paragraph(
            "No example generations were saved with these results, so words cannot be opened.",
            cls="note",
        )
    add_who_section(writer, results)
    add_association_table(writer, results)
    add_how_section(writer, results)
    add_probe_section(writer, results)
    if results.get(PERCENT_CHANGE) is not None or results.get(MODEL_COMPARISON) is not None:
        add_comparison_items(writer, results, writer.section("Comparison of models"))
    add_other_tables(writer, results, set(_RENDERED))
    add_manifest(writer, results, manifest)
    return writer.write(opts.filename)
