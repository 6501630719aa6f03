"""The comparison section: Table 3 of every run, Figure 4 across runs, McNemar's tests.

McNemar's tests are laid out for reading: the tests over all templates first (one row per
pair of runs and measure), then one table per pair of runs with a row per measure and
template. Shares are percentages, each statistic is named by its test (the smaller
discordant count of the exact binomial test, or the continuity-corrected chi-square) and
the p-value stays within the page's width; the saved table with every column follows,
folded away.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from gasp.report import ReportWriter, Section, escape, item_html
from gasp.results import AuditResults
from gasp.studies.pronoun_pairs._pairs_analysis import MCNEMAR, MODELS
from gasp.studies.pronoun_pairs.report._common import pct
from gasp.studies.pronoun_pairs.report._pairs import figure4

OVERALL = "Overall"
#: The measures McNemar's test compares, in display order: (name, label, unit).
MEASURES = (
    ("inconsistent", "Inconsistent triples", "triples"),
    ("binary_inconsistent", "Inconsistent he/she pairs", "triples"),
    ("incorrect", "Incorrect answers", "answers"),
)
_LABEL = {name: label for name, label, _ in MEASURES}
_UNIT = {name: unit for name, _, unit in MEASURES}


def p_text(value: Any) -> str:
    """A p-value with two significant digits ("" when missing)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return ""
    return "" if math.isnan(x) else f"{x:.2g}"


def statistic_cell(row: Mapping[str, Any]) -> str:
    """The test and its statistic, named as that test defines it."""
    if int(row["units"]) == 0:
        return "not tested: no unit shared"
    if bool(row["exact"]):
        return f"exact binomial: min(b, c) = {round(float(row['statistic']))}"
    return f"chi-square: \u03c7\u00b2 = {float(row['statistic']):.2f}"


def _measure_order(table: pd.DataFrame) -> pd.DataFrame:
    rank = {name: i for i, (name, _, _) in enumerate(MEASURES)}
    return table.assign(_m=table["metric"].map(rank)).sort_values("_m", kind="stable")


def _cells(r: Mapping[str, Any], first: str) -> list[str]:
    return [
        first,
        pct(r["share_first"]),
        pct(r["share_second"]),
        p_text(r["p_value"]),
        statistic_cell(r),
        f"{int(r['units'])} {_UNIT.get(str(r['metric']), 'units')}",
        f"{int(r['only_first'])} / {int(r['only_second'])}",
    ]


#: Columns after the first, right-aligned but for the test.
_TAIL = ["p-value", "Test and statistic", "Shared", "b / c"]


def grouped_table(columns: Sequence[str], groups: Sequence[tuple[str, list[list[str]]]]) -> str:
    """An escaped table shown whole (no scroll box): each group of rows under its title."""
    numeric = [c != columns[0] and c != "Test and statistic" for c in columns]
    align = ["num" if n else "txt" for n in numeric]
    head = "".join(
        f'<th scope="col" class="{a}">{escape(c)}</th>' for c, a in zip(columns, align, strict=True)
    )
    body = "".join(
        f'<tbody><tr><td class="group" colspan="{len(columns)}">{escape(title)}</td></tr>'
        + "".join(
            "<tr>"
            + "".join(f'<td class="{a}">{escape(v)}</td>' for v, a in zip(row, align, strict=True))
            + "</tr>"
            for row in rows
        )
        + "</tbody>"
        for title, rows in groups
    )
    return (
        f'<div class="table-wrap full"><table class="data grouped"><thead><tr>{head}</tr>'
        f"</thead>{body}</table></div>"
    )


def _label(metric: Any) -> str:
    return _LABEL.get(str(metric), str(metric))


def add_mcnemar(
    writer: ReportWriter, sec: Section, test: pd.DataFrame, templates: Sequence[str] = ()
) -> None:
    """McNemar's tests over all templates, then per template for each pair of runs
    (templates in the order of ``templates``, others after them)."""
    rank = {t: i for i, t in enumerate(templates)}
    test = _measure_order(
        test.assign(_t=test["template"].map(lambda t: rank.get(t, len(rank)))).sort_values(
            "_t", kind="stable"
        )
    ).drop(columns="_t")
    pairs = list(dict.fromkeys(zip(test["first"], test["second"], strict=True)))
    overall = test[test["template"] == OVERALL]
    groups = [
        (
            f"{first} (first) vs {second} (second)",
            [
                _cells(r, _label(r["metric"]))
                for r in overall[
                    (overall["first"] == first) & (overall["second"] == second)
                ].to_dict("records")
            ],
        )
        for first, second in pairs
    ]
    sec.add(
        item_html(
            "McNemar's test between runs, over all templates",
            "For each pair of runs and measure: the share in each run over the units both "
            "runs have (matched triples, or answers), the p-value of McNemar's test, the "
            "test and its statistic (chi-square with continuity correction), the shared "
            "units and the discordant ones (b: only the first run inconsistent or "
            "incorrect; c: only the second). The p-values are those of single tests, not "
            "corrected for the number of tests.",
            grouped_table(["Measure", "Share, first", "Share, second", *_TAIL], groups),
            ident="mcnemar-overall",
        )
    )
    for number, (first, second) in enumerate(pairs, start=1):
        part = test[(test["first"] == first) & (test["second"] == second)]
        part = part[part["template"] != OVERALL]
        if part.empty:
            continue
        groups = [
            (label, [_cells(r, str(r["template"])) for r in rows.to_dict("records")])
            for label, rows in (
                (label, part[part["metric"] == name]) for name, label, _ in MEASURES
            )
            if not rows.empty
        ]
        sec.add(
            item_html(
                f"McNemar's test per template: {first} vs {second}",
                f"The same tests on each template's units alone (first run: {first}; "
                f"second run: {second}).",
                grouped_table(["Template", "Share, first", "Share, second", *_TAIL], groups),
                ident=f"mcnemar-pair-{number}",
            )
        )
    writer.table(
        sec,
        "mcnemar",
        test.drop(columns="_m"),
        "McNemar's test: every column",
        "The table as saved: shares from 0 to 1; statistic is min(b, c) where exact is "
        "True (exact binomial test) and the continuity-corrected chi-square otherwise.",
        collapsed=True,
    )


def add_comparison(writer: ReportWriter, results: AuditResults) -> None:
    """Table 3 per model, Figure 4 across runs and McNemar's tests between runs."""
    models = results[MODELS]
    sec = writer.section(
        "Comparison of models",
        "Table 3 of every run, Figure 4 across runs, and McNemar's test on the profession "
        "pairs the runs share (paired binary outcomes: exact binomial when fewer than "
        f"{results.settings.get('mcnemar_exact_below', 25)} units differ, else chi-square "
        "with continuity correction).",
    )
    shown = models[
        ["template", "model", "incorrect", "unparsed", "inconsistent", "binary_inconsistent"]
    ].copy()
    for col in ("incorrect", "unparsed", "inconsistent", "binary_inconsistent"):
        shown[col] = shown[col].map(pct)
    writer.table(sec, "table3_models", shown, "Table 3 per model", "Shares per template and model.")
    body = models[models["template"] != OVERALL]
    writer.figure(
        sec,
        "figure4_models",
        figure4(body),
        "Figure 4: inconsistent triples per template and model",
        "Share of profession pairs with inconsistent answers, per template and model.",
    )
    add_mcnemar(writer, sec, results[MCNEMAR], list(dict.fromkeys(body["template"])))
