"""Probe: cluster the significant words into patterns and measure their prevalence per group."""

from gasp.probe._clustering import (
    K_RULES,
    STABILITY_TIE,
    Clustering,
    ClusteringConfig,
    choose_k,
    cluster_vectors,
    unit_rows,
)
from gasp.probe._planted import planted_clusters
from gasp.probe._prevalence import PrevalenceConfig, check_word_table, cluster_prevalence
from gasp.probe._probe import (
    PROBE_EMBEDDINGS,
    Probe,
    ProbeConfig,
    ProbeResult,
    WordVectorSource,
    probe_settings,
    probe_words,
    resolve_embeddings,
)
from gasp.probe._significant import GenerationColumns, SignificantWords, significant_words
from gasp.probe._stability import stability_scores
from gasp.probe._word_filter import PRONOUNS, WordFilterConfig, english_zipf, filter_words

__all__ = [
    "K_RULES",
    "PROBE_EMBEDDINGS",
    "PRONOUNS",
    "STABILITY_TIE",
    "Clustering",
    "ClusteringConfig",
    "GenerationColumns",
    "PrevalenceConfig",
    "Probe",
    "ProbeConfig",
    "ProbeResult",
    "SignificantWords",
    "WordFilterConfig",
    "WordVectorSource",
    "check_word_table",
    "choose_k",
    "cluster_prevalence",
    "cluster_vectors",
    "english_zipf",
    "filter_words",
    "planted_clusters",
    "probe_settings",
    "probe_words",
    "resolve_embeddings",
    "significant_words",
    "stability_scores",
    "unit_rows",
]
