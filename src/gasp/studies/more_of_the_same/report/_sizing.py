"""What a run too small to show something lacks, and the option that fills it.

A quick run (few occupations, few generations per prompt) often finds only pronouns
significant, so the SRB scores, their tests and the probe have nothing to work on.
The report then says so in one sentence, with the ``--n`` that fills the section and
how long its generation would take, scaled from the run's own generation time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import GENERATION_TIME, SRB_SCORES, WORD_TABLES

#: Generations per prompt the suggestion names (the order the paper's analyses need).
SUGGESTED_N = 60
#: Fewer describing words than this (over all occupations) is "too few".
MIN_DESCRIBING_WORDS = 10


def run_n(results: AuditResults) -> int | None:
    """The run's generations per prompt, from its saved manifest."""
    manifest = results.meta.get("manifest")
    study = manifest.get("study") if isinstance(manifest, Mapping) else None
    n = study.get("n") if isinstance(study, Mapping) else None
    return int(n) if isinstance(n, int | float) and n > 0 else None


def describing_words(results: AuditResults) -> int:
    """Significant words that are neither pronouns, names nor gender terms."""
    words = results.get(WORD_TABLES)
    if words is None or words.empty:
        return 0
    if "kind" in words.columns:
        words = words[words["kind"].astype(str) == "word"]
    elif "is_pronoun" in words.columns:
        words = words[~words["is_pronoun"].astype(bool)]
    return int(words["word"].nunique()) if "word" in words.columns else len(words)


def defined_scores(results: AuditResults) -> int:
    """SRB scores that could be computed (no reason recorded)."""
    srb = results.get(SRB_SCORES)
    if srb is None or srb.empty:
        return 0
    if "reason" in srb.columns:
        return int((srb["reason"].isna() | (srb["reason"].astype(str) == "")).sum())
    if "score" not in srb.columns:
        return 0
    return int(pd.to_numeric(srb["score"], errors="coerce").notna().sum())


def _minutes_for(n: int, generation: Any) -> str:
    """' (about M minutes ...)' scaled from the run's generation time, or ''."""
    if not isinstance(generation, Mapping):
        return ""
    seconds = float(generation.get("seconds") or 0.0)
    if seconds <= 0:
        return ""
    minutes = seconds * SUGGESTED_N / n / 60
    return (
        f" (about {max(1, round(minutes))} minutes of generation on the machine that made "
        "this run, scaled from its generation time)"
    )


def too_small_sentence(results: AuditResults) -> str | None:
    """One sentence on why the run shows little, and which option fills it; None when the
    run found enough describing words and SRB scores."""
    n_words = describing_words(results)
    n_scores = defined_scores(results)
    if n_words >= MIN_DESCRIBING_WORDS and n_scores >= 4:
        return None
    n = run_n(results)
    if n is None or n >= SUGGESTED_N:
        return (
            f"This run found {n_words} significant describing word(s) and {n_scores} SRB "
            "score(s): too few for the tests and the probe; more occupations "
            "(--occupations) or more generations per prompt (--n) fill this section."
        )
    return (
        f"With n = {n} generations per prompt this run found {n_words} significant "
        "describing word(s) (pronouns, names and gender terms aside) and "
        f"{n_scores} SRB score(s), too few for the tests and the probe; run with "
        f"--n {SUGGESTED_N}{_minutes_for(n, results.meta.get(GENERATION_TIME))} to fill "
        "this section."
    )


__all__ = ["SUGGESTED_N", "defined_scores", "describing_words", "run_n", "too_small_sentence"]
