"""Chart data for Plotly (its JavaScript ships in the ``plotly`` wheel and is served from
it): forest plots of an audit's comparisons, and a metric's releases over time."""

from __future__ import annotations

import math
from typing import Any

from gasp.viewing._catalog import Catalog

#: Marker colour of each verdict.
COLOURS = {
    "better": "#1a7f37",
    "worse": "#cf222e",
    "differs": "#9a6700",
    "no difference": "#57606a",
    "not tested": "#afb8c1",
}


def _finite(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _gap(high: Any, low: Any) -> float:
    """``high - low``, 0 where either is missing."""
    a, b = _finite(high), _finite(low)
    return 0.0 if a is None or b is None else a - b


def forest_figures(card: dict[str, Any]) -> list[dict[str, Any]]:
    """One forest plot per metric of the scorecard: each model's difference to the
    baseline with its 95% interval, coloured by verdict, a line at 0."""
    by_metric: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in card.get("comparisons", []):
        by_metric.setdefault((str(row.get("study")), str(row.get("metric"))), []).append(row)
    figures = []
    for (study, metric), rows in by_metric.items():
        tested = [r for r in rows if _finite(r.get("difference")) is not None]
        if not tested:
            continue
        x = [_finite(r.get("difference")) or 0.0 for r in tested]
        high = [_gap(r.get("ci_high"), v) for r, v in zip(tested, x, strict=True)]
        low = [_gap(v, r.get("ci_low")) for r, v in zip(tested, x, strict=True)]
        figures.append(
            {
                "data": [
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": x,
                        "y": [f"{r.get('model')} vs {r.get('baseline')}" for r in tested],
                        "error_x": {"type": "data", "array": high, "arrayminus": low},
                        "marker": {
                            "size": 11,
                            "color": [
                                COLOURS.get(str(r.get("direction")), "#57606a") for r in tested
                            ],
                        },
                        "text": [f"{r.get('direction')}, q = {r.get('q_value')}" for r in tested],
                        "hoverinfo": "x+y+text",
                    }
                ],
                "layout": {
                    "title": {"text": f"{study} · {metric} ({tested[0].get('quantity')})"},
                    "height": 160 + 40 * len(tested),
                    "margin": {"l": 160, "r": 20, "t": 40, "b": 40},
                    "shapes": [
                        {
                            "type": "line",
                            "x0": 0,
                            "x1": 0,
                            "yref": "paper",
                            "y0": 0,
                            "y1": 1,
                            "line": {"dash": "dot", "color": "#444"},
                        }
                    ],
                    "xaxis": {"zeroline": False, "title": {"text": "difference to the baseline"}},
                },
            }
        )
    return figures


def metric_choices(catalog: Catalog) -> list[tuple[str, str, int]]:
    """(study, metric, how many audits and runs report it), sorted."""
    seen: dict[tuple[str, str], set[str]] = {}
    for audit in catalog.audits.values():
        for row in (audit.card or {}).get("metrics", []):
            seen.setdefault((str(row.get("study")), str(row.get("metric"))), set()).add(audit.key)
    for run in catalog.runs.values():
        if run.audit is None:
            for row in run.metrics:
                seen.setdefault((str(row.get("study")), str(row.get("metric"))), set()).add(run.key)
    return sorted((s, m, len(keys)) for (s, m), keys in seen.items())


def releases(catalog: Catalog, study: str, metric: str) -> dict[str, Any]:
    """Every audit and stand-alone run of ``study`` reporting ``metric``, in time order:
    per source its label and date, per model its value and interval, and the verdict of
    each tested difference (``significant`` set where one was called)."""
    sources: list[dict[str, Any]] = []
    for audit in catalog.audits.values():
        card = audit.card or {}
        rows = [
            r
            for r in card.get("metrics", [])
            if r.get("study") == study and r.get("metric") == metric
        ]
        if not rows:
            continue
        verdicts = {
            str(c.get("model")): c
            for c in card.get("comparisons", [])
            if c.get("study") == study and c.get("metric") == metric
        }
        points = []
        for r in rows:
            verdict = verdicts.get(str(r.get("model")), {})
            called = verdict.get("direction") if verdict.get("significant") else None
            points.append(
                {
                    "model": str(r.get("model")),
                    "value": _finite(r.get("value")),
                    "low": _finite(r.get("ci_low")),
                    "high": _finite(r.get("ci_high")),
                    "verdict": verdict.get("direction"),
                    "significant": called,
                    "q": _finite(verdict.get("q_value")),
                    "against": verdict.get("baseline"),
                }
            )
        sources.append(
            {
                "key": audit.key,
                "kind": "audit",
                "label": audit.label,
                "date": audit.date or "",
                "href": f"audit-{audit.key}.html",
                "points": points,
            }
        )
    for run in catalog.runs.values():
        if run.audit is not None or run.study != study:
            continue
        for r in run.metrics:
            if r.get("metric") == metric:
                point = {
                    "model": run.model or "?",
                    "value": _finite(r.get("value")),
                    "low": _finite(r.get("ci_low")),
                    "high": _finite(r.get("ci_high")),
                    "verdict": None,
                    "significant": None,
                    "q": None,
                    "against": None,
                }
                sources.append(
                    {
                        "key": run.key,
                        "kind": "run",
                        "label": run.label,
                        "date": run.date or "",
                        "href": f"run-{run.key}.html",
                        "points": [point],
                    }
                )
    sources.sort(key=lambda s: (s["date"], s["label"]))
    return {"study": study, "metric": metric, "sources": sources}


__all__ = ["COLOURS", "forest_figures", "metric_choices", "releases"]
