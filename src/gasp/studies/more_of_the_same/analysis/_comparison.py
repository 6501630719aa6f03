"""Comparing models on the same study (seed ``000`` Section 5.2, Table 14, Figure 4).

For every pair of runs (in the order given: the first of a pair is the older model),
per associated gender, Welch's t-test compares the two models' SRB scores across
subjects, and the percent change ``100 * (new - old) / old`` of each subject's score
is reported (a female score going from -0.1 to -0.2 is +100%: more similar to the
named gender, the reading of Figure 4).

``model_comparison`` (:data:`gasp.results.MODEL_COMPARISON`) columns:
    template, gender, model_a, model_b, statistic (Welch's t of a minus b), p_value,
    df, mean_a, mean_b, n_a, n_b (subjects with a defined score), reason (why the test
    is undefined, else empty).

``percent_change`` (:data:`gasp.results.PERCENT_CHANGE`) columns:
    subject, template, gender, model_a, model_b, score_a, score_b, percent_change
    (NaN where a model has no score for the subject or the old score is 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.results import INDEX_FILE, AuditResults
from gasp.stats import percent_change, welch_t_test
from gasp.studies.more_of_the_same._tables import MODEL_COMPARISON, PERCENT_CHANGE, SRB_SCORES

COMPARISON_COLUMNS: tuple[str, ...] = (
    "template",
    "gender",
    "model_a",
    "model_b",
    "statistic",
    "p_value",
    "df",
    "mean_a",
    "mean_b",
    "n_a",
    "n_b",
    "reason",
)
CHANGE_COLUMNS: tuple[str, ...] = (
    "subject",
    "template",
    "gender",
    "model_a",
    "model_b",
    "score_a",
    "score_b",
    "percent_change",
)


def _load(item: AuditResults | str | Path) -> AuditResults:
    if isinstance(item, AuditResults):
        return item
    path = Path(item)
    if (path / INDEX_FILE).is_file():
        return AuditResults.load(path)
    if path.is_file():
        from gasp.studies.more_of_the_same.analysis._audit import analyze_run

        return analyze_run(path)
    raise DataError(f"{path} is neither a run store nor a folder of audit results")


def _labels(results: Sequence[AuditResults]) -> list[str]:
    labels = [str(r.meta.get("model_id") or f"run {i + 1}") for i, r in enumerate(results)]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    out = []
    for i, (label, r) in enumerate(zip(labels, results, strict=True)):
        if seen[label] > 1:
            label = f"{label} ({r.meta.get('run_id') or i + 1})"
        out.append(label)
    return out


def compare_results(
    results: Sequence[AuditResults], labels: Sequence[str] | None = None
) -> dict[str, pd.DataFrame]:
    """The model-comparison tables of already analysed runs (two or more)."""
    if len(results) < 2:
        raise DataError("comparing models needs at least two runs")
    studies = {r.meta.get("study") for r in results if r.meta.get("study")}
    if len(studies) > 1:
        raise DataError(f"the runs belong to different studies: {sorted(map(str, studies))}")
    names = list(labels) if labels is not None else _labels(results)
    if len(names) != len(results) or len(set(names)) != len(names):
        raise DataError("each run needs a distinct label")
    scores = []
    for r, name in zip(results, names, strict=True):
        table = r.get(SRB_SCORES)
        if table is None:
            raise DataError(f"the results of {name} have no {SRB_SCORES} table")
        scores.append(table)
    tests: list[dict[str, object]] = []
    changes: list[pd.DataFrame] = []
    for i, j in combinations(range(len(results)), 2):
        a, b = scores[i], scores[j]
        merged = a[["subject", "template", "gender", "score"]].merge(
            b[["subject", "template", "gender", "score"]],
            on=["subject", "template", "gender"],
            how="outer",
            suffixes=("_a", "_b"),
        )
        merged = merged.sort_values(["template", "gender", "subject"], kind="mergesort")
        templates = sorted(set(a["template"].astype(str)) | set(b["template"].astype(str)))
        for template in templates:
            for gender in ("F", "M"):
                sa = a.loc[(a["template"].astype(str) == template) & (a["gender"] == gender)]
                sb = b.loc[(b["template"].astype(str) == template) & (b["gender"] == gender)]
                res = welch_t_test(
                    sa["score"].to_numpy(dtype=float), sb["score"].to_numpy(dtype=float)
                )
                tests.append(
                    {
                        "template": template,
                        "gender": gender,
                        "model_a": names[i],
                        "model_b": names[j],
                        "statistic": res.t,
                        "p_value": res.p_value,
                        "df": res.df,
                        "mean_a": res.mean_a,
                        "mean_b": res.mean_b,
                        "n_a": res.n_a,
                        "n_b": res.n_b,
                        "reason": res.reason or "",
                    }
                )
        score_a = merged["score_a"].to_numpy(dtype=float)
        score_b = merged["score_b"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            change = percent_change(score_a, score_b)
        changes.append(
            pd.DataFrame(
                {
                    "subject": merged["subject"].to_numpy(),
                    "template": merged["template"].to_numpy(),
                    "gender": merged["gender"].to_numpy(),
                    "model_a": names[i],
                    "model_b": names[j],
                    "score_a": score_a,
                    "score_b": score_b,
                    "percent_change": change,
                }
            )
        )
    return {
        MODEL_COMPARISON: pd.DataFrame(tests, columns=list(COMPARISON_COLUMNS)),
        PERCENT_CHANGE: pd.concat(changes, ignore_index=True)[list(CHANGE_COLUMNS)],
    }


def compare_runs(
    results_or_paths: Sequence[AuditResults | str | Path],
    labels: Sequence[str] | None = None,
) -> AuditResults:
    """Compare the SRB scores of two or more runs of one study (Table 14, Figure 4).

    Each item is an :class:`AuditResults`, a folder written by
    :meth:`AuditResults.save`, or a run store (analysed with default settings).
    ``labels`` name the runs (default: their model ids).
    """
    results = [_load(item) for item in results_or_paths]
    names = list(labels) if labels is not None else _labels(results)
    tables = compare_results(results, names)
    meta = {
        "kind": "comparison",
        "models": names,
        "run_ids": [r.meta.get("run_id") for r in results],
        "study": next((r.meta.get("study") for r in results if r.meta.get("study")), None),
    }
    return AuditResults(tables=tables, meta=meta)
