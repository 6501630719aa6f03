"""Who is represented (seed ``000`` Sections 4.1, 5.1, Appendix A.1, B.3, C.1).

Four tables, all computed from the associated genders of a :class:`PreparedRun`
(invalid generations, i.e. errors and empty texts, are left out of every denominator
and counted in ``n_invalid``):

``representation`` (:data:`gasp.results.REPRESENTATION`), one row per
subject and template of the unspecified generations, plus one row per subject with
``template == "all"``:
    subject, template, n_generations (valid unspecified generations), n_invalid,
    n_F, n_M, n_N, n_unassigned (counts of associated genders),
    share_F, share_M, share_N, share_unassigned (shares of ``n_generations``, summing
    to one), se_F, se_M, se_N, se_unassigned (Bernoulli standard errors
    ``sqrt(p (1 - p) / n)``, Appendix B.3), share_F_of_assigned (women among the
    generations the association assigns), pct_female (``100 * share_F``),
    bls_pct_female, bls_year, bls_group (``female-dominated`` when the BLS share of
    women exceeds 50%, ``male-dominated`` otherwise, empty when unknown),
    pct_female_minus_bls.
    The ``all`` row follows Figure 2 of the paper: shares are the mean of the
    per-template shares (so a template sampled more often by adaptive generation does
    not weigh more), standard errors ``sqrt(sum se_t^2) / T``; counts are sums.

``representation_deciles`` (:data:`gasp.results.DECILES`), the histograms of
Figures 2, 6 and 7:
    measure (``female``: percent of generations associated with women; ``nonbinary``:
    percent associated with non-binary), template (``all`` for Figure 2 and 7, each
    template for Figure 6), bls_group (``male-dominated``, ``female-dominated`` or
    ``all``), bin_low, bin_high (percent; the last bin includes 100), bin_label
    (``"0-10"``), n_subjects.

``capture_rate`` (:data:`gasp.results.CAPTURE_RATE`), Table 2, one row per
condition and template plus ``template == "all"``:
    condition, template, n_generations, n_captured, capture_rate, se, unassigned_share,
    n_invalid.

``association_accuracy`` (:data:`gasp.results.ASSOCIATION_ACCURACY`),
Table 1: the confusion matrix of the association on the generations whose prompt
names a gender, one row per named gender and template plus ``template == "all"``:
    named_gender, template, n_generations, n_F, n_M, n_N, n_unassigned,
    correct_pct, incorrect_pct, unassigned_pct (percent of ``n_generations``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gasp.stats import bernoulli_se
from gasp.studies.more_of_the_same.analysis._config import ALL_TEMPLATES, AnalysisConfig
from gasp.studies.more_of_the_same.analysis._prepare import PreparedRun

LABELS: tuple[str, ...] = ("F", "M", "N", "unassigned")
_COUNT_COLS = [f"n_{g}" for g in LABELS]


def _label_counts(frame: pd.DataFrame, keys: list[str], label_col: str) -> pd.DataFrame:
    """Counts of F, M, N and unassigned per group of ``keys``."""
    labels = frame[label_col].replace("", "unassigned")
    table = pd.crosstab([frame[k] for k in keys], labels)
    table = table.reindex(columns=list(LABELS), fill_value=0)
    table.columns = _COUNT_COLS
    table.columns.name = None
    return table.reset_index()


def _invalid_counts(run: PreparedRun, keys: list[str], unspecified_only: bool) -> pd.DataFrame:
    inv = run.n_invalid
    if unspecified_only:
        inv = inv[inv["named"] == ""]
    if inv.empty:
        return pd.DataFrame(columns=[*keys, "n_invalid"])
    summed: pd.DataFrame = inv.groupby(keys, as_index=False)[["n_invalid"]].sum()
    return summed


def representation_table(run: PreparedRun) -> pd.DataFrame:
    """Shares of associated genders among unspecified generations per subject and template."""
    frame = run.samples.loc[run.unspecified, ["subject", "template", "associated"]]
    columns = [
        "subject",
        "template",
        "n_generations",
        "n_invalid",
        *_COUNT_COLS,
        *[f"share_{g}" for g in LABELS],
        *[f"se_{g}" for g in LABELS],
        "share_F_of_assigned",
        "pct_female",
        "bls_pct_female",
        "bls_year",
        "bls_group",
        "pct_female_minus_bls",
    ]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    per = _label_counts(frame, ["subject", "template"], "associated")
    per["n_generations"] = per[_COUNT_COLS].sum(axis=1)
    n = per["n_generations"].to_numpy(dtype=float)
    for g in LABELS:
        p = per[f"n_{g}"].to_numpy(dtype=float) / n
        per[f"share_{g}"] = p
        per[f"se_{g}"] = bernoulli_se(p, n)
    assigned = per[["n_F", "n_M", "n_N"]].sum(axis=1).to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        per["share_F_of_assigned"] = np.where(assigned > 0, per["n_F"] / assigned, np.nan)

    agg: dict[str, tuple[str, str]] = {c: (c, "sum") for c in [*_COUNT_COLS, "n_generations"]}
    agg |= {f"share_{g}": (f"share_{g}", "mean") for g in LABELS}
    agg["share_F_of_assigned"] = ("share_F_of_assigned", "mean")
    agg["n_templates"] = ("template", "size")
    pooled = per.groupby("subject", as_index=False).agg(**agg)
    for g in LABELS:
        sq = per.assign(_v=per[f"se_{g}"] ** 2).groupby("subject")["_v"].sum()
        pooled[f"se_{g}"] = np.sqrt(sq.reindex(pooled["subject"]).to_numpy()) / pooled[
            "n_templates"
        ].to_numpy(dtype=float)
    pooled["template"] = ALL_TEMPLATES
    out = pd.concat([per, pooled.drop(columns="n_templates")], ignore_index=True)

    inv = _invalid_counts(run, ["subject", "template"], unspecified_only=True)
    inv_all: pd.DataFrame = inv.groupby("subject", as_index=False)[["n_invalid"]].sum()
    inv_all["template"] = ALL_TEMPLATES
    out = out.merge(pd.concat([inv, inv_all], ignore_index=True), how="left")
    out["n_invalid"] = out["n_invalid"].fillna(0).astype(np.int64)

    out["pct_female"] = 100.0 * out["share_F"]
    bls_pct = out["subject"].map(lambda s: run.bls[s].pct_female if s in run.bls else np.nan)
    out["bls_pct_female"] = bls_pct.astype(float)
    out["bls_year"] = (
        out["subject"].map(lambda s: run.bls[s].year if s in run.bls else None).astype("Int64")
    )
    out["bls_group"] = np.select(
        [out["bls_pct_female"] > 50.0, out["bls_pct_female"] <= 50.0],
        ["female-dominated", "male-dominated"],
        default="",
    )
    out["pct_female_minus_bls"] = out["pct_female"] - out["bls_pct_female"]
    order = {t: i for i, t in enumerate(sorted(set(out["template"]) - {ALL_TEMPLATES}))}
    order[ALL_TEMPLATES] = len(order)
    out = out.sort_values(
        ["subject", "template"], key=lambda s: s.map(order) if s.name == "template" else s
    )
    return out[columns].reset_index(drop=True)


def _bins(width: float) -> np.ndarray:
    edges = np.arange(0.0, 100.0, width)
    return np.append(edges, 100.0)


def _histogram(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts per bin ``[low, high)``, the last bin closed at 100."""
    idx = np.searchsorted(edges, values, side="right") - 1
    idx = np.clip(idx, 0, edges.size - 2)
    return np.bincount(idx[~np.isnan(values)], minlength=edges.size - 1)


