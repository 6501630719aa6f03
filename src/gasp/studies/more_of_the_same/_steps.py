"""The analysis, probe, report and comparison steps of More of the Same, as the command
line runs them (options by name, None meaning the run's or the study's default)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.errors import DataError
from gasp.results import EXAMPLES_PER_WORD
from gasp.stats import study_fdr_level
from gasp.studies import reject_options, resolve_study_options
from gasp.studies.more_of_the_same._model import STUDY_KIND
from gasp.studies.more_of_the_same._tables import PROBE_CLUSTERS, PROBE_SILHOUETTE, PROBE_SKIPPED
from gasp.studies.more_of_the_same._type import (
    ANALYSIS_OPTIONS,
    STUDY_OPTIONS,
    check_embedding_options,
)


def analysis_overrides(options: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`AnalysisConfig` fields the command-line options set (None: unset).

    The study's own options shape what it generates; a run hands them to every step,
    and the analysis takes them without reading them."""
    reject_options(STUDY_KIND, options, {*ANALYSIS_OPTIONS, *STUDY_OPTIONS})
    check_embedding_options(options)
    own = resolve_study_options(STUDY_KIND, STUDY_OPTIONS, options)
    scope = options.get("fdr_scope")
    fdr = options.get("fdr")
    fdr = study_fdr_level(fdr, scope)
    return {
        "min_samples": own.get("min_samples"),
        "min_share": own.get("min_share"),
        "pool_templates": False if own.get("per_template") else None,
        "threshold": options.get("threshold"),
        "fdr_alpha": fdr,
        "fdr_scope": scope,
        "calibrated": False if own.get("plain") else None,
        "embeddings": own.get("srb_embeddings"),
        "n_bootstrap": options.get("bootstrap"),
        "n_simulations": options.get("simulations"),
        "n_permutations": own.get("permutations"),
        "seed": options.get("seed"),
        "examples_per_word": options.get("examples_per_word"),
    }


def analyze_step(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse the run store into ``results``; the summary to print."""
    from gasp.studies.more_of_the_same._summary import audit_summary
    from gasp.studies.more_of_the_same.analysis import analyze_run

    audit = analyze_run(store, overrides=analysis_overrides(options))
    audit.meta["study_kind"] = STUDY_KIND
    folder = audit.save(results)
    return {"lines": [*audit_summary(audit), f"results written to {folder}"]}


def probe_step(results: Path, options: Mapping[str, Any]) -> str:
    """Cluster the significant words of the saved results (Figure 5); a summary line.

    Too few significant words to cluster is an outcome, not a failure: the line says so.
    ``options`` may name the two groups (``group_a``, ``group_b``), fix ``k`` and give
    the whole :class:`~gasp.probe.ProbeConfig` (``config``) instead of the study's
    probe options (``k_rule``, ``n_init``, ``probe_embeddings``; ``embeddings`` names
    the clustering's embeddings where ``probe_embeddings`` is not given).
    """
    from gasp.probe import ClusteringConfig, ProbeConfig
    from gasp.results import AuditResults
    from gasp.studies.more_of_the_same.probe import add_probe_tables

    audit = AuditResults.load(results)
    given = {k: options.get(k) for k in ("k_rule", "n_init", "probe_embeddings")}
    own = resolve_study_options(STUDY_KIND, STUDY_OPTIONS, given)
    clustering: dict[str, Any] = {"k_rule": own["k_rule"], "n_init": own.integer("n_init")}
    embeddings = own["probe_embeddings"]
    if "probe_embeddings" not in own.explicit and options.get("embeddings"):
        embeddings = str(options["embeddings"])
    try:
        result = add_probe_tables(
            audit,
            group_a=str(options.get("group_a") or "F"),
            group_b=str(options.get("group_b") or "M"),
            embeddings=str(embeddings),
            k=options.get("k"),
            seed=int(options.get("seed") or 0),
            config=options.get("config") or ProbeConfig(clustering=ClusteringConfig(**clustering)),
        )
    except DataError as exc:
        for name in (PROBE_CLUSTERS, PROBE_SILHOUETTE):
            audit.tables.pop(name, None)
        audit.meta[PROBE_SKIPPED] = str(exc)
        audit.save(results)
        return f"probe: nothing to cluster ({exc})"
    audit.meta.pop(PROBE_SKIPPED, None)
    audit.save(results)
    kept = result.kept_clusters()
    return f"{result.k} clusters; {kept['cluster'].nunique()} kept (Figure 5)"


def report_step(results: Path, out: Path, options: Mapping[str, Any]) -> Path:
    """Render the audit (or comparison) report from the saved results."""
    from gasp.report import ReportOptions
    from gasp.studies.more_of_the_same.report import render_run_report

    opts = ReportOptions(
        examples_per_word=int(options.get("examples_per_word") or EXAMPLES_PER_WORD)
    )
    return render_run_report(results, out, opts)


def compare_step(runs: Sequence[Path], out: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Compare runs (Table 14, Figure 4): tables to ``out``, report to ``out/report``."""
    from gasp.io import locate_run
    from gasp.studies.more_of_the_same._summary import comparison_summary
    from gasp.studies.more_of_the_same.analysis import compare_runs
    from gasp.studies.more_of_the_same.report import render_comparison_report

    # a run folder compares by its results; a store file is analysed with defaults
    found = [locate_run(r).results if Path(r).is_dir() else r for r in runs]
    comparison = compare_runs(found, labels=options.get("labels") or None)
    comparison.meta["study_kind"] = STUDY_KIND
    folder = comparison.save(out)
    report = render_comparison_report(comparison, locate_run(folder).report)
    return {
        "lines": [
            *comparison_summary(comparison),
            f"results written to {folder}",
            f"report written to {report}",
        ],
        "report": report,
    }
