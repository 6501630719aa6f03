"""One page per run (paired test or narratives) or per comparison of paired-test runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gasp.report import ReportOptions, ReportWriter, add_manifest, add_other_tables, page_examples
from gasp.results import AuditResults
from gasp.studies.pronoun_pairs._narrative_analysis import (
    REASONS,
    SHARES,
    STORIES,
    TABLE4,
    TOP_NAMES,
)
from gasp.studies.pronoun_pairs._narrative_compare import COMPARE_SHARES, COMPARE_TESTS
from gasp.studies.pronoun_pairs._pairs_analysis import (
    ANSWERS,
    MCNEMAR,
    MODELS,
    PROFESSIONS,
    TABLE3,
    TRIPLES,
)
from gasp.studies.pronoun_pairs._study import NARRATIVES_KIND
from gasp.studies.pronoun_pairs.report._common import NARRATIVE_VIEWER, PAIRS_VIEWER
from gasp.studies.pronoun_pairs.report._comparison import add_comparison
from gasp.studies.pronoun_pairs.report._narrative_compare import add_narrative_comparison
from gasp.studies.pronoun_pairs.report._narratives import add_narrative_section
from gasp.studies.pronoun_pairs.report._pairs import add_pairs_section

_ABOUT = (
    'This report follows Marin and Eger, "Towards Evaluating Profession-based Gender Bias in '
    'ChatGPT and its Impact on Narrative Generation" (2024). It is rendered from the saved '
    "results only; every table is also saved as CSV and every figure as PNG and SVG next to "
    "this file."
)
_BUTTONS = (
    " Numbers in the tables are buttons: click one to read the texts behind it (model text "
    "is shown as plain text)."
)
_NO_TEXTS = (
    " This comparison holds no texts; each run's own report opens the texts behind its numbers."
)
_DONE = {TABLE3, PROFESSIONS, TABLE4, SHARES, TOP_NAMES, REASONS, MODELS, MCNEMAR}
_DONE |= {COMPARE_SHARES, COMPARE_TESTS}
_RAW = {ANSWERS, TRIPLES, STORIES}


def render(results: AuditResults, out: str | Path, options: ReportOptions | None = None) -> Path:
    """Write the page for ``results`` into ``out``; the HTML file's path."""
    opts = options or ReportOptions()
    kind = results.meta.get("study_kind")
    model = str(results.meta.get("model_id") or "")
    comparison = results.meta.get("kind") == "comparison"
    if comparison and kind == NARRATIVES_KIND:
        title = "Narrative names: comparison of runs"
    elif comparison:
        title = "Paired pronoun prompts: comparison of runs"
    elif kind == NARRATIVES_KIND:
        title = "Narrative names" + (f" on {model}" if model else "")
    else:
        title = "Paired pronoun prompts" + (f" on {model}" if model else "")
    examples = page_examples(results, opts)
    viewer = NARRATIVE_VIEWER if kind == NARRATIVES_KIND else PAIRS_VIEWER
    writer = ReportWriter(out, title, "", examples, max_rows=opts.max_rows, viewer=viewer)
    about = _ABOUT + (_BUTTONS if writer.known_words else _NO_TEXTS if comparison else "")
    writer.section("About this report", about)
    if comparison and kind == NARRATIVES_KIND:
        add_narrative_comparison(writer, results)
    elif comparison:
        add_comparison(writer, results)
    elif kind == NARRATIVES_KIND:
        add_narrative_section(writer, results)
    else:
        add_pairs_section(writer, results)
    raw = writer.section(
        "All answers", "Every parsed answer, triple or story as saved with the results."
    )
    for name in sorted(_RAW & set(results.tables)):
        table: pd.DataFrame = results[name]
        writer.table(
            raw,
            name,
            table,
            name.replace("_", " ").capitalize(),
            "One row per unit, with the model's text.",
            collapsed=True,
        )
    if not raw.blocks:
        writer.sections.remove(raw)
    add_other_tables(writer, results, _DONE | _RAW)
    manifest = results.meta.get("manifest")
    add_manifest(writer, results, manifest if isinstance(manifest, dict) else None)
    return writer.write(opts.filename)
