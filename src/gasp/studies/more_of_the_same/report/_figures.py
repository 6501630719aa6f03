"""The More of the Same figures, drawn with matplotlib from the result tables (nothing recomputed).

Each ``*_figure`` function takes a result table and returns a
:class:`matplotlib.figure.Figure`, or None when the table lacks what the figure
needs (the report then shows the table alone). :func:`save_figure` writes a
figure as PNG and SVG and returns the PNG bytes for embedding. Figures are built
without pyplot, so no global state is touched.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from gasp.report import error_bars, new_figure, outside_legend

FEMALE = "#c2417a"
MALE = "#2e8b57"
NONBINARY = "#7b5ea7"
UNASSIGNED = "#9a9a9a"
BLS = "#222222"
GENDER_COLOURS = {"F": FEMALE, "M": MALE, "N": NONBINARY, "unassigned": UNASSIGNED}
ALL = "all"

#: Share of US adults identifying as non-binary used as the reference line of Figure 7
#: (about 1.6%, cited in seed ``000`` Section 5.1).
NONBINARY_BENCHMARK_PCT = 1.6


def _has(df: pd.DataFrame | None, *cols: str) -> bool:
    return df is not None and not df.empty and all(c in df.columns for c in cols)


def _pooled(df: pd.DataFrame) -> pd.DataFrame:
    """Rows pooled over templates (``template == "all"``), or all rows when no such column."""
    if "template" in df.columns and (df["template"].astype(str) == ALL).any():
        return df[df["template"].astype(str) == ALL]
    return df


def _height(n: int, per: float = 0.22, base: float = 1.4) -> float:
    return float(min(max(base + per * n, 2.6), 40.0))


def representation_figure(rep: pd.DataFrame | None) -> Figure | None:
    """Share of women per subject (unspecified prompts) with 95% intervals, beside BLS."""
    if not _has(rep, "subject", "pct_female"):
        return None
    assert rep is not None
    df = _pooled(rep).copy()
    se = df["se_F"] * 100 if "se_F" in df else pd.Series(0.0, index=df.index)
    df["_err"] = 1.96 * se.fillna(0.0)
    key = "bls_pct_female" if "bls_pct_female" in df else "pct_female"
    df = df.sort_values([key, "pct_female"], na_position="first")
    y = np.arange(len(df))
    fig = new_figure(7.0, _height(len(df)))
    ax = fig.add_subplot()
    ax.errorbar(
        df["pct_female"],
        y,
        xerr=df["_err"],
        fmt="o",
        color=FEMALE,
        ms=4,
        capsize=2,
        label="women in generations (±1.96 SE)",
    )
    if "bls_pct_female" in df and df["bls_pct_female"].notna().any():
        ax.scatter(df["bls_pct_female"], y, marker="x", color=BLS, s=22, label="BLS")
    ax.axvline(50, color="#bbbbbb", lw=0.8, ls="--")
    ax.set_yticks(y, df["subject"].astype(str))
    ax.set_xlim(-2, 102)
    ax.set_xlabel("% of generations associated with women")
    outside_legend(fig, fontsize=8)
    return fig


def representation_by_template_figure(rep: pd.DataFrame | None) -> Figure | None:
    """Figure 6: % of women per subject for each template, beside BLS."""
    if not _has(rep, "subject", "template", "pct_female"):
        return None
    assert rep is not None
    df = rep[rep["template"].astype(str) != ALL]
    if df.empty:
        return None
    subjects = _pooled(rep)
    key = "bls_pct_female" if "bls_pct_female" in subjects else "pct_female"
    order = subjects.sort_values(key, na_position="first")["subject"].astype(str).drop_duplicates()
    pos = {s: i for i, s in enumerate(order)}
    templates = sorted(df["template"].astype(str).unique())
    markers = ["o", "s", "^", "D", "v", "P", "*"]
    fig = new_figure(7.0, _height(len(pos)))
    ax = fig.add_subplot()
    for i, template in enumerate(templates):
        part = df[df["template"].astype(str) == template]
        yy = part["subject"].astype(str).map(pos).to_numpy(dtype=float)
        offset = (i - (len(templates) - 1) / 2) * 0.18
        ax.scatter(
            part["pct_female"],
            yy + offset,
            marker=markers[i % len(markers)],
            s=16,
            label=f"template: {template}",
            alpha=0.85,
        )
    if "bls_pct_female" in subjects:
        bls = subjects.drop_duplicates("subject")
        ax.scatter(
            bls["bls_pct_female"],
            bls["subject"].astype(str).map(pos),
            marker="x",
            color=BLS,
            s=22,
            label="BLS",
        )
    ax.set_yticks(list(pos.values()), list(pos.keys()))
    ax.set_xlim(-2, 102)
    ax.axvline(50, color="#bbbbbb", lw=0.8, ls="--")
    ax.set_xlabel("% of generations associated with women")
    outside_legend(fig, fontsize=8)
    return fig


def deciles_figure(
    deciles: pd.DataFrame | None, measure: str = "female", per_template: bool = False
) -> Figure | None:
    """Figures 2 and 6 (``measure="female"``) and 7 (``"nonbinary"``): subjects per decile.

    One panel per BLS group (male- and female-dominated, or all); with
    ``per_template`` one bar colour per template, else the pooled ``all`` rows.
    """
    if not _has(deciles, "measure", "template", "bls_group", "bin_label", "n_subjects"):
        return None
    assert deciles is not None
    df = deciles[deciles["measure"].astype(str) == measure]
    tmpl = df["template"].astype(str)
    df = df[tmpl != ALL] if per_template else df[tmpl == ALL]
    if df.empty:
        return None
    groups = [g for g in ("male-dominated", "female-dominated") if g in set(df["bls_group"])]
    if not groups:
        groups = sorted(df["bls_group"].astype(str).unique())
    bins = df.sort_values("bin_low")["bin_label"].astype(str).drop_duplicates().tolist()
    templates = sorted(df["template"].astype(str).unique())
    fig = new_figure(4.2 * len(groups), 3.2)
    axes = fig.subplots(1, len(groups), squeeze=False, sharey=True)[0]
    width = 0.8 / len(templates)
    x = np.arange(len(bins))
    for ax, group in zip(axes, groups, strict=True):
        part = df[df["bls_group"].astype(str) == group]
        for i, template in enumerate(templates):
            rows = part[part["template"].astype(str) == template]
            counts = rows.set_index(rows["bin_label"].astype(str))["n_subjects"]
            counts = counts.groupby(level=0).sum().reindex(bins, fill_value=0)
            ax.bar(
                x + (i - (len(templates) - 1) / 2) * width,
                counts.to_numpy(),
                width,
                color=None if per_template else (NONBINARY if measure == "nonbinary" else FEMALE),
                label=f"template: {template}" if per_template else None,
            )
        ax.set_xticks(x, bins, rotation=45, ha="right")
        ax.set_title(group)
        what = "non-binary" if measure == "nonbinary" else "women"
        ax.set_xlabel(f"% of generations associated with {what}")
    axes[0].set_ylabel("number of subjects")
    axes[0].yaxis.set_major_locator(MaxNLocator(integer=True))
    if per_template:
        outside_legend(fig, fontsize=8)
    return fig


def nonbinary_figure(rep: pd.DataFrame | None) -> Figure | None:
    """Figure 7 per subject: % of generations associated with non-binary, with 1.6% reference."""
    if not _has(rep, "subject", "share_N"):
        return None
    assert rep is not None
    df = _pooled(rep).sort_values("share_N")
    y = np.arange(len(df))
    err = 1.96 * 100 * df["se_N"].fillna(0.0) if "se_N" in df else None
    fig = new_figure(6.5, _height(len(df)))
    ax = fig.add_subplot()
    ax.barh(y, 100 * df["share_N"], xerr=err, color=NONBINARY, capsize=2)
    ax.axvline(
        NONBINARY_BENCHMARK_PCT,
        color=BLS,
        ls="--",
        lw=0.9,
        label=f"{NONBINARY_BENCHMARK_PCT}% of US adults",
    )
    ax.set_yticks(y, df["subject"].astype(str))
    ax.set_xlabel("% of generations associated with non-binary (±1.96 SE)")
    outside_legend(fig, fontsize=8)
    return fig


def confusion_figure(acc: pd.DataFrame | None) -> Figure | None:
    """Table 1 as a heat map: named gender (rows) by associated gender (columns), in %."""
    cols = ["n_F", "n_M", "n_N", "n_unassigned"]
    if not _has(acc, "named_gender", "n_generations", *cols):
        return None
    assert acc is not None
    df = _pooled(acc).groupby("named_gender")[[*cols, "n_generations"]].sum()
    if df.empty:
        return None
    pct = 100 * df[cols].div(df["n_generations"].replace(0, np.nan), axis=0).fillna(0.0)
    fig = new_figure(4.8, 1.2 + 0.5 * len(pct))
    ax = fig.add_subplot()
    ax.imshow(pct.to_numpy(), cmap="viridis", vmin=0, vmax=100, aspect="auto")
    for (i, j), v in np.ndenumerate(pct.to_numpy()):
        ax.text(j, i, f"{v:.1f}", ha="center", va="center", color="white" if v < 60 else "black")
    ax.set_xticks(range(4), ["F", "M", "N", "unassigned"])
    ax.set_yticks(range(len(pct)), [str(i) for i in pct.index])
    ax.set_xlabel("associated gender")
    ax.set_ylabel("gender named in the prompt")
    return fig


def _srb_long(srb: pd.DataFrame) -> pd.DataFrame | None:
    """SRB scores as (subject, gender, score, ci_low, ci_high) rows, whatever the layout."""
    if _has(srb, "subject", "gender", "srb"):
        out = srb.rename(columns={"srb": "score"})
    elif _has(srb, "subject", "gender", "score"):
        out = srb
    elif _has(srb, "subject", "srb_F", "srb_M"):
        parts = []
        for g in ("F", "M"):
            part = pd.DataFrame({"subject": srb["subject"], "gender": g, "score": srb[f"srb_{g}"]})
            for end in ("low", "high"):
                for name in (f"ci_{end}_{g}", f"srb_{g}_ci_{end}", f"srb_{g}_{end}"):
                    if name in srb:
                        part[f"ci_{end}"] = srb[name].to_numpy()
                        break
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
    else:
        return None
    return out


def srb_figure(srb: pd.DataFrame | None) -> Figure | None:
    """Figure 3: SRB of associated women and men per subject with confidence intervals."""
    if srb is None or srb.empty:
        return None
    df = _srb_long(srb)
    if df is None:
        return None
    for extra in ("template", "model"):
        if extra in df and df[extra].nunique() > 1:
            df = df.assign(subject=df["subject"].astype(str) + " · " + df[extra].astype(str))
    df = df[df["gender"].astype(str).isin(["F", "M"])]
    df = df[pd.to_numeric(df["score"], errors="coerce").notna()]
    subjects = sorted(df["subject"].astype(str).unique())
    if not subjects:
        return None
    pos = {s: i for i, s in enumerate(subjects)}
    fig = new_figure(6.5, _height(len(subjects), per=0.3))
    ax = fig.add_subplot()
    for gender, colour, offset, label in (
        ("F", FEMALE, -0.12, "associated women: SRB(S_AF ‖ S_F, S_M)"),
        ("M", MALE, 0.12, "associated men: SRB(S_AM ‖ S_F, S_M)"),
    ):
        part = df[df["gender"].astype(str) == gender]
        if part.empty:
            continue
        yy = part["subject"].astype(str).map(pos).to_numpy(dtype=float) + offset
        score = part["score"].to_numpy(dtype=float)
        if _has(part, "ci_low", "ci_high"):
            lo, hi = part["ci_low"].to_numpy(dtype=float), part["ci_high"].to_numpy(dtype=float)
            bar = np.isfinite(lo) & np.isfinite(hi)
            xerr = error_bars(score, lo, hi)[:, bar]
        else:
            bar, xerr = np.ones(score.size, dtype=bool), None
        ax.errorbar(
            score[bar], yy[bar], xerr=xerr, fmt="o", color=colour, ms=4, capsize=2, label=label
        )
        # scores without an interval: a hollow dot and no bar (the text says why)
        ax.plot(score[~bar], yy[~bar], "o", mfc="none", color=colour, ms=4)
    ax.axvline(0, color=BLS, lw=0.8)
    ax.set_yticks(list(pos.values()), list(pos.keys()))
    ax.set_xlabel("SRB score (negative: closer to named women; positive: closer to named men)")
    fig.legend(loc="outside upper center", ncols=2, fontsize=8)
    return fig


def silhouette_figure(sil: pd.DataFrame | None) -> Figure | None:
    """Figure 8: silhouette score against the number of clusters k."""
    if not _has(sil, "k"):
        return None
    assert sil is not None
    score = "silhouette" if "silhouette" in sil else ("score" if "score" in sil else None)
    if score is None:
        return None
    df = sil.sort_values("k")
    fig = new_figure(5.5, 3.0)
    ax = fig.add_subplot()
    ax.plot(df["k"], df[score], marker="o", ms=3, color="#1f5f8b")
    if "chosen" in df:
        chosen = df[df["chosen"].astype(bool)]
        if not chosen.empty:
            ax.scatter(
                chosen["k"],
                chosen[score],
                s=60,
                facecolors="none",
                edgecolors="#d1495b",
                label="k used",
                zorder=3,
            )
            outside_legend(fig, fontsize=8)
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("silhouette score")
    return fig


def percent_change_figure(pc: pd.DataFrame | None) -> Figure | None:
    """Figure 4: percent change of the SRB score per subject and gender between two models."""
    if not _has(pc, "subject"):
        return None
    assert pc is not None
    value = next((c for c in ("percent_change", "pct_change", "change_pct") if c in pc), None)
    if value is None:
        return None
    pc = _pooled(pc)
    pc = pc[pd.to_numeric(pc[value], errors="coerce").notna()]
    if pc.empty:
        return None
    if {"model_a", "model_b"} <= set(pc.columns):
        pairs = pc["model_a"].astype(str) + " → " + pc["model_b"].astype(str)
        if pairs.nunique() > 1:
            pc = pc.assign(subject=pc["subject"].astype(str) + " (" + pairs + ")")
    gender_col = "gender" if "gender" in pc else None
    subjects = sorted(pc["subject"].astype(str).unique())
    pos = {s: i for i, s in enumerate(subjects)}
    fig = new_figure(6.5, _height(len(subjects), per=0.3))
    ax = fig.add_subplot()
    genders: Sequence[str] = sorted(pc[gender_col].astype(str).unique()) if gender_col else [""]
    for i, gender in enumerate(genders):
        part = pc if not gender_col else pc[pc[gender_col].astype(str) == gender]
        yy = part["subject"].astype(str).map(pos).to_numpy(dtype=float)
        h = 0.8 / len(genders)
        ax.barh(
            yy + (i - (len(genders) - 1) / 2) * h,
            part[value].to_numpy(dtype=float),
            h,
            color=GENDER_COLOURS.get(gender, "#1f5f8b"),
            label=f"associated {gender}" if gender else None,
        )
    ax.axvline(0, color=BLS, lw=0.8)
    ax.set_yticks(list(pos.values()), list(pos.keys()))
    ax.set_xlabel("% change of the SRB score")
    if gender_col:
        outside_legend(fig, fontsize=8)
    return fig
