"""A small self-contained HTML page of a Probe result (Figure 5 and the cluster words).

The prevalence table shows, per model, each group's share coloured on the report's
scale (dark blue 0% to green 100%, as in Figure 5 of seed ``000``); every word of
the table opens the example generations given (selected beforehand, for example with
:func:`gasp.results.build_example_index`). A second table lists all the words of
each cluster shown. The rule keeping clusters is worded from the result's settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pandas as pd

from gasp.report import rules
from gasp.report._html import Section, TableStyle, html_table, item_html, page_shell


class ProbeView(Protocol):
    """What the page reads of a probe result (as :class:`gasp.probe.ProbeResult` has it)."""

    @property
    def clusters(self) -> pd.DataFrame:
        """Every cluster per model with its prevalence."""
        ...

    @property
    def silhouette(self) -> pd.DataFrame:
        """The silhouette score per k."""
        ...

    @property
    def k(self) -> int:
        """The number of clusters used."""
        ...

    @property
    def group_a(self) -> str:
        """The first group."""
        ...

    @property
    def group_b(self) -> str:
        """The second group."""
        ...

    @property
    def settings(self) -> Mapping[str, Any]:
        """The probe's settings (cluster rules, k rule, embeddings)."""
        ...

    def kept_clusters(self) -> pd.DataFrame:
        """The clusters kept for every model."""
        ...

    def cluster_words(self, cluster: int) -> list[str]:
        """All words of ``cluster``, closest to the centroid first."""
        ...


def _cluster_words(result: ProbeView, clusters: list[int]) -> pd.DataFrame:
    rows = [{"cluster": c, "words": ", ".join(result.cluster_words(c))} for c in clusters]
    return pd.DataFrame(rows, columns=["cluster", "words"])


def probe_page(
    result: ProbeView,
    examples: Mapping[str, Any] | None = None,
    *,
    title: str = "Probe: patterns in the significant words",
    all_clusters: bool = False,
) -> str:
    """The HTML page of ``result``; ``examples`` (a word-to-generations index) opens words.

    Shows the clusters kept for every model (Figure 5), or all clusters when
    ``all_clusters`` or when none is kept.
    """
    a, b = result.group_a, result.group_b
    kept = result.kept_clusters()
    shown = result.clusters if all_clusters or kept.empty else kept
    pct = [f"pct_{a}", f"pct_{b}"]
    figure = shown.loc[
        :, ["cluster", "words", "size", "model", *pct, "n_subjects", "dominant_group", "kept"]
    ].rename(columns={"n_subjects": "#"})
    ids = sorted(int(c) for c in figure["cluster"].unique())
    members = _cluster_words(result, ids)
    known = list(examples.get("words", {})) if examples is not None else []
    style = TableStyle(word_columns=("words",), share_columns=tuple(pct), percent=True)
    words_style = TableStyle(word_columns=("words",))
    settings = {"probe": dict(result.settings)}
    which = (
        "all clusters."
        if shown is result.clusters
        else "the clusters kept for every model. " + rules.cluster_rule(settings, "subjects")
    )
    section = Section(
        title="Clusters of significant words",
        intro=(
            f"{result.k} clusters of the significant words of groups {a} and {b}; "
            f"shown: {which} %{a} and %{b} are each group's share of the subjects where "
            "the cluster is significant; # counts those subjects."
        ),
    )
    items = (
        (
            "probe-prevalence",
            "Prevalence per cluster and model",
            "Colour: dark blue (0%) to green (100%). Click a word to read generations.",
            html_table(figure, style, known_words=known),
        ),
        (
            "probe-words",
            "Words of each cluster",
            "All words of each cluster, closest to the centroid first.",
            html_table(members, words_style, known_words=known),
        ),
    )
    for ident, heading, text, body in items:
        section.add(item_html(heading, text, body, ident=ident))
    sections = [section]
    if not result.silhouette.empty:
        curve = Section(title="Silhouette score per k", intro=rules.k_rule(settings))
        curve.add(html_table(result.silhouette))
        sections.append(curve)
    return page_shell(title, sections, examples=dict(examples) if examples is not None else None)
