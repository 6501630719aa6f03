"""The comparison page of narrative runs: shares with intervals per run, the tests, a chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gasp.report import ReportWriter, error_bars, new_figure
from gasp.results import AuditResults
from gasp.studies.pronoun_pairs._narrative_compare import COMPARE_SHARES, COMPARE_TESTS, GENDERS
from gasp.studies.pronoun_pairs.report._common import pct, pct_ci


def _intro(results: AuditResults) -> str:
    s = results.settings
    return (
        "The share of stories whose protagonist has a female, male or unknown (U) name, per "
        f"profession over all openings, in every run, with its {s.get('interval', 'Wilson')} "
        "interval. For every pair of runs and every profession both ran, the F/M/U split is "
        f"tested: {s.get('test', 'Pearson chi-square')}, its p-value from the chi-square "
        "distribution when every expected count is at least "
        f"{float(s.get('exact_below_expected', 5)):g}, else the exact conditional p-value "
        "(Fisher's test; Freeman-Halton for three categories); no test when only one "
        "category occurs. p_adjusted: Benjamini-Hochberg over the professions of a pair "
        "(Overall left out)."
    )


def female_figure(shares: pd.DataFrame) -> Figure | None:
    """The female share per profession with its interval, one marker per run."""
    part = shares[shares["profession"] != "Overall"]
    if part.empty:
        return None
    professions = list(dict.fromkeys(part["profession"]))
    runs = list(dict.fromkeys(part["run"]))
    fig = new_figure(6.0, 0.3 * len(professions) + 1.4)
    ax = fig.add_subplot()
    y = np.arange(len(professions))
    step = 0.6 / max(1, len(runs))
    for i, run in enumerate(runs):
        rows = part[part["run"] == run].set_index("profession").reindex(professions)
        share = rows["female_share"].to_numpy(float)
        err = error_bars(share, rows["female_share_low"], rows["female_share_high"], 100)
        ax.errorbar(100 * share, y + i * step - 0.3 + step / 2, xerr=err, fmt="o", label=run)
    ax.set_yticks(y, professions)
    ax.set_xlim(0, 100)
    ax.set_xlabel("stories with a female protagonist (%)")
    ax.legend(fontsize=7)
    return fig


def add_narrative_comparison(writer: ReportWriter, results: AuditResults) -> None:
    """The shares of every run, the figure and the tests of every pair of runs."""
    shares, tests = results[COMPARE_SHARES], results[COMPARE_TESTS]
    sec = writer.section("Comparison of runs: who the protagonist is", _intro(results))
    shown = shares[["run", "profession", "stories"]].copy()
    for gender in GENDERS:
        shown[gender] = [
            pct_ci({str(k): v for k, v in r.items()}, f"{gender}_share")
            for r in shares.to_dict("records")
        ]
    writer.table(
        sec,
        "narrative_compare_shares_shown",
        shown,
        "Protagonists per profession and run",
        "Share of the stories (95% interval in brackets); F, M and U add up to 100%.",
    )
    writer.figure(
        sec,
        "narrative_compare_female",
        female_figure(shares),
        "Female protagonists per profession and run",
        "Each marker is one run's share of stories with a female protagonist, with its interval.",
    )
    view = tests[["first", "second", "profession", "stories_first", "stories_second"]].copy()
    for gender in GENDERS:
        first, second = tests[f"{gender}_share_first"], tests[f"{gender}_share_second"]
        view[gender] = [f"{pct(a)} vs {pct(b)}" for a, b in zip(first, second, strict=True)]
    for column in ("statistic", "df", "test", "p_value", "p_adjusted"):
        view[column] = tests[column]
    writer.table(
        sec,
        "narrative_compare_tests_shown",
        view,
        "Does the split differ between runs?",
        "Shares of the first vs the second run; statistic: Pearson's chi-square with df "
        "degrees of freedom; test: which p-value (chi-square or exact); p_adjusted over "
        "the professions of the pair.",
    )
    for name, table in ((COMPARE_SHARES, shares), (COMPARE_TESTS, tests)):
        writer.table(
            sec,
            name,
            table,
            f"{name.replace('_', ' ').capitalize()}: every column",
            "The table as saved (shares from 0 to 1, interval bounds in their own columns).",
            collapsed=True,
        )
