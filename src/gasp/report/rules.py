"""Sentences that state a rule of the analysis, worded from the settings saved with it.

Every function takes the saved settings (``AuditResults.settings``, the layout of
a study's analysis settings, with the probe's under ``"probe"``)
and returns plain text. Where a setting was not saved the sentence says so rather
than assume a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gasp.stats import describe_interval

NOT_SAVED = "not recorded with these results"
_CALIBRATION_LABELS = (("alpha", "alpha"), ("c_topic", "C_topic"), ("c_english", "C_English"))


def _part(settings: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = settings.get(key)
    return value if isinstance(value, Mapping) else {}


def _pct(value: Any) -> str:
    """A share in [0, 1] as a percentage (``0.1`` -> ``10%``)."""
    try:
        return f"{100 * float(value):g}%"
    except (TypeError, ValueError):
        return str(value)


def _num(value: Any) -> str:
    """A number in its shortest exact form (1.96, 0.05, 100)."""
    try:
        return f"{float(value):g}"
    except (TypeError, ValueError):
        return str(value)


def method_name(settings: Mapping[str, Any]) -> str:
    """``Calibrated Marked Words`` or ``Marked Words``, as the analysis used."""
    method = _part(settings, "marked_words").get("method")
    if method == "calibrated":
        return "Calibrated Marked Words"
    if method == "plain":
        return "Marked Words"
    return "Marked Words (calibrated or plain: " + NOT_SAVED + ")"


def prior_phrase(settings: Mapping[str, Any]) -> str:
    """How the log-odds of the method are regularised (the prior and its C values)."""
    words = _part(settings, "marked_words")
    if words.get("method") == "plain":
        return "log-odds with an informative Dirichlet prior from the unit's own generations"
    if words.get("method") == "calibrated":
        cal = words.get("calibration")
        cal = cal if isinstance(cal, Mapping) else {}
        values = [
            f"{label} {_num(cal[key])}"
            for key, label in (
                ("alpha", "alpha"),
                ("c_topic", "C_topic"),
                ("c_english", "C_English"),
            )
            if key in cal
        ]
        source = cal.get("english_source")
        detail = f"; {', '.join(values)}" if values else ""
        english = f"English word frequencies ({source})" if source else "English word frequencies"
        return (
            "log-odds with an informative prior mixing the unit's own generations and "
            f"{english}{detail}"
        )
    return "log-odds with an informative prior"


def significance_short(settings: Mapping[str, Any]) -> str:
    """The significance rule in a few words: ``z > 1.96`` or ``Benjamini-Hochberg FDR 0.05``."""
    sig = _part(settings, "significance")
    if sig.get("rule") == "fdr":
        text = f"Benjamini-Hochberg false discovery rate {_num(sig.get('fdr_alpha'))}"
        return text + (" over the whole study" if sig.get("fdr_scope") == "study" else "")
    if sig.get("rule") == "threshold":
        return f"z > {_num(sig.get('threshold'))}"
    return "significance rule " + NOT_SAVED


def significance_sentence(settings: Mapping[str, Any]) -> str:
    """When a word counts as significant, in full."""
    sig = _part(settings, "significance")
    rule = sig.get("rule")
    if rule == "fdr":
        family = (
            "every word, subject and comparison of the study at once"
            if sig.get("fdr_scope") == "study"
            else "the words of a comparison"
        )
        text = (
            "A word is significant when the Benjamini-Hochberg procedure, controlling the "
            f"false discovery rate at {_num(sig.get('fdr_alpha'))} over {family}, rejects it"
        )
    elif rule == "threshold":
        text = f"A word is significant when its z-score exceeds {_num(sig.get('threshold'))}"
    else:
        return "The significance rule was " + NOT_SAVED + "."
    min_count = sig.get("min_count")
    if isinstance(min_count, int | float) and min_count > 0:
        text += f" and it occurs at least {_num(min_count)} times in the target group"
    return text + " against every unmarked group."


def chance_sentence(row: Mapping[str, Any], unit: str = "comparisons") -> str:
    """How many marked words chance alone would give, from a ``chance_marked_words`` row.

    ``row`` holds n_tests, z_cutoff_low, z_cutoff_high, expected_by_chance and
    marked_words (see :func:`gasp.stats.chance_count`).
    """
    try:
        n_tests = int(row["n_tests"])
        low, high = float(row["z_cutoff_low"]), float(row["z_cutoff_high"])
        expected, marked = float(row["expected_by_chance"]), int(row["marked_words"])
    except (KeyError, TypeError, ValueError):
        return "The number of marked words expected by chance was " + NOT_SAVED + "."
    cut = f"z > {low:.2f}" if abs(high - low) < 0.005 else f"z > {low:.2f} to {high:.2f}"
    n_comp = row.get("n_comparisons")
    over = f" over {int(n_comp)} {unit}" if n_comp is not None else ""
    return (
        f"The analysis ran {n_tests:,} tests (word x comparison){over}. If no word differed "
        f"between the groups, about {expected:,.1f} marked words would be expected by chance "
        f"at the cutoff used ({cut}, the standard normal tail; an upper bound where the "
        f"prior shrinks the z-scores). {marked:,} words were marked."
    )


def sampling_sentence(settings: Mapping[str, Any]) -> str:
    """Which units enter the SRB analysis (the sampling threshold and minimum share)."""
    sampling = _part(settings, "sampling")
    n, share = sampling.get("min_samples"), sampling.get("min_share")
    if n is None or share is None:
        return "The sampling threshold was " + NOT_SAVED + "."
    share_text = _pct(share)
    return (
        f"An occupation enters the SRB analysis only when at least {n} of its generations "
        f"are associated with women and at least {n} with men, each being at least "
        f"{share_text} of its generations naming no gender, and when it has generations "
        "naming women and men."
    )


def interval_phrase(settings: Mapping[str, Any]) -> str:
    """What the bars of the SRB figure are: the saved interval scheme in one sentence
    (results saved before schemes were recorded: bootstrap level and resamples)."""
    srb = _part(settings, "srb")
    record = srb.get("interval")
    if isinstance(record, Mapping) and record.get("interval_scheme"):
        if not record.get("interval_draws"):
            return "no resampling was run, so there are no interval bars"
        rough = (
            " (from fewer than 100 draws the bounds are rough; --bootstrap raises it)"
            if int(record["interval_draws"]) < 100
            else ""
        )
        return "bars: " + describe_interval(record) + rough
    n_boot, level = srb.get("n_bootstrap"), srb.get("ci_level")
    if n_boot is None:
        return "bars are bootstrap intervals (resampling settings " + NOT_SAVED + ")"
    if not n_boot:
        return "no bootstrap was run, so there are no interval bars"
    return (
        f"bars are {_pct(level)} percentile bootstrap intervals over {n_boot} resamples "
        "with replacement (these lean toward 0: repeated generations mark more words)"
    )


def mean_interval_phrase(settings: Mapping[str, Any]) -> str:
    """How the intervals of the mean SRB scores across occupations were obtained."""
    record = _part(settings, "srb").get("mean_interval")
    if not isinstance(record, Mapping):
        return "these results predate intervals of the mean scores"
    return "mean_F_low/high and mean_M_low/high: " + describe_interval(record)


def permutation_phrase(settings: Mapping[str, Any]) -> str:
    """How many label shuffles the permutation test ran."""
    n_perm = _part(settings, "srb").get("n_permutations")
    if n_perm is None:
        return "the number of shuffles was " + NOT_SAVED
    if not n_perm:
        return "no permutation test was run"
    return f"{n_perm} shuffles were run"


def embeddings_name(settings: Mapping[str, Any], part: str = "srb") -> str:
    """The word embeddings of a step (``srb`` or ``probe``)."""
    name = _part(settings, part).get("embeddings")
    return str(name) if name else "word embeddings " + NOT_SAVED


def cluster_rule(settings: Mapping[str, Any], unit: str = "occupations") -> str:
    """Which clusters the probe keeps (prevalence ratio and subjects)."""
    probe = _part(settings, "probe")
    ratio, subjects = probe.get("min_ratio"), probe.get("min_subjects")
    if ratio is None or subjects is None:
        return "The rule keeping clusters was " + NOT_SAVED + "."
    more = f"{100 * (float(ratio) - 1):g}%"
    return (
        f"Clusters at least {more} more prevalent for one group (a prevalence ratio of at "
        f"least {_num(ratio)}) and present in at least {subjects} {unit} are kept."
    )


def k_rule(settings: Mapping[str, Any]) -> str:
    """How the number of clusters k was chosen."""
    probe = _part(settings, "probe")
    rule, k = probe.get("k_rule"), probe.get("k")
    chosen = f" (k = {k})" if k is not None else ""
    if probe.get("k_fixed") is not None:
        return f"The number of clusters was fixed at {probe['k_fixed']}."
    if rule in ("gap", "paper"):
        return (
            "The number of clusters k is the one after which the silhouette score falls most "
            f"(the largest gap to the next k, the paper's rule){chosen}."
        )
    if rule == "stability":
        share = _pct(probe.get("resample_fraction") or 0.8)  # 0.8: results saved before it was
        return (
            "The number of clusters k is the one whose k-means clusterings agree most across "
            f"random {share} subsamples of the words (mean pairwise adjusted Rand index on the "
            f"shared words; near ties go to the higher silhouette score){chosen}."
        )
    if rule == "max":
        return f"The number of clusters k is the one with the highest silhouette score{chosen}."
    return "The rule choosing the number of clusters was " + NOT_SAVED + "."
