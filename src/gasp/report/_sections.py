"""Parts of a report that any study's results have: examples, other tables, settings, manifest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gasp.report._html import escape, key_value_table
from gasp.report._options import ReportOptions
from gasp.report._writer import ReportWriter
from gasp.results import INCOMPLETE_KEY, AuditResults, trim_examples

#: Keys of ``AuditResults.meta`` shown elsewhere in the page (or not meant for readers).
_HIDDEN_META = frozenset({"manifest", "manifests", "layouts", INCOMPLETE_KEY})


def page_examples(results: AuditResults, options: ReportOptions) -> dict[str, Any] | None:
    """The saved examples as embedded in the page: at most ``examples_per_word`` per word."""
    if results.examples is None:
        return None
    index = trim_examples(results.examples, options.examples_per_word, options.per_page)
    index.pop("sample_ids", None)  # the page shows texts; the ids stay in examples.json
    return index


def add_other_tables(writer: ReportWriter, results: AuditResults, done: set[str]) -> None:
    """Every table of ``results`` not in ``done``, rendered with its saved layout."""
    rest = [name for name in sorted(results.tables) if name not in done]
    if not rest:
        return
    sec = writer.section("Other tables", "Further tables the analysis produced, as written.")
    for name in rest:
        title = name.replace("_", " ").capitalize()
        explanation = "A table of this run's results; see the CSV for every row."
        writer.saved_table(sec, results, name, title, explanation, saved_layout=True)


def add_incomplete_note(writer: ReportWriter, results: AuditResults) -> None:
    """Open the page with the saved sentence saying the run was incomplete when analysed
    (nothing when it was complete)."""
    sentence = results.meta.get(INCOMPLETE_KEY)
    if not sentence or any(s.ident == "incomplete-run" for s in writer.sections):
        return
    sec = writer.section("Incomplete run")
    sec.ident = "incomplete-run"
    sec.add_paragraph(str(sentence), cls="note")
    writer.sections.remove(sec)
    writer.sections.insert(0, sec)


def add_manifest(
    writer: ReportWriter, results: AuditResults, manifest: Mapping[str, Any] | None
) -> None:
    """The run manifest and the analysis settings, as saved.

    A comparison has no manifest of its own: where ``manifest`` is None and the results
    saved ``meta["manifests"]`` (the manifest of every compared run, by its label), each
    is shown under its label, with the run's path from ``meta["runs"]``. When the results
    cover part of a run still being generated, a note saying so opens the page.
    """
    add_incomplete_note(writer, results)
    runs = results.meta.get("manifests")
    compared = manifest is None and isinstance(runs, Mapping) and bool(runs)
    sec = writer.section(
        "Run manifests" if compared else "Run manifest",
        ("What produced each compared run: " if compared else "What produced these results: ")
        + "the model, its decoding settings, the seed, the study "
        "and the package versions, so the run can be reproduced. Secrets such as API keys "
        "are never recorded here.",
    )
    if manifest:
        sec.add(key_value_table(manifest))
    elif compared and isinstance(runs, Mapping):
        paths = results.meta.get("runs")
        paths = list(paths) if isinstance(paths, list) else []
        for i, (label, saved) in enumerate(runs.items()):
            where = f" ({paths[i]})" if i < len(paths) else ""
            sec.add(f"<h3>{escape(str(label))}{escape(where)}</h3>")
            if isinstance(saved, Mapping) and saved:
                sec.add(key_value_table(saved))
            else:
                sec.add_paragraph("This run saved no manifest.", cls="note")
    else:
        sec.add_paragraph("No run manifest was available.", cls="note")
    meta = {k: v for k, v in results.meta.items() if k not in _HIDDEN_META}
    if meta:
        sec.add("<h3>Analysis settings</h3>")
        sec.add(key_value_table(meta))