def decile_table(representation: pd.DataFrame, config: AnalysisConfig) -> pd.DataFrame:
    """Subjects counted per bin of the percent of women (Figures 2, 6) and non-binary (Fig. 7)."""
    edges = _bins(config.decile_width)
    rows: list[dict[str, object]] = []

    def emit(measure: str, template: str, group: str, values: np.ndarray) -> None:
        counts = _histogram(values, edges)
        for low, high, n in zip(edges[:-1], edges[1:], counts, strict=True):
            rows.append(
                {
                    "measure": measure,
                    "template": template,
                    "bls_group": group,
                    "bin_low": float(low),
                    "bin_high": float(high),
                    "bin_label": f"{low:g}-{high:g}",
                    "n_subjects": int(n),
                }
            )

    templates = [t for t in representation["template"].unique() if t != ALL_TEMPLATES]
    for template in [ALL_TEMPLATES, *sorted(templates)]:
        part = representation[representation["template"] == template]
        pct_f = 100.0 * part["share_F"].to_numpy(dtype=float)
        for group in ("male-dominated", "female-dominated"):
            mask = (part["bls_group"] == group).to_numpy()
            if mask.any():
                emit("female", template, group, pct_f[mask])
        emit("female", template, "all", pct_f)
        emit("nonbinary", template, "all", 100.0 * part["share_N"].to_numpy(dtype=float))
    return pd.DataFrame(
        rows,
        columns=[
            "measure",
            "template",
            "bls_group",
            "bin_low",
            "bin_high",
            "bin_label",
            "n_subjects",
        ],
    )


