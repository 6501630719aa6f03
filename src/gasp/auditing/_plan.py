"""The plan of an audit, before any money is spent: per study and headline metric, the
units compared, the smallest difference found with 80% power at the audit's level after
its Benjamini-Hochberg correction, the requests and tokens, and the expected time.

``detect`` (``--detect STUDY:METRIC=DELTA``) chooses a study's size (the first of its
declared size options that adds the units the metric pairs over) so that a difference
of DELTA in that metric is found with 80% power. The baseline's share comes from a pilot
(the baseline's saved run of that study in the audit folder) where there is one, else it
is assumed to be 0.5 (the most variable share); the assumptions are listed with the
plan. The time is the requests times the seconds per request the backend takes: a local
engine (``embedded``, ``hf``, ``vllm``, ``mock``) is timed on a few of the study's own
requests; a server is assumed to answer
``request_rate`` requests per second.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from gasp.auditing._execute import RunSpec
from gasp.auditing._models import SERVER_PROVIDERS, not_chosen
from gasp.auditing._power import (
    MCNEMAR,
    PAIRED_SHARE,
    PAIRED_UNITS,
    Effect,
    detectable,
    units_needed,
)
from gasp.auditing._timing import seconds_per_request
from gasp.errors import ConfigError, GaspError
from gasp.results import CLOSER_TO_0, CLOSER_TO_REFERENCE, INDEX_FILE, LOWER, AuditResults

#: Requests per second assumed of a server where nothing is measured.
DEFAULT_REQUEST_RATE = 1.0
#: Per-unit standard deviation of paired differences assumed without a pilot.
DEFAULT_UNIT_SD = 0.1
_BINARY_UNITS = {"stories": 1.0, "answers": 1.0, "triples": 1.0 / 3.0}


@dataclasses.dataclass(frozen=True)
class PlanRow:
    """One study and headline metric of a plan."""

    study: str
    metric: str
    test: str
    units: int
    unit_name: str
    detectable: float
    target: float | None
    assumption: str
    #: Whether ``target`` is the study's default difference rather than a ``--detect``.
    default_target: bool = False


@dataclasses.dataclass
class AuditPlan:
    """The plan: its rows, the cost of each run and the assumptions it rests on."""

    level: float
    comparisons: int
    alpha: float
    rows: list[PlanRow]
    #: ``model/study`` -> (requests, tokens at most, seconds expected).
    runs: dict[str, tuple[int, int, float]]
    sizes: dict[str, dict[str, Any]]
    assumptions: list[str]
    cost_usd: float | None = None
    #: Models served by an API whose price is unknown (their cost, and the total's, is).
    unpriced: list[str] = dataclasses.field(default_factory=list)
    #: ``model/study`` -> why its backend cannot serve it: not in the totals.
    unserved: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def requests(self) -> int:
        """Requests of the whole audit."""
        return sum(r for r, _, _ in self.runs.values())

    @property
    def tokens(self) -> int:
        """Tokens of the whole audit at most (prompt and completion)."""
        return sum(t for _, t, _ in self.runs.values())

    @property
    def seconds(self) -> float:
        """Expected wall time of the whole audit (its runs one after another)."""
        return sum(s for _, _, s in self.runs.values())

    def lines(self) -> list[str]:
        """The plan as lines to print."""
        out = [
            f"plan: {self.comparisons} comparisons; level {self.level:g} after "
            f"Benjamini-Hochberg: {self.alpha:.3g} per comparison; power 0.8",
        ]
        for row in self.rows:
            found = "none" if not math.isfinite(row.detectable) else f"{row.detectable:.3g}"
            asked = "the study's default difference" if row.default_target else "asked"
            target = "" if row.target is None else f" ({asked}: {row.target:g})"
            out.append(
                f"  {row.study} {row.metric}: {row.units} {row.unit_name}, {row.test}, "
                f"detectable difference {found}{target}; {row.assumption}"
            )
        for key, (requests, tokens, seconds) in self.runs.items():
            out.append(f"  {key}: {requests} requests, <= {tokens} tokens, ~{seconds:.0f} s")
        for key, reason in self.unserved.items():
            out.append(f"  {key}: not served, not counted ({reason})")
        cost = "" if self.cost_usd is None else f", <= {self.cost_usd:.2f} USD"
        out.append(
            f"total: {self.requests} requests, <= {self.tokens} tokens{cost}, "
            f"expected {self.seconds / 60:.1f} min"
        )
        out += [f"assumed: {a}" for a in self.assumptions]
        return out


def parse_detect(pairs: Sequence[str], metrics: Mapping[str, Sequence[str]]) -> dict:
    """``STUDY:METRIC=DELTA`` pairs as ``{(study, metric): delta}``."""
    found: dict[tuple[str, str], float] = {}
    for text in pairs:
        head, sep, value = text.partition("=")
        study, colon, metric = head.partition(":")
        if sep and colon and (reason := not_chosen(study, list(metrics))):
            raise ConfigError(f"--detect {head}: {reason}")
        if not (sep and colon) or metric not in metrics[study]:
            raise ConfigError(
                f"--detect must be STUDY:METRIC=DELTA with a chosen study's headline metric, "
                f"got {text!r}"
            )
        try:
            delta = float(value)
        except ValueError:
            delta = math.nan
        if not 0.0 < delta < math.inf:
            raise ConfigError(f"--detect {head}: DELTA must be a positive number, got {value!r}")
        if (study, metric) in found:
            raise ConfigError(f"--detect {head} is given twice; give each metric once")
        found[(study, metric)] = delta
    return found


def with_default_targets(
    detect: Mapping[tuple[str, str], float], studies: Sequence[str], sized: Collection[str]
) -> dict[tuple[str, str], float]:
    """``detect`` and, when it names anything, each other study's default difference
    (``HeadlineMetric.default_detect``): an audit sized for power sizes every study. The
    studies in ``sized`` (their size set by the user) keep their sizes."""
    from gasp.studies import get_study_type

    found = dict(detect)
    named = {study for study, _ in detect}
    if not detect:
        return found
    for study in studies:
        if study in named or study in sized:
            continue
        for metric in get_study_type(study).headline_metrics():
            if metric.default_detect is not None:
                found[(study, metric.name)] = metric.default_detect
                break
    return found


def _kind(metric: Any) -> str | None:
    over = metric.paired_over or ""
    if over in _BINARY_UNITS:
        return PAIRED_SHARE if metric.better in (CLOSER_TO_0, CLOSER_TO_REFERENCE) else MCNEMAR
    if over:
        return PAIRED_UNITS
    return None


def _units(spec: RunSpec, over: str, shape: Mapping[str, Any] | None = None) -> int:
    """The units ``over`` which a metric of ``spec``'s study pairs, at ``shape``."""
    size = spec.study_type.plan_size(dict(spec.shape if shape is None else shape))
    if over in _BINARY_UNITS:
        return int(size.requests_max * _BINARY_UNITS[over])
    return size.units


