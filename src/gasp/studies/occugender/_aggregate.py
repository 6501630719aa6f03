"""Averages of the cell shares (over templates, then over the jobs of each group), their
bootstrap intervals over jobs and templates, and the statistics beyond the paper.

The bootstrap resamples, in each of ``n_boot`` rounds, the jobs of each group and the
templates of the task, both with replacement (the templates drawn once per round and
shared by both groups), and recomputes the group means from the cells; the interval is
the percentile interval at ``confidence``. With one template per task only the jobs vary.
The draws come from :func:`gasp.stats.draw_weights` under the ``cluster`` scheme of
:class:`gasp.stats.IntervalScheme`: the cell shares are computed, not sampled, so the
only variation an interval can speak of is which jobs and templates were chosen.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from gasp.stats import CLUSTER, IntervalScheme, draw_weights
from gasp.studies.occugender._data import GROUPS, NO_DEBIASING

VALUES = ("M", "F", "D", "coverage")
#: The id of the row without a debiasing prompt in Tables 6-11 (the paper's "None";
#: spelled so that reading the CSV back does not turn it into a missing value).
NO_PROMPT = "no prompt"


@dataclass(frozen=True)
class Bootstrap:
    """Settings of the intervals: resamples, confidence and the recorded seed."""

    n_boot: int = 1000
    confidence: float = 0.95
    seed: int = 0

    def scheme(self) -> IntervalScheme:
        """The interval scheme: whole jobs and templates drawn with replacement."""
        return IntervalScheme(
            CLUSTER,
            self.n_boot,
            self.seed,
            self.confidence,
            unit="jobs and templates",
            expanded=False,
        )


def job_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Per (task, condition, job): the shares and coverage averaged over templates, and the
    amplification ``F - bls_pct_female`` (percentage points)."""
    keys = ["task", "condition", "level", "job", "group", "bls_pct_female", "bls_year"]
    valid = cells.dropna(subset=["M"])
    table = valid.groupby(keys, sort=False, dropna=False).agg(
        M=("M", "mean"),
        F=("F", "mean"),
        D=("D", "mean"),
        coverage=("coverage", "mean"),
        n_templates=("template", "nunique"),
        approximate=("approximate", "any"),
    )
    table = table.reset_index()
    table["amplification_f"] = table["F"] - table["bls_pct_female"]
    return table


def _array(cells: pd.DataFrame, jobs: list[str], templates: list[str]) -> np.ndarray:
    """Values (job, template, value) of one (task, condition, group); NaN where missing."""
    out = np.full((len(jobs), len(templates), len(VALUES)), np.nan)
    j_index = {str(j): i for i, j in enumerate(jobs)}
    t_index = {str(t): i for i, t in enumerate(templates)}
    valid = cells.dropna(subset=["M"])
    for job, template, *values in zip(
        valid["job"], valid["template"], *(valid[v] for v in VALUES), strict=True
    ):
        out[j_index[str(job)], t_index[str(template)]] = values
    return out