def capture_rate_table(run: PreparedRun) -> pd.DataFrame:
    """Share of generations the association assigns a gender, per condition and template."""
    frame = run.samples[["condition", "template", "associated"]].copy()
    frame["captured"] = frame["associated"] != ""
    per = frame.groupby(["condition", "template"], as_index=False).agg(
        n_generations=("captured", "size"), n_captured=("captured", "sum")
    )
    pooled = frame.groupby("condition", as_index=False).agg(
        n_generations=("captured", "size"), n_captured=("captured", "sum")
    )
    pooled["template"] = ALL_TEMPLATES
    out = pd.concat([per, pooled], ignore_index=True)
    n = out["n_generations"].to_numpy(dtype=float)
    rate = out["n_captured"].to_numpy(dtype=float) / n
    out["capture_rate"] = rate
    out["se"] = bernoulli_se(rate, n)
    out["unassigned_share"] = 1.0 - rate
    inv = _invalid_counts(run, ["condition", "template"], unspecified_only=False)
    inv_all: pd.DataFrame = inv.groupby("condition", as_index=False)[["n_invalid"]].sum()
    inv_all["template"] = ALL_TEMPLATES
    out = out.merge(pd.concat([inv, inv_all], ignore_index=True), how="left")
    out["n_invalid"] = out["n_invalid"].fillna(0).astype(np.int64)
    out["n_captured"] = out["n_captured"].astype(np.int64)
    cols = [
        "condition",
        "template",
        "n_generations",
        "n_captured",
        "capture_rate",
        "se",
        "unassigned_share",
        "n_invalid",
    ]
    return out[cols].reset_index(drop=True)


def association_accuracy_table(run: PreparedRun) -> pd.DataFrame:
    """Confusion matrix of named gender x associated gender (Table 1), unassigned included."""
    frame = run.samples.loc[~run.unspecified, ["named", "template", "associated"]]
    cols = [
        "named_gender",
        "template",
        "n_generations",
        *_COUNT_COLS,
        "correct_pct",
        "incorrect_pct",
        "unassigned_pct",
    ]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    per = _label_counts(frame, ["named", "template"], "associated")
    pooled = _label_counts(frame, ["named"], "associated")
    pooled["template"] = ALL_TEMPLATES
    out = pd.concat([per, pooled], ignore_index=True).rename(columns={"named": "named_gender"})
    out["n_generations"] = out[_COUNT_COLS].sum(axis=1)
    n = out["n_generations"].to_numpy(dtype=float)
    correct = np.array(
        [row[f"n_{g}"] for g, (_, row) in zip(out["named_gender"], out.iterrows(), strict=True)],
        dtype=float,
    )
    unassigned = out["n_unassigned"].to_numpy(dtype=float)
    out["correct_pct"] = 100.0 * correct / n
    out["unassigned_pct"] = 100.0 * unassigned / n
    out["incorrect_pct"] = 100.0 * (n - correct - unassigned) / n
    return out[cols].reset_index(drop=True)


def analyze_representation(run: PreparedRun, config: AnalysisConfig) -> dict[str, pd.DataFrame]:
    """The four "who is represented" tables, keyed by their names in :mod:`gasp.results`."""
    from gasp.studies.more_of_the_same import _tables as names

    rep = representation_table(run)
    return {
        names.REPRESENTATION: rep,
        names.DECILES: decile_table(rep, config),
        names.CAPTURE_RATE: capture_rate_table(run),
        names.ASSOCIATION_ACCURACY: association_accuracy_table(run),
    }