def _size_for(spec: RunSpec, over: str, needed: float) -> tuple[str, int] | None:
    """The size option of ``spec``'s study, and its value, that gives ``needed`` units
    (None: no size option adds such units)."""
    for key, option in spec.study_type.size_options().items():
        low = max(1, math.ceil(option.minimum or 1))
        one = _units(spec, over, {**spec.shape, key: low})
        two = _units(spec, over, {**spec.shape, key: low + 1})
        if two > one:
            return key, max(low, math.ceil((needed - one) / (two - one)) + low)
    return None


def _pilot(spec: RunSpec | None, metric: Any) -> tuple[float, float | None, float] | None:
    """The baseline's share, reference and share of units the metric counts, from its
    saved run (None without one)."""
    if spec is None or not (spec.paths.results / INDEX_FILE).is_file():
        return None
    try:
        reading = metric.reading(AuditResults.load(spec.paths.results))
    except GaspError:
        return None
    if not math.isfinite(reading.value):
        return None
    reference = reading.reference if metric.better == CLOSER_TO_REFERENCE else None
    if metric.better == CLOSER_TO_0:
        reference = 0.0
    counted = (
        reading.n / len(reading.units) if reading.units is not None and len(reading.units) else 1.0
    )
    return float(reading.value), reference, counted


