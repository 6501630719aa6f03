"""The paired test's section: Table 3, Figure 4, the professions and their chart."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gasp.report import ReportWriter, error_bars, new_figure, outside_legend
from gasp.results import AuditResults
from gasp.stats import describe_interval
from gasp.studies.pronoun_pairs._examples import cell_key
from gasp.studies.pronoun_pairs._pairs_analysis import PROFESSION_CELLS, PROFESSIONS, TABLE3
from gasp.studies.pronoun_pairs.report._common import add_clickable, pct, pct_ci

_TABLE3_COLUMNS = [
    ("answers", "Answers"),
    ("incorrect", "Incorrect"),
    ("unparsed", "Unparsed (U)"),
    ("triples", "Triples"),
    ("inconsistent", "Inconsistent"),
    ("binary_inconsistent", "Inconsistent (Binary)"),
    ("triples_with_u", "Triples with a U"),
]
_COUNTS = {"answers", "triples"}


def _rule_text(settings: dict[str, Any]) -> str:
    level = float(settings.get("confidence", 0.95))
    intervals = (
        f"Intervals: {describe_interval(settings['interval'])}. "
        if isinstance(settings.get("interval"), dict)
        else f"Intervals: {level:.0%} percentile bootstrap, "
        f"{settings.get('bootstrap_resamples')} resamples of the answers, triples or he/she "
        f"pairs (seed {settings.get('seed')}). "
    )
    return (
        intervals
        + (
            "An unparsed answer (U: both professions or neither named) counts as incorrect; "
            if settings.get("unparsed_counts_as_incorrect")
            else ""
        )
        + (
            "in the consistency measures U is an answer like A and B."
            if settings.get("unparsed_is_an_answer_in_consistency")
            else ""
        )
    )


def table3_rows(table: pd.DataFrame, model: str) -> list[list[tuple[str, str | None]]]:
    """Table 3's layout: template, model, then one clickable cell per measure."""
    rows = []
    for r in table.to_dict("records"):
        row: list[tuple[str, str | None]] = [(str(r["template"]), None), (model, None)]
        for col, _ in _TABLE3_COLUMNS:
            label = (
                str(int(r[col]))
                if col in _COUNTS
                else (
                    pct(r[col])
                    if col == "triples_with_u"
                    else pct_ci({str(k): v for k, v in r.items()}, col)
                )
            )
            row.append((label, cell_key("template", r["template"], col)))
        rows.append(row)
    return rows


def figure4(table: pd.DataFrame, value: str = "inconsistent") -> Figure | None:
    """Figure 4: the share of inconsistent triples per template, one bar per model."""
    if table.empty:
        return None
    models = list(dict.fromkeys(table["model"]))
    templates = list(dict.fromkeys(table["template"]))
    fig = new_figure(max(5.0, 0.9 * len(templates) + 2), 3.2)
    ax = fig.add_subplot()
    width = 0.8 / len(models)
    x = np.arange(len(templates))
    for i, model in enumerate(models):
        part = table[table["model"] == model].set_index("template").reindex(templates)
        heights = 100 * part[value].to_numpy(float)
        err = None
        if f"{value}_low" in part:
            err = error_bars(heights, 100 * part[f"{value}_low"], 100 * part[f"{value}_high"])
        ax.bar(x + i * width - 0.4 + width / 2, heights, width, yerr=err, capsize=2, label=model)
    ax.set_xticks(x, templates, rotation=30, ha="right")
    ax.set_ylabel("inconsistent triples (%)")
    outside_legend(fig)
    return fig


def profession_figure(table: pd.DataFrame, top: int = 20) -> Figure | None:
    """The professions most often in inconsistent triples, with the direction."""
    shown = table[table["inconsistent"] > 0].head(top)
    if shown.empty:
        return None
    fig = new_figure(6.0, 0.28 * len(shown) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(shown))[::-1]
    ax.barh(y + 0.27, shown["inconsistent"], 0.27, label="inconsistent triples")
    ax.barh(y, shown["chosen_under_he"], 0.27, label="chosen under he (he/she differ)")
    ax.barh(y - 0.27, shown["chosen_under_she"], 0.27, label="chosen under she (he/she differ)")
    ax.set_yticks(y, shown["profession"])
    ax.set_xlabel("count")
    outside_legend(fig)
    return fig


def add_pairs_section(writer: ReportWriter, results: AuditResults) -> None:
    """Table 3, Figure 4, the profession table and chart of one run."""
    table = results[TABLE3]
    model = str(results.meta.get("model_id") or "this model")
    settings = results.settings
    sec = writer.section(
        "Paired pronoun prompts",
        "Each profession pair fills every template three times, with he, she and they; the "
        "answer is parsed to A, B or U. Incorrect: answers other than the expected one, out "
        "of all answers. Inconsistent: triples whose three answers are not all equal. "
        "Inconsistent (Binary): he/she pairs that differ. Every number opens its texts. "
        + _rule_text(settings),
    )
    add_clickable(
        writer,
        sec,
        name="table3",
        title="Table 3: incorrect and inconsistent answers",
        explanation="Per template and overall, with intervals in parentheses. Click a number "
        "to read the answers or triples behind it.",
        shown=(
            ["Prompt", "Model", *[label for _, label in _TABLE3_COLUMNS]],
            table3_rows(table, model),
        ),
        data=table,
    )
    overall = table[table["template"] == "Overall"]
    if not overall.empty:
        writer.note(sec, f"Unparsed (U) share overall: {pct(overall.iloc[0]['unparsed'])}.")
    body = table[table["template"] != "Overall"].assign(model=model)
    writer.figure(
        sec,
        "figure4",
        figure4(body),
        "Figure 4: inconsistent triples per template",
        "Share of profession pairs whose he, she and they answers are not all equal, per "
        "template, with its bootstrap interval.",
    )
    add_profession_items(writer, sec, results)


def add_profession_items(writer: ReportWriter, sec: Any, results: AuditResults) -> None:
    """The per-profession table (clickable) and chart."""
    prof = results.get(PROFESSIONS)
    if prof is None:
        return
    rows = []
    for r in prof.head(writer.max_rows).to_dict("records"):
        row: list[tuple[str, str | None]] = [(str(r["profession"]), None)]
        for col in PROFESSION_CELLS:
            row.append((str(int(r[col])), cell_key("profession", r["profession"], col)))
        row.insert(
            3,
            (pct(r["inconsistent_share"]), cell_key("profession", r["profession"], "inconsistent")),
        )
        rows.append(row)
    add_clickable(
        writer,
        sec,
        name="professions",
        title="Professions in inconsistent triples",
        explanation="How often each profession is in a complete triple, an inconsistent one "
        "and a he/she pair that differs, and which profession the model chose under he, she "
        "and they in those (the direction).",
        shown=(
            [
                "Profession",
                "Triples",
                "Inconsistent",
                "Share inconsistent",
                "Binary inconsistent",
                "Chosen under he",
                "Chosen under she",
                "Chosen under they",
            ],
            rows,
        ),
        data=prof,
    )
    writer.figure(
        sec,
        "professions_inconsistency",
        profession_figure(prof),
        "Professions most often in inconsistent triples",
        "The 20 professions with the most inconsistent triples; beside each, how often it "
        "was the answer under he and under she where the two differed.",
    )
