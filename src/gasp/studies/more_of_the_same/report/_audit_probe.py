"""The "What the differences mean" (Probe) and model-comparison parts of the audit report.

The cluster rules, the choice of k and the embeddings are worded from the probe's
saved settings (``settings["probe"]``); the word and share columns of the clusters
table come from its saved layout.
"""

from __future__ import annotations

from gasp.report import ReportWriter, Section, layout_style, rules
from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import (
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
    PROBE_SKIPPED,
)
from gasp.studies.more_of_the_same.report import _figures as figs
from gasp.studies.more_of_the_same.report._sizing import too_small_sentence


def _probe_missing(results: AuditResults) -> str:
    """Why these results have no probe tables, and what adds them."""
    skipped = results.meta.get(PROBE_SKIPPED)
    if skipped:
        fill = too_small_sentence(results) or "More significant words fill it."
        return f"The probe found nothing to cluster ({skipped}). {fill}"
    return (
        "The probe was not run on these results; `gasp probe RESULTS` (or `gasp run` without "
        "--skip probe) adds it."
    )


def add_probe_section(writer: ReportWriter, results: AuditResults) -> None:
    """Figure 5 (clusters and their prevalence) and Figure 8 (silhouette curve)."""
    clusters = results.get(PROBE_CLUSTERS)
    sil = results.get(PROBE_SILHOUETTE)
    settings = results.settings
    sec = writer.section(
        "What the differences mean",
        "The significant words of all occupations are grouped into clusters of similar "
        f"meaning (K-means++ on {rules.embeddings_name(settings, 'probe')} word embeddings) so "
        "that recurring themes (for example empathy, advocacy, sports) become visible, then "
        "each cluster is counted in how many occupations it is significant for each gender.",
    )
    if clusters is None and sil is None:
        sec.add_paragraph(_probe_missing(results), cls="note")
        return
    if clusters is not None:
        style = layout_style(results.layout(PROBE_CLUSTERS))
        shown = clusters
        if "kept" in clusters.columns:
            kept = clusters["kept"].astype(bool)
            if kept.any() and not kept.all():
                shown = clusters[kept]
        writer.table(
            sec,
            "figure5_clusters",
            shown,
            "Figure 5: clusters of significant words and their prevalence",
            "Each row is a cluster of words (closest to its centre first) for one model. "
            "'#' (n_subjects) is the number of occupations where at least one of its words is "
            "significant; pct_<group> is the percentage of occupations where the cluster is "
            "significant for that group, coloured from dark blue (0%) to green (100%). "
            f"{rules.cluster_rule(settings)} Kept clusters are shown here when any are; all "
            "clusters are in the CSV of the next table.",
            style,
        )
        if shown is not clusters:
            writer.table(
                sec,
                PROBE_CLUSTERS,
                clusters,
                "All clusters",
                "Every cluster with its prevalence, kept or not.",
                style,
            )
    writer.figure(
        sec,
        "figure8_silhouette",
        figs.silhouette_figure(sil),
        "Figure 8: silhouette score by number of clusters",
        "The silhouette score (from -1 to 1) measures how well words fit their own cluster "
        f"rather than the nearest other one. {rules.k_rule(settings)} The circled point is the "
        "k used.",
    )
    if sil is not None:
        writer.saved_table(
            sec,
            results,
            PROBE_SILHOUETTE,
            "Silhouette scores",
            "The silhouette score for each number of clusters tried.",
            saved_layout=True,
        )


def add_comparison_items(writer: ReportWriter, results: AuditResults, sec: Section) -> None:
    """Figure 4 and Table 14 of a comparison of models, when present, into ``sec``."""
    pc = results.get(PERCENT_CHANGE)
    mc = results.get(MODEL_COMPARISON)
    writer.figure(
        sec,
        "figure4_percent_change",
        figs.percent_change_figure(pc),
        "Figure 4: percent change of the SRB score between models",
        "For each occupation and associated gender, the percentage by which the SRB score "
        "changed from the first model to the second. An increase means that generations "
        "associated with a gender became more similar to generations that name that gender.",
    )
    if pc is not None:
        writer.table(
            sec, PERCENT_CHANGE, pc, "Percent change of SRB per occupation", "The data of Figure 4."
        )
    if mc is not None:
        writer.table(
            sec,
            MODEL_COMPARISON,
            mc,
            "Table 14: do the models' SRB scores differ?",
            "Welch's t-test comparing the SRB scores of two models across occupations, per "
            "associated gender; a small p-value means the change between models is unlikely "
            "to be chance.",
        )
