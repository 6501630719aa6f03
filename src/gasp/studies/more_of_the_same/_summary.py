"""The headline figures of a More of the Same analysis or comparison, for the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from rich.console import RenderableType
from rich.table import Table

from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import (
    CAPTURE_RATE,
    CHANCE,
    EXCLUDED,
    MODEL_COMPARISON,
    REPRESENTATION,
    SRB_PAIRED,
    SRB_SCORES,
    SRB_TEST,
)


def _p_or_reason(row: pd.Series) -> str:
    """The p-value of a test row, or why the test is undefined."""
    p = _fmt(row["p_value"], 4)
    reason = row.get("reason")
    if p == "-" and isinstance(reason, str) and reason:
        return f"undefined: {reason}"
    return p


def _fmt(value: object, digits: int = 3) -> str:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if np.isnan(number):
        return "-"
    if number != 0 and abs(number) < 10 ** (-digits):
        return f"{number:.2e}"
    return f"{number:.{digits}f}"


def _table(title: str, columns: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    """A rich table titled ``title`` with these columns and rows."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    return table


def audit_summary(results: AuditResults) -> list[RenderableType]:
    """The headline figures of an audit, as lines and tables to print."""
    out: list[RenderableType] = []
    meta = results.meta
    out.append(
        f"model {meta.get('model_id')}: {meta.get('n_valid')} valid of "
        f"{meta.get('n_samples')} samples, {meta.get('n_subjects')} subjects"
    )
    cap = results.get(CAPTURE_RATE)
    if cap is not None and not cap.empty:
        row = cap[(cap["condition"] == "unspecified") & (cap["template"] == "all")]
        if not row.empty:
            r = row.iloc[0]
            out.append(
                f"association capture rate (unspecified): {100 * r['capture_rate']:.1f}% "
                f"(unassigned {100 * r['unassigned_share']:.1f}%)"
            )
    rep = results.get(REPRESENTATION)
    if rep is not None and not rep.empty:
        pooled = rep[rep["template"] == "all"]
        above = pooled["pct_female_minus_bls"] > 0
        known = pooled["bls_pct_female"].notna()
        line = (
            f"mean share of women {100 * pooled['share_F'].mean():.1f}% "
            f"(unassigned {100 * pooled['share_unassigned'].mean():.1f}%)"
        )
        if known.any():
            line += (
                f"; above the BLS figure in {int((above & known).sum())} of "
                f"{int(known.sum())} subjects"
            )
        out.append(line)
    srb = results.get(SRB_SCORES)
    excluded = results.get(EXCLUDED)
    n_excluded = 0 if excluded is None else len(excluded)
    if srb is not None:
        out.append(
            f"subjects in the SRB analysis: {srb['subject'].nunique()} "
            f"({n_excluded} excluded, see {EXCLUDED}.csv)"
        )
    chance = results.get(CHANCE)
    if chance is not None and not chance.empty:
        total = chance.iloc[-1]
        out.append(
            f"marked words: {int(total['marked_words'])} from {int(total['n_tests'])} tests; "
            f"about {float(total['expected_by_chance']):.1f} expected by chance "
            f"(see {CHANCE}.csv)"
        )
    paired = results.get(SRB_PAIRED)
    if paired is not None and not paired.empty:
        out.append(
            _table(
                "SRB, paired by occupation (the decision): mean F - M with its interval",
                ("template", "variant", "n", "mean F-M", "interval", "paired t p", "sign-flip p"),
                [
                    (
                        str(r["template"]),
                        str(r["variant"]),
                        str(r["n_pairs"]),
                        _fmt(r["mean_diff"]),
                        f"{_fmt(r['diff_low'])} to {_fmt(r['diff_high'])}",
                        _fmt(r["t_p_value"], 4) if not r["reason"] else f"undefined: {r['reason']}",
                        _fmt(r["sign_flip_p_value"], 4),
                    )
                    for _, r in paired.iterrows()
                ],
            )
        )
    tests = results.get(SRB_TEST)
    if tests is not None and not tests.empty:
        rows = [
            (
                str(r["template"]),
                str(r.get("variant", "paper")),
                str(r["test"]),
                _fmt(r["statistic"]),
                _p_or_reason(r),
                _fmt(r["mean_F"]),
                _fmt(r["mean_M"]),
                str(r["n_subjects_F"]),
            )
            for _, r in tests.iterrows()
        ]
        out.append(
            _table(
                "SRB: associated women vs associated men (Table 13: Welch is the paper's "
                "unpaired test, for reproduction; variant names_removed: person names and "
                "gender terms removed too)",
                ("template", "variant", "test", "statistic", "p-value", "mean F", "mean M", "n"),
                rows,
            )
        )
    return out


def comparison_summary(results: AuditResults) -> list[RenderableType]:
    """The Welch tests between models (Table 14) as a table to print."""
    rows = [
        (
            str(r["template"]),
            str(r["gender"]),
            str(r["model_a"]),
            str(r["model_b"]),
            _fmt(r["statistic"]),
            _fmt(r["p_value"], 4),
        )
        for _, r in results[MODEL_COMPARISON].iterrows()
    ]
    return [
        _table(
            "SRB scores between models (Welch's t-test)",
            ("template", "gender", "model a", "model b", "t", "p-value"),
            rows,
        )
    ]