def _estimate(spec: RunSpec) -> tuple[int, int, float | None]:
    """Requests, tokens at most and USD at most of a run; a local engine costs nothing,
    a server whose price is unknown costs None."""
    from gasp.runner import as_plan, estimate_plan

    est = estimate_plan(as_plan(spec.build()), spec.setup.model.spec, spec.decoding_config())
    usd = est.cost_max_usd if spec.setup.model.engine in SERVER_PROVIDERS else 0.0
    return est.requests_max, est.tokens_max, usd


def _not_compared(base: RunSpec, runs: Sequence[RunSpec], unserved: Mapping[str, str]) -> str:
    """The models whose unserved runs leave a study with no comparison (its baseline's,
    or every other model's), as text; empty when some comparison remains."""
    if base.key in unserved:
        return base.setup.model.name
    others = [r for r in runs if r.key != base.key]
    if others and all(r.key in unserved for r in others):
        return ", ".join(r.setup.model.name for r in others)
    return ""


def comparison_count(models: int, baseline: bool, studies: Sequence[str]) -> int:
    """The comparisons of an audit's scorecard: every headline metric of every study, for
    each model against the baseline (or each pair of models without one)."""
    from gasp.studies import get_study_type

    others = max(1, models - 1) if baseline else max(1, models * (models - 1) // 2)
    return others * sum(len(get_study_type(s).headline_metrics()) for s in studies)


def plan_audit(
    specs: Sequence[RunSpec],
    baseline: str | None,
    level: float,
    *,
    detect: Mapping[tuple[str, str], float] | None = None,
    request_rate: float = DEFAULT_REQUEST_RATE,
    measure: bool = True,
    defaults: Collection[tuple[str, str]] = (),
    unserved: Mapping[str, str] | None = None,
) -> AuditPlan:
    """The plan of an audit's runs (``specs``, resolved at their sizes). ``defaults``:
    the targets of ``detect`` that are studies' default differences, not the user's.
    ``unserved``: ``model/study`` -> why the backend cannot serve it; such a run is not
    counted, and a study whose comparisons it removes (the baseline's run, or every
    other model's) reads ``not served`` in its rows (its targets are checked all the
    same)."""
    from gasp.studies import get_study_type

    detect = dict(detect or {})
    models = list(dict.fromkeys(s.setup.model.name for s in specs))
    studies = list(dict.fromkeys(s.study for s in specs))
    metrics = {s: get_study_type(s).headline_metrics() for s in studies}
    m = comparison_count(len(models), bool(baseline), studies)
    alpha = level / m
    rows: list[PlanRow] = []
    assumptions: list[str] = [
        "the two models' answers to one unit are independent given their shares",
        "a planted difference is the only real one (the correction's strictest case)",
    ]
    sizes: dict[str, dict[str, Any]] = {}
    by_key = {(s.setup.model.name, s.study): s for s in specs}
    unserved = {k: v for k, v in (unserved or {}).items() if k in {s.key for s in specs}}
    for study in studies:
        spec = by_key[(baseline or models[0], study)]
        first = len(rows)
        for metric in metrics[study]:
            kind = _kind(metric)
            over = metric.paired_over or "units"
            if kind is None:
                if (study, metric.name) in detect:
                    raise ConfigError(
                        f"--detect {study}:{metric.name}: its comparison is not paired over "
                        "units, so no size can be planned for it; choose a paired metric "
                        "(--plan lists them)"
                    )
                rows.append(
                    PlanRow(study, metric.name, "unpaired (not planned)", 0, over, math.inf,
                            detect.get((study, metric.name)), "no per-unit model")
                )  # fmt: skip
                continue
            pilot = _pilot(spec, metric)
            if pilot is None:
                p0, reference, counted = (
                    0.5,
                    0.5 if metric.better == CLOSER_TO_REFERENCE else None,
                    1.0,
                )
                note = "baseline share 0.5 (no pilot)"
            else:
                p0, reference, counted = pilot
                note = f"baseline share {p0:.3g} from its saved run"
            if metric.better == CLOSER_TO_0:
                reference = 0.0
            sd = DEFAULT_UNIT_SD if metric.unit_sd is None else metric.unit_sd
            effect = Effect(kind, p0=p0, reference=reference,
                            lower_is_better=metric.better == LOWER, sd=sd)  # fmt: skip
            if kind == PAIRED_UNITS:
                whose = "the planner's default" if metric.unit_sd is None else "the metric's"
                note = f"per-unit sd of differences {sd:g} {metric.unit} ({whose})"
            elif pilot is None and kind == PAIRED_SHARE:
                note += f"; every one of the {over} counted (no pilot)"
            units = max(0, int(_units(spec, over) * counted))
            target = detect.get((study, metric.name))
            if target is not None:
                if kind != PAIRED_UNITS and target >= 1.0:
                    raise ConfigError(
                        f"--detect {study}:{metric.name}={target:g}: a difference in a share "
                        "must be below 1"
                    )
                needed = units_needed(effect, target, alpha)
                sized = None if needed is None else _size_for(spec, over, needed / counted)
                if sized is None:
                    raise ConfigError(
                        f"--detect {study}:{metric.name}={target:g}: no size of the study "
                        f"gives the {over} it needs"
                    )
                option, value = sized
                sizes.setdefault(study, {})
                sizes[study][option] = max(value, int(sizes[study].get(option, 1)))
            rows.append(
                PlanRow(study, metric.name, kind, units, metric.planned_over or over,
                        detectable(effect, units, alpha),
                        target, note, (study, metric.name) in defaults)
            )  # fmt: skip
        missing = _not_compared(spec, [s for s in specs if s.study == study], unserved)
        if missing:  # its targets are checked (and sized) all the same: a bad one is refused
            rows[first:] = [
                dataclasses.replace(row, test="not served (not planned)", units=0,
                                    detectable=math.inf, assumption=f"not served by {missing}")
                for row in rows[first:]
            ]  # fmt: skip
    runs: dict[str, tuple[int, int, float]] = {}
    cost: float | None = 0.0
    unpriced: list[str] = []
    timed: dict[tuple[Any, ...], float] = {}
    for spec in (s for s in specs if s.key not in unserved):
        requests, tokens, usd = _estimate(spec)
        # each model on its own requests: a system-prompt variant's longer prompts, or
        # other backend options, take their own time
        key = (
            spec.setup.model.spec,
            spec.setup.model.variant_prompt,
            spec.setup.options,
            spec.study,
        )
        if measure and key not in timed:
            try:
                timed[key], how = seconds_per_request(spec, request_rate)
            except GaspError as exc:  # listed as not served when the audit runs
                timed[key], how = 0.0, f"not timed on {spec.setup.model.spec} ({exc})"
            if f"{spec.key}: {how}" not in assumptions:
                assumptions.append(f"{spec.key}: {how}")
        runs[spec.key] = (requests, tokens, requests * timed.get(key, 0.0))
        cost = None if usd is None or cost is None else cost + usd
        if usd is None and spec.setup.model.spec not in unpriced:
            unpriced.append(spec.setup.model.spec)
    return AuditPlan(level, m, alpha, rows, runs, sizes, assumptions, cost, unpriced, unserved)


__all__ = [
    "DEFAULT_REQUEST_RATE",
    "AuditPlan",
    "PlanRow",
    "comparison_count",
    "parse_detect",
    "plan_audit",
    "with_default_targets",
]
