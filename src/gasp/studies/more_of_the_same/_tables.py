"""Names and column layouts of the tables of a More of the Same audit.

This is the contract between the analysis that writes the results and the report
section that reads them: each analysis documents its columns
(:mod:`gasp.studies.more_of_the_same.analysis`), the layouts below say which columns
hold words or shares
and are saved with the results (``meta["layouts"]``) so the report reads them
instead of guessing.
"""

from __future__ import annotations

from gasp.results import TableLayout

REPRESENTATION = "representation"  # who is represented: shares per subject x template
DECILES = "representation_deciles"  # occupations per decile of the share of women (Fig. 2, 6)
CAPTURE_RATE = "capture_rate"  # share of generations the association assigns (Table 2)
ASSOCIATION_ACCURACY = "association_accuracy"  # named gender x associated gender (Table 1)
SAMPLE_ASSOCIATIONS = "sample_associations"  # associated gender and cue counts per sample
MARKED_WORDS = "marked_words"  # calibrated marked words per subject and group (long format)
MARKED_WORDS_BY_GROUP = "marked_words_by_group"  # the marked words listed per group
SRB_SCORES = "srb_scores"  # SRB(S_AF || S_F, S_M), SRB(S_AM || S_F, S_M) per subject (Fig. 3)
SRB_TEST = "srb_test"  # Welch t-test and permutation test across subjects (Table 13)
SRB_PAIRED = "srb_paired"  # paired t and sign-flip tests, mean F-M difference and interval
WORD_TABLES = "word_tables"  # words per subject, gender and category (Table 15)
CHANCE = "chance_marked_words"  # tests and marked words expected by chance, per comparison
EXCLUDED = "excluded_subjects"  # subjects left out of a step, with the reason
MODEL_COMPARISON = "model_comparison"  # Welch tests between models' SRB scores (Table 14)
PERCENT_CHANGE = "percent_change"  # percent change of SRB per subject between models (Fig. 4)
PROBE_CLUSTERS = "probe_clusters"  # clusters of significant words with prevalence (Fig. 5)
PROBE_SILHOUETTE = "probe_silhouette"  # silhouette score per k (Fig. 8)

# Keys of the results' meta (not tables).
PROBE_SKIPPED = "probe_skipped"  # why the probe found nothing to cluster, when it did not
GENERATION_TIME = "generation_time"  # {"seconds", "samples"} of the run's generation sessions

_GROUP_KEYS = ("subject", "template", "source", "gender")

AUDIT_LAYOUTS: dict[str, TableLayout] = {
    MARKED_WORDS: TableLayout(word_columns=("word",), keys=_GROUP_KEYS, order_by="z_min"),
    MARKED_WORDS_BY_GROUP: TableLayout(word_columns=("words",), keys=_GROUP_KEYS),
    WORD_TABLES: TableLayout(word_columns=("word",), keys=("subject", "template", "gender")),
}
"""Layouts of the audit tables with word or share columns (others have none)."""


def probe_clusters_layout(group_a: str, group_b: str) -> TableLayout:
    """The layout of the probe's clusters table for groups ``group_a`` and ``group_b``."""
    return TableLayout(
        word_columns=("words",),
        share_columns=(f"pct_{group_a}", f"pct_{group_b}"),
        percent=True,
        keys=("cluster", "model"),
    )
