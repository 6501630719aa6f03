"""The paired SRB test in words: the decision the "how" section leads with.

Reads the saved ``srb_paired`` table (one row per template and variant) and the saved
settings (``settings["srb"]["paired"]``); computes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd


def _num(value: Any, digits: int = 3) -> str:
    number = float(value)
    return "undefined" if math.isnan(number) else f"{number:.{digits}f}"


def _p(value: Any) -> str:
    number = float(value)
    if math.isnan(number):
        return "undefined"
    return "< 0.001" if number < 0.001 else f"{number:.3g}"


def _flip(row: Mapping[str, Any]) -> str:
    method = str(row.get("sign_flip_method", ""))
    draws = int(row.get("sign_flip_draws") or 0)
    how = (
        f"exact, every one of the {draws:,} sign assignments"
        if method == "exact"
        else f"{draws:,} random sign assignments, seed {row.get('sign_flip_seed')}"
    )
    return f"sign-flip permutation test p = {_p(row['sign_flip_p_value'])} ({how})"


def paired_sentence(row: Mapping[str, Any]) -> str:
    """The decision of one ``srb_paired`` row in one or two sentences."""
    n = int(row["n_pairs"])
    level = float(row.get("level") or 0.95)
    alpha = 1.0 - level
    where = "" if str(row.get("template")) == "all" else f" (template {row['template']})"
    if str(row.get("decision")) == "undefined" or row.get("reason"):
        return (
            f"Paired test{where}: undefined ({row.get('reason') or 'no paired scores'}); "
            f"{_flip(row)}."
        )
    diff = float(row["mean_diff"])
    lower, closer = ("lower", "women") if diff < 0 else ("higher", "men")
    verdict = (
        f"at the {alpha:.0%} level, the SRB scores of associated women and men differ: "
        f"an occupation's score for associated women is on average {abs(diff):.3f} "
        f"{lower} than its score for associated men (their words lean further toward how "
        f"the model describes named {closer})"
        if row["decision"] == "differ"
        else f"at the {alpha:.0%} level, the paired test finds no difference between the "
        "SRB scores of associated women and men"
    )
    return (
        f"Paired test over {n} occupations{where}: {verdict}. Mean F − M difference "
        f"{_num(diff)} ({level:.0%} interval {_num(row['diff_low'])} to "
        f"{_num(row['diff_high'])}); paired t = {_num(row['t_statistic'], 2)}, "
        f"df = {_num(row['t_df'], 0)}, p = {_p(row['t_p_value'])}; {_flip(row)}. "
        f"The two scores of an occupation correlate (r = {_num(row['correlation'], 2)})."
    )


def paired_sentences(paired: pd.DataFrame | None) -> list[str]:
    """One sentence per template for the paper's SRB variant (the decision the report
    leads with); empty without a saved ``srb_paired`` table."""
    if paired is None or paired.empty:
        return []
    rows = paired[paired["variant"].astype(str) == "paper"]
    return [paired_sentence({str(k): v for k, v in r.items()}) for _, r in rows.iterrows()]


def paired_explanation(settings: Mapping[str, Any]) -> str:
    """What the paired table holds and how it differs from the paper's Welch test."""
    srb = settings.get("srb") if isinstance(settings, Mapping) else None
    paired = srb.get("paired") if isinstance(srb, Mapping) else None
    exact = paired.get("sign_flip_exact_up_to") if isinstance(paired, Mapping) else None
    limit = f"up to {exact} occupations" if exact else "with few occupations"
    return (
        "Each occupation has two SRB scores, one for associated women and one for "
        "associated men, computed against the same named word sets, so they are paired. "
        "This table compares them occupation by occupation: mean_diff is the mean over "
        "occupations of score F − score M with its t interval (diff_low, diff_high); "
        "t_statistic, t_df and t_p_value are the paired t-test, which makes the decision "
        "above; sign_flip_p_value is the sign-flip permutation test (each occupation's "
        f"difference flipped in sign; exact enumeration {limit}, random flips "
        "otherwise). correlation is that of the two scores across occupations; "
        "n_unpaired counts occupations with only one score. The variant column says "
        "which SRB a row tests."
    )
