"""Figures 1, 2, 3 and A1 of Marked Personas, drawn from saved tables only."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gasp.report import new_figure, outside_legend

_COLOURS = ("#4C78A8", "#F58518", "#54A24B", "#B279A2", "#E45756", "#72B7B2")


def _pair(groups: list[str]) -> list[str]:
    """Black and White where both exist (the paper's figures), else every group."""
    return ["Black", "White"] if {"Black", "White"} <= set(groups) else groups


def figure_lexicon_rates(rates: pd.DataFrame, counting: str = "tokens") -> Figure | None:
    """Figure 1: mean % of words in the Black and White lexicons, per group, with SE
    (rates of one ``counting``)."""
    data = rates[rates["counting"] == counting]
    if data.empty:
        return None
    lexicons = _pair(list(dict.fromkeys(data["lexicon"])))
    groups = _pair(list(dict.fromkeys(data["group"])))
    fig = new_figure(5.5, 3.2)
    ax = fig.add_subplot()
    width = 0.8 / max(len(groups), 1)
    x = np.arange(len(lexicons))
    for i, group in enumerate(groups):
        sub = data[data["group"] == group].set_index("lexicon").reindex(lexicons)
        ax.bar(
            x + i * width,
            sub["mean_pct"].fillna(0),
            width,
            yerr=sub["se_pct"].fillna(0),
            label=f"{group} texts",
            color=_COLOURS[i % len(_COLOURS)],
            capsize=3,
        )
    ax.set_xticks(x + width * (len(groups) - 1) / 2, [f"{lex} lexicon" for lex in lexicons])
    ax.set_ylabel("% of words in the lexicon")
    outside_legend(fig, fontsize=8)
    return fig


def figure_lexicon_words(words: pd.DataFrame, lexicon: str = "Black") -> Figure | None:
    """Figure 2: share of texts containing each word of one lexicon, per group."""
    data = words[words["lexicon"] == lexicon]
    if data.empty:
        return None
    groups = _pair(list(dict.fromkeys(data["group"])))
    totals = data.groupby("word", sort=False)["occurrences"].sum()
    shown = [w for w in totals.index if totals[w] > 0]
    other = [w for w in totals.index if totals[w] == 0]
    fig = new_figure(6.5, 3.4)
    ax = fig.add_subplot()
    labels = [*shown, "other words"] if other else shown
    x = np.arange(len(labels))
    width = 0.8 / max(len(groups), 1)
    for i, group in enumerate(groups):
        sub = data[data["group"] == group].set_index("word")
        values = [100 * float(sub.loc[w, "share_containing"]) for w in shown]
        if other:
            values.append(0.0)
        ax.bar(
            x + i * width, values, width, label=f"{group} texts", color=_COLOURS[i % len(_COLOURS)]
        )
    ax.set_xticks(x + width * (len(groups) - 1) / 2, labels, rotation=45, ha="right")
    ax.set_ylabel("% of texts containing the word")
    ax.set_title(f"{lexicon} stereotype lexicon", fontsize=9)
    outside_legend(fig, fontsize=8)
    return fig


def figure_resilience(table: pd.DataFrame) -> Figure | None:
    """Figure 3: % of texts with "resilient" or "resilience", per group."""
    if table.empty:
        return None
    fig = new_figure(6.5, 3.2)
    ax = fig.add_subplot()
    x = np.arange(len(table))
    ax.bar(x, 100 * table["share_containing"], color=_COLOURS[0])
    ax.set_xticks(x, table["group"].astype(str), rotation=45, ha="right")
    ax.set_ylabel('% of texts with "resilient"/"resilience"')
    return fig


def figure_lexicon_matrix(rates: pd.DataFrame, counting: str = "tokens") -> Figure | None:
    """Figure A1: mean % of each lexicon's words in each group's texts (heat map)."""
    data = rates[rates["counting"] == counting]
    if data.empty:
        return None
    pivot = data.pivot_table(index="lexicon", columns="group", values="mean_pct", sort=False)
    fig = new_figure(6.0, 3.4)
    ax = fig.add_subplot()
    image = ax.imshow(pivot.to_numpy(), cmap="Blues", aspect="auto")
    ax.set_xticks(range(pivot.shape[1]), [str(c) for c in pivot.columns], rotation=45, ha="right")
    ax.set_yticks(range(pivot.shape[0]), [f"{i} lexicon" for i in pivot.index])
    values = pivot.to_numpy()
    high = np.nanmax(values) if values.size else 0.0
    for (i, j), value in np.ndenumerate(values):
        colour = "white" if high > 0 and value > 0.6 * high else "black"
        ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7, color=colour)
    fig.colorbar(image, ax=ax, label="% of words")
    return fig


def figure_svm(accuracy: pd.DataFrame) -> Figure | None:
    """Accuracy of each one-vs-rest SVM beside its majority-class baseline."""
    if accuracy.empty:
        return None
    fig = new_figure(7.0, 3.2)
    ax = fig.add_subplot()
    x = np.arange(len(accuracy))
    ax.bar(x - 0.2, accuracy["accuracy"], 0.4, label="accuracy", color=_COLOURS[0])
    ax.bar(x + 0.2, accuracy["baseline"], 0.4, label="majority baseline", color="#BBBBBB")
    ax.plot(x, accuracy["balanced_accuracy"], "o", color=_COLOURS[1], label="balanced accuracy")
    ax.set_xticks(x, accuracy["group"].astype(str), rotation=60, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    outside_legend(fig)
    return fig
