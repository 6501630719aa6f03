"""The scorecard: every headline metric of every run, every difference tested, one
Benjamini-Hochberg correction over the whole audit (schema ``gasp.scorecard/1``).

It reads saved results only (``results/results.json`` and its tables); it never opens
a run store or calls a model.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gasp.auditing._difference import DifferenceSettings, compare_readings
from gasp.errors import GaspError
from gasp.io import RunPaths
from gasp.report import REPORT_FILE
from gasp.results import (
    CLOSER_TO_REFERENCE,
    HIGHER,
    NEITHER,
    AuditResults,
    MetricReading,
    replace_with,
)
from gasp.stats import bh_q_values
from gasp.studies import get_study_type

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = "gasp.scorecard/1"
SCORECARD_FILE = "scorecard.json"
#: The JSON Schema of the scorecard file, shipped in the package.
SCHEMA_FILE = Path(__file__).with_name("scorecard.schema.json")


#: Fields of a run entry that are not its content (when it ran, how long it took).
_NOT_CONTENT = frozenset({"manifest_sha256", "seconds"})
#: The interval note of a metric whose value could not be read at all.
NO_VALUE = "no value was read from this run's results, so no interval"
#: Columns of :attr:`Scorecard.metrics` (docs/scorecard.md).
METRIC_COLUMNS = (
    "study", "metric", "model", "value", "ci_low", "ci_high", "interval_note", "n", "better",
    "unit", "interval_scheme", "excluded_share", "reference", "note", "report",
)  # fmt: skip
#: Columns of :attr:`Scorecard.comparisons` (docs/scorecard.md).
COMPARISON_COLUMNS = (
    "study", "metric", "model", "baseline", "better", "quantity", "difference", "ci_low",
    "ci_high", "n_shared", "test", "p_value", "q_value", "significant", "direction",
)  # fmt: skip


@dataclass(frozen=True)
class AuditModel:
    """One model of an audit: its label, backend spec and the system prompt of a variant."""

    name: str
    spec: str
    variant_prompt: str | None = None

    @property
    def engine(self) -> str:
        """The backend provider (``embedded``, ``mock``, ``openai`` ...)."""
        return self.spec.split("/", 1)[0].lower()


@dataclass(frozen=True)
class RunRecord:
    """One (model, study) run folder of an audit and how it ended."""

    model: str
    study: str
    paths: RunPaths
    #: ``complete``, ``incomplete`` (some samples failed), ``failed`` or ``not served``.
    status: str = "complete"
    reason: str = ""
    #: Seconds the run's steps took (None when not recorded).
    seconds: float | None = None


@dataclass
class Scorecard:
    """The scorecard of an audit.

    :attr:`metrics` and :attr:`comparisons` are its two tables as pandas DataFrames
    (one row per study, metric and model; per comparison against the baseline);
    :meth:`to_json` gives the documented file (``gasp.scorecard/1``), whose
    ``content_sha256`` covers the content only, so two identical audits share it; in
    Jupyter the scorecard shows as a table. :attr:`gate` is the verdict of
    ``fail_on`` when the scorecard comes from :func:`gasp.auditing.run_audit`.
    """

    models: list[AuditModel]
    baseline: str | None
    level: float
    runs: list[dict[str, Any]] = field(default_factory=list)
    metric_rows: list[dict[str, Any]] = field(default_factory=list)
    comparison_rows: list[dict[str, Any]] = field(default_factory=list)
    studies: list[dict[str, Any]] = field(default_factory=list)
    #: The gate's verdict (:class:`gasp.auditing.Gate`), set by the audit.
    gate: Any = field(default=None, repr=False, compare=False)
    #: Where the scorecard and its page were written (None: not written).
    folder: Path | None = field(default=None, repr=False, compare=False)

    @property
    def metrics(self) -> pd.DataFrame:
        """Every headline metric of every run, one row per study, metric and model."""

        return _frame(self.metric_rows, METRIC_COLUMNS)

    @property
    def comparisons(self) -> pd.DataFrame:
        """Every comparison with its test, p- and q-value and direction."""

        return _frame(self.comparison_rows, COMPARISON_COLUMNS)

    @property
    def exit_status(self) -> int:
        """The gate's exit status (0 when no gate was asked for and every run finished)."""
        return 0 if self.gate is None else int(self.gate.exit_status)

    def _repr_html_(self) -> str:
        worse = sum(c["direction"] == "worse" for c in self.comparison_rows)
        better = sum(c["direction"] == "better" for c in self.comparison_rows)
        head = (
            f"<p><b>gasp scorecard</b>: {len(self.models)} models, baseline "
            f"{html.escape(str(self.baseline))}, level {self.level}; {len(self.comparison_rows)} "
            f"comparisons, {worse} worse, {better} better</p>"
        )
        table = self.comparisons if self.comparison_rows else self.metrics
        return head + table.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4g}")

    def content_hash(self) -> str:
        """SHA-256 of the scorecard's content: its version, the runs' manifest hashes
        (a manifest records when its run started), their times and this hash left out."""
        body = self._body()
        body["runs"] = [
            {k: v for k, v in run.items() if k not in _NOT_CONTENT} for run in body["runs"]
        ]
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        """The scorecard as JSON-ready data (NaN written as null)."""
        body = self._body()
        return {
            "schema": SCHEMA,
            "gasp_version": _version(),
            **body,
            "content_sha256": self.content_hash(),
        }

    def _body(self) -> dict[str, Any]:
        result: dict[str, Any] = _clean(
            {
                "level": self.level,
                "correction": "Benjamini-Hochberg over every comparison of the audit",
                "n_comparisons": sum(1 for c in self.comparison_rows if c["p_value"] is not None),
                "models": [
                    {
                        "name": m.name,
                        "spec": m.spec,
                        "engine": m.engine,
                        "variant_prompt": m.variant_prompt,
                    }
                    for m in self.models
                ],
                "baseline": self.baseline,
                "studies": self.studies,
                "metrics": self.metric_rows,
                "comparisons": self.comparison_rows,
                "runs": self.runs,
            }
        )
        return result

    def failing(self, margins: Mapping[str, float] | None = None) -> list[dict[str, Any]]:
        """Comparisons against the baseline significantly worse (by more than the metric's
        margin, ``study.metric`` or ``metric``, where one is given)."""
        margins = margins or {}
        rows = []
        for row in self.comparison_rows:
            if row["direction"] != "worse" or row["baseline"] != self.baseline:
                continue
            margin = margins.get(f"{row['study']}.{row['metric']}", margins.get(row["metric"]))
            if margin is not None and abs(float(row["difference"])) <= margin:
                continue
            rows.append(row)
        return rows


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """``rows`` as a DataFrame: the documented ``columns`` first, then any others."""
    import pandas as pd

    extra = [k for row in rows for k in row if k not in columns]
    return pd.DataFrame(rows, columns=[*columns, *dict.fromkeys(extra)])


