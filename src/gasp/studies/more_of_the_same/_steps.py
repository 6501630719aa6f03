"""The analysis, probe, report and comparison steps of More of the Same, as the command
line runs them (options by name, None meaning the study's default)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.errors import DataError
from gasp.studies import reject_options

#: Analysis options this study reads.
ANALYSIS_OPTIONS = {
    "min_samples",
    "min_share",
    "per_template",
    "fdr",
    "plain",
    "embeddings",
    "bootstrap",
    "permutations",
    "seed",
}


def analysis_config(manifest: Mapping[str, Any], options: Mapping[str, Any]) -> Any:
    """The analysis settings of a run: the options given, else the study's defaults
    (``min_samples`` defaults to the n of the study stored in the manifest), so
    ``gasp run`` and ``gasp analyze`` agree."""
    from gasp.analysis import AnalysisConfig

    reject_options("more-of-the-same", options, ANALYSIS_OPTIONS)
    defaults = AnalysisConfig()
    study = manifest.get("study") if isinstance(manifest, Mapping) else None
    n = study.get("n") if isinstance(study, Mapping) else None

    def pick(name: str, default: Any) -> Any:
        value = options.get(name)
        return default if value is None else value

    return AnalysisConfig(
        min_samples=pick("min_samples", n if isinstance(n, int) else defaults.min_samples),
        min_share=pick("min_share", defaults.min_share),
        pool_templates=not options.get("per_template", False),
        fdr_alpha=options.get("fdr"),
        calibrated=not options.get("plain", False),
        embeddings=pick("embeddings", defaults.embeddings),
        n_bootstrap=pick("bootstrap", defaults.n_bootstrap),
        n_permutations=pick("permutations", defaults.n_permutations),
        seed=pick("seed", defaults.seed),
    )


def analyze_step(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse the run store into ``results``; the lines to print."""
    from gasp.analysis import analyze_run
    from gasp.store import read_manifest

    manifest = read_manifest(store) or {}
    config = analysis_config(manifest, options)
    audit = analyze_run(store, config)
    audit.save(results)
    n_marked = len(audit.tables.get("marked_words", []))
    line = (
        f"analysed {audit.meta.get('n_valid', '?')} generations of "
        f"{audit.meta.get('n_subjects', '?')} occupation(s); {n_marked} significant word rows; "
        f"results in {results}"
    )
    return {"lines": [line], "results": audit}


def probe_step(results: Path, options: Mapping[str, Any]) -> str:
    """Cluster the significant words of the saved results (Figure 5); a summary line.

    Too few significant words to cluster is an outcome, not a failure: the line says so.
    """
    from gasp.analysis import AuditResults
    from gasp.probe import add_probe_tables

    audit = AuditResults.load(results)
    k = None
    try:
        result = add_probe_tables(
            audit,
            embeddings=str(options.get("embeddings") or "minilm"),
            k=k,
            seed=int(options.get("seed") or 0),
        )
    except DataError as exc:
        return f"probe: nothing to cluster ({exc})"
    audit.save(results)
    kept = result.kept_clusters()
    return f"{result.k} clusters; {kept['cluster'].nunique()} kept (Figure 5)"


def report_step(results: Path, out: Path, options: Mapping[str, Any]) -> Path:
    """Render the audit (or comparison) report from the saved results."""
    from gasp.report import ReportOptions
    from gasp.report._run_report import render_run_report

    opts = ReportOptions(
        examples_per_word=int(options.get("examples_per_word") or 50),
        examples_seed=int(options.get("seed") or 0),
    )
    return render_run_report(results, out, opts)


def compare_step(results: Sequence[Path], out: Path, options: Mapping[str, Any]) -> Path:
    """Compare runs (Table 14, Figure 4): tables to ``out``, report to ``out.report``."""
    from gasp.analysis import compare_runs
    from gasp.io import locate_run
    from gasp.report import render_comparison_report

    labels = options.get("labels") or None
    comparison = compare_runs(list(results), labels=labels)
    folder = comparison.save(out)
    return render_comparison_report(comparison, locate_run(folder).report)