def _weighted(arr: np.ndarray, wj: np.ndarray, wt: np.ndarray) -> np.ndarray:
    """Resampled means (rounds, value): cells weighted by job and template draw counts."""
    mask = ~np.isnan(arr[..., 0])
    filled = np.nan_to_num(arr)
    w = wj[:, :, None] * wt[:, None, :] * mask[None]
    num = np.einsum("bjt,jtv->bv", w, filled)
    den = w.sum(axis=(1, 2))[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


def _draws(rng: np.random.Generator, n: int, boot: Bootstrap) -> np.ndarray:
    """(rounds, n) times each of ``n`` jobs or templates is drawn in each round."""
    return draw_weights(boot.scheme(), rng, n)


def _point(arr: np.ndarray) -> np.ndarray:
    """Mean over templates, then over jobs (NaN cells left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a job or value with no cell: NaN
        per_job = np.nanmean(arr, axis=1)
        return np.asarray(np.nanmean(per_job, axis=0))


def _interval(res: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column of resampled values (rounds with NaN left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(res, alpha, axis=0), np.nanquantile(res, 1.0 - alpha, axis=0)


def group_table(cells: pd.DataFrame, boot: Bootstrap) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (task, condition, group): shares and coverage with intervals; and per (task,
    condition): the gap ``F(female-dominated) - F(male-dominated)`` with its interval."""
    rng = np.random.default_rng(boot.seed)
    alpha = (1.0 - boot.confidence) / 2.0
    rows, gaps = [], []
    for (task, condition), part in cells.groupby(["task", "condition"], sort=False):
        templates = list(dict.fromkeys(part["template"]))
        wt = _draws(rng, len(templates), boot)
        means: dict[str, np.ndarray] = {}
        for group in GROUPS:
            sub = part[part["group"] == group]
            jobs = list(dict.fromkeys(sub["job"]))
            if not jobs:
                continue
            arr = _array(sub, jobs, templates)
            point = _point(arr)
            res = _weighted(arr, _draws(rng, len(jobs), boot), wt)
            means[group] = res
            lo, hi = _interval(res, alpha)
            row = {
                "task": task,
                "condition": condition,
                "level": sub["level"].iloc[0],
                "group": group,
            }
            for i, v in enumerate(VALUES):
                row[v] = point[i]
                row[f"{v}_low"], row[f"{v}_high"] = lo[i], hi[i]
            row.update(
                n_jobs=len(jobs),
                n_templates=len(templates),
                approximate=bool(sub["approximate"].any()),
            )
            rows.append(row)
        if len(means) == len(GROUPS):
            f = VALUES.index("F")
            fem = part[part["group"] == GROUPS[0]]
            mal = part[part["group"] == GROUPS[1]]
            point = (
                _point(_array(fem, list(dict.fromkeys(fem["job"])), templates))[f]
                - _point(_array(mal, list(dict.fromkeys(mal["job"])), templates))[f]
            )
            diff = means[GROUPS[0]][:, f] - means[GROUPS[1]][:, f]
            gaps.append(
                {
                    "task": task,
                    "condition": condition,
                    "gap_f": point,
                    "gap_low": float(_interval(diff[:, None], alpha)[0][0]),
                    "gap_high": float(_interval(diff[:, None], alpha)[1][0]),
                    "n_boot": boot.n_boot,
                    "confidence": boot.confidence,
                    "seed": boot.seed,
                }
            )
    return pd.DataFrame(rows), pd.DataFrame(gaps)


def debiasing_table(groups: pd.DataFrame) -> pd.DataFrame:
    """Tables 6-11 (long): the None row, each prompt's row, and each level's average (the
    mean of its prompts' rows)."""
    rows = []
    for (task, group), part in groups.groupby(["task", "group"], sort=False):
        for level in ("none", "high", "medium", "low"):
            sub = part[part["level"] == level]
            if sub.empty:
                continue
            for r in sub.itertuples(index=False):
                rows.append(
                    {
                        "task": task,
                        "group": group,
                        "abstraction": level,
                        "id": NO_PROMPT if r.condition == NO_DEBIASING else str(r.condition),
                        **{v: getattr(r, v) for v in VALUES},
                        "approximate": r.approximate,
                    }
                )
            if level != "none":
                rows.append(
                    {
                        "task": task,
                        "group": group,
                        "abstraction": level,
                        "id": "Avg",
                        **{v: float(sub[v].mean()) for v in VALUES},
                        "approximate": bool(sub["approximate"].any()),
                    }
                )
    return pd.DataFrame(rows)


def correlation_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per (task, condition): Spearman's rho of ``F`` with the BLS share of women, and the
    mean amplification per group."""
    rows = []
    for (task, condition), part in jobs.groupby(["task", "condition"], sort=False):
        ok = part.dropna(subset=["F", "bls_pct_female"])
        if len(ok) >= 3 and ok["F"].nunique() > 1 and ok["bls_pct_female"].nunique() > 1:
            rho, p = stats.spearmanr(ok["F"], ok["bls_pct_female"])
            rho, p = float(rho), float(p)
        else:
            rho, p = float("nan"), float("nan")
        row = {"task": task, "condition": condition, "spearman_rho": rho, "p_value": p}
        for group in GROUPS:
            amp = ok.loc[ok["group"] == group, "amplification_f"]
            row[f"amplification_f_{group}"] = float(amp.mean()) if len(amp) else float("nan")
        row["n_jobs"] = len(ok)
        rows.append(row)
    columns = [
        "task",
        "condition",
        "spearman_rho",
        "p_value",
        *(f"amplification_f_{group}" for group in GROUPS),
        "n_jobs",
    ]
    return pd.DataFrame(rows, columns=columns)  # its columns even with no scorable job
