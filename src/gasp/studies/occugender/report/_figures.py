"""Figures of the OccuGender report (from saved tables only)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from gasp.report import error_bars, new_figure, outside_legend

_COLOURS = {"female-dominated": "#b2182b", "male-dominated": "#2166ac"}


def jobs_figure(jobs: pd.DataFrame, condition: str, approximate: bool) -> Figure | None:
    """P~_f of each job against its BLS share of women, one panel per task, with y = x."""
    part = jobs[jobs["condition"].astype(str) == condition]
    tasks = list(dict.fromkeys(part["task"]))
    if part.empty:
        return None
    fig = new_figure(4.2 * len(tasks), 4.0)
    axes = fig.subplots(1, len(tasks), squeeze=False)[0]
    for ax, task in zip(axes, tasks, strict=True):
        sub = part[part["task"] == task]
        for group, rows in sub.groupby("group", sort=False):
            ax.scatter(
                rows["bls_pct_female"],
                rows["F"],
                s=18,
                color=_COLOURS.get(str(group), "#555555"),
                label=str(group),
            )
        ax.plot([0, 100], [0, 100], color="#999999", linewidth=0.8, linestyle="--")
        ax.set_xlim(-2, 102)
        ax.set_ylim(-2, 102)
        ax.set_xlabel("BLS share of women (%)")
        ax.set_ylabel("P~_f (%)" + (" (approximate)" if approximate else ""))
        ax.set_title(f"{task} (dashed: model = BLS)")
    outside_legend(fig)
    return fig


def gap_figure(summary: pd.DataFrame, approximate: bool) -> Figure | None:
    """The gap F(female-dominated) - F(male-dominated) per condition, with intervals."""
    if summary.empty:
        return None
    tasks = list(dict.fromkeys(summary["task"]))
    fig = new_figure(4.2 * len(tasks), 3.2)
    axes = fig.subplots(1, len(tasks), squeeze=False)[0]
    for ax, task in zip(axes, tasks, strict=True):
        sub = summary[summary["task"] == task]
        labels = [str(c) for c in sub["condition"]]
        x = range(len(sub))
        ax.errorbar(
            list(x),
            sub["gap_f"],
            yerr=error_bars(sub["gap_f"], sub["gap_low"], sub["gap_high"]),
            fmt="o",
            color="#333333",
            capsize=3,
        )
        ax.axhline(0, color="#999999", linewidth=0.8)
        ax.set_xticks(list(x), labels)
        ax.set_xlabel("debiasing prompt")
        ax.set_ylabel("gap in P~_f (points)" + (" (approx.)" if approximate else ""))
        ax.set_title(task)
    return fig