def _version() -> str:
    try:
        return metadata.version("gasp")
    except metadata.PackageNotFoundError:  # pragma: no cover - source checkout
        return "unknown"


def _clean(value: Any) -> Any:
    if isinstance(value, float | np.floating):
        return None if not math.isfinite(float(value)) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def manifest_hash(results: AuditResults) -> str:
    """SHA-256 of the run's manifest as canonical JSON (as saved with its results)."""
    manifest = results.meta.get("manifest", {})
    text = json.dumps(manifest, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: The direction of a significant difference in a metric with no better side, or of a
#: "better" one whose guard metric moved (see :attr:`HeadlineMetric.guard`).
DIFFERS = "differs"


def _direction(better: str, difference: float, significant: bool, tested: bool) -> str:
    if not tested:
        return "not tested"
    if not significant or not math.isfinite(difference) or difference == 0:
        return "no difference"
    if better == NEITHER:
        return DIFFERS
    if better == HIGHER:
        return "better" if difference > 0 else "worse"
    # lower, and distances to 0 / to the reference
    return "better" if difference < 0 else "worse"


def _pairs(names: Sequence[str], baseline: str | None) -> list[tuple[str, str]]:
    if baseline is not None:
        return [(m, baseline) for m in names if m != baseline]
    return [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]


def _rel(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()


def build_scorecard(
    models: Sequence[AuditModel],
    runs: Sequence[RunRecord],
    out: Path,
    *,
    baseline: str | None = None,
    level: float = 0.05,
    settings: DifferenceSettings | None = None,
) -> Scorecard:
    """Read every run's headline metrics, test every difference, correct once (BH)."""
    card = Scorecard(list(models), baseline, level)
    readings: dict[tuple[str, str, str], MetricReading] = {}
    study_names = list(dict.fromkeys(r.study for r in runs))
    for run in runs:
        paths = run.paths
        entry: dict[str, Any] = {
            "model": run.model,
            "study": run.study,
            "folder": _rel(paths.results.parent, out),
            "status": run.status,
            "reason": run.reason,
            "report": None,
            "manifest_sha256": None,
            "seconds": None if run.seconds is None else round(float(run.seconds), 1),
        }
        results = None
        if run.status in {"complete", "incomplete"}:
            try:
                results = AuditResults.load(paths.results)
            except GaspError as exc:
                entry["status"], entry["reason"] = "failed", str(exc)
        if results is not None:
            entry["manifest_sha256"] = manifest_hash(results)
            report = paths.report / REPORT_FILE
            entry["report"] = _rel(report, out) if report.is_file() else None
            for metric in get_study_type(run.study).headline_metrics():
                try:
                    reading = metric.reading(results)
                except GaspError as exc:
                    reading = MetricReading(
                        value=float("nan"), note=str(exc), interval_note=NO_VALUE
                    )
                readings[(run.study, metric.name, run.model)] = reading
                card.metric_rows.append(_metric_row(metric, reading, run.model, entry["report"]))
        card.runs.append(entry)
    for study in study_names:
        kind = get_study_type(study)
        card.studies.append(
            {
                "study": study,
                "description": kind.description,
                "metrics": [
                    {
                        "metric": m.name,
                        "meaning": m.meaning,
                        "unit": m.unit,
                        "better": m.better,
                        "interval_scheme": m.interval_scheme,
                        "denominator": m.denominator,
                        "leaves_out": m.leaves_out,
                        "guard": m.guard,
                    }
                    for m in kind.headline_metrics()
                ],
            }
        )
        for metric in kind.headline_metrics():
            for model, base in _pairs([m.name for m in models], baseline):
                a = readings.get((study, metric.name, model))
                b = readings.get((study, metric.name, base))
                if a is None or b is None:
                    continue
                diff = compare_readings(metric, a, b, settings)
                card.comparison_rows.append(
                    {
                        "study": study,
                        "metric": metric.name,
                        "model": model,
                        "baseline": base,
                        "better": metric.better,
                        "quantity": diff.quantity,
                        "difference": diff.difference,
                        "ci_low": diff.ci_low,
                        "ci_high": diff.ci_high,
                        "n_shared": diff.n_shared,
                        "test": diff.test,
                        "p_value": diff.p_value if math.isfinite(diff.p_value) else None,
                    }
                )
    correct(card)
    return card


def _metric_row(metric: Any, reading: MetricReading, model: str, report: str | None) -> dict:
    return {
        "study": metric.study,
        "metric": metric.name,
        "model": model,
        "value": reading.value,
        "ci_low": reading.ci_low,
        "ci_high": reading.ci_high,
        "interval_note": reading.interval_note,
        "n": reading.n,
        "better": metric.better,
        "unit": metric.unit,
        "interval_scheme": metric.interval_scheme,
        "excluded_share": reading.excluded_share,
        "reference": reading.reference if metric.better == CLOSER_TO_REFERENCE else None,
        "note": reading.note,
        "report": report,
    }


def correct(card: Scorecard) -> None:
    """One Benjamini-Hochberg correction over every tested comparison of the audit."""
    tested = [row for row in card.comparison_rows if row["p_value"] is not None]
    if tested:
        q = bh_q_values([row["p_value"] for row in tested])
        for row, value in zip(tested, q, strict=True):
            row["q_value"] = float(value)
    for row in card.comparison_rows:
        row.setdefault("q_value", None)
        q_value = row["q_value"]
        row["significant"] = bool(q_value is not None and q_value < card.level)
        row["direction"] = _direction(
            row["better"], row["difference"], row["significant"], row["p_value"] is not None
        )
    _apply_guards(card)


def _apply_guards(card: Scorecard) -> None:
    """A "better" reads "differs" where the metric's guard moved between the same models."""
    guards = {
        (study["study"], metric["metric"]): metric.get("guard") or ""
        for study in card.studies
        for metric in study["metrics"]
    }
    rows = {(r["study"], r["metric"], r["model"], r["baseline"]): r for r in card.comparison_rows}
    for row in card.comparison_rows:
        guard = guards.get((row["study"], row["metric"]), "")
        if not guard or row["direction"] != "better":
            continue
        moved = rows.get((row["study"], guard, row["model"], row["baseline"]))
        if moved is not None and moved["direction"] in ("worse", DIFFERS):
            row["direction"] = DIFFERS


def write_scorecard(card: Scorecard, out: Path) -> Path:
    """Write ``out/scorecard.json`` atomically; return its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / SCORECARD_FILE
    text = json.dumps(card.to_json(), indent=2, allow_nan=False)
    replace_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


__all__ = [
    "SCHEMA",
    "SCHEMA_FILE",
    "SCORECARD_FILE",
    "AuditModel",
    "RunRecord",
    "Scorecard",
    "build_scorecard",
    "correct",
    "manifest_hash",
    "write_scorecard",
]
