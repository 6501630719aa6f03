"""The conformance check of a study type, for study authors' own test suites.

:func:`check_study` runs a study through the :class:`~gasp.studies.StudyType` contract
on a mock backend, the way ``gasp run`` and ``gasp audit`` use it, and raises
:class:`StudyCheckError` naming the first part that breaks it::

    from gasp.studies.testing import check_study

    def test_my_study_keeps_the_contract(tmp_path):
        check_study(MyStudy(), work=tmp_path)

The parts, in order: the declarations (name, description, options with valid defaults
and ``--quick`` values, sizes); the items (a plan, unique keys, its size); resume (half
the requests, then the rest: nothing asked twice, nothing lost); the analysis from the
run store alone (in a folder that holds nothing else); the results (``results.json``
valid against the published schema, the study's name in it); the report from the saved
results alone (the run store gone); the headline metrics (a known direction of
"better", each read from the saved results).
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gasp.errors import GaspError
from gasp.studies._options import StudyOption
from gasp.studies._registry import StudyType


class StudyCheckError(AssertionError):
    """A study type breaks the contract; the message names the part and what broke."""


def _fail(part: str, what: str) -> StudyCheckError:
    return StudyCheckError(f"study check failed at {part}: {what}")


def _step(part: str, call: Callable[[], Any]) -> Any:
    """``call()``; any exception it raises becomes a :class:`StudyCheckError` of ``part``."""
    try:
        return call()
    except StudyCheckError:
        raise
    except Exception as exc:  # a study may raise anything; the check names it
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, GaspError):  # gasp's own errors are one clear line already
            reason = f"{type(exc).__name__}: {reason}"
        raise _fail(part, reason) from exc


@contextmanager
def _folder(work: str | Path | None) -> Iterator[Path]:
    if work is not None:
        Path(work).mkdir(parents=True, exist_ok=True)
        yield Path(work)
        return
    with tempfile.TemporaryDirectory(prefix="gasp-check-") as folder:
        yield Path(folder)


def _check_declarations(study: StudyType) -> None:
    part = "declarations"
    if not isinstance(getattr(study, "name", None), str) or not study.name.strip():
        raise _fail(part, "the study type has no name")
    if not isinstance(getattr(study, "description", None), str) or not study.description:
        raise _fail(part, f"study {study.name!r} has no description")
    for key, option in study.study_options.items():
        if not isinstance(option, StudyOption | str):
            raise _fail(part, f"option {key!r} is declared as {type(option).__name__}")
    for key, value in study.quick_options().items():
        declared = study.study_options.get(key)
        if isinstance(declared, StudyOption):
            _step(part, functools.partial(declared.check, key, value))
    for key in study.size_options():
        option = study.study_options[key]
        if isinstance(option, StudyOption) and option.kind != "int":
            raise _fail(part, f"size option {key!r} must be an integer option")


def _check_metrics(study: StudyType, results: Path) -> None:
    from gasp.results import DIRECTIONS, AuditResults

    part = "headline metrics"
    metrics = _step(part, study.headline_metrics)
    loaded = _step(part, lambda: AuditResults.load(results))
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise _fail(part, f"two headline metrics share a name ({', '.join(sorted(names))})")
    for metric in metrics:
        if metric.better not in DIRECTIONS:
            raise _fail(part, f"metric {metric.name!r} has no known direction ({metric.better!r})")
        if metric.study != study.name:
            raise _fail(part, f"metric {metric.name!r} names study {metric.study!r}")
        _step(f"headline metric {metric.name!r}", functools.partial(metric.reading, loaded))


def _check_results(study: StudyType, results: Path) -> None:
    from gasp.results import INDEX_FILE, results_schema

    part = "results schema"
    index_file = results / INDEX_FILE
    if not index_file.is_file():
        raise _fail(part, f"the analysis wrote no {index_file.name} in {results}")
    index = _step(part, lambda: json.loads(index_file.read_text(encoding="utf-8")))
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - a dev dependency
        raise _fail(
            part, "the check needs the jsonschema package (pip install jsonschema)"
        ) from None
    _step(part, lambda: jsonschema.validate(index, results_schema()))
    meta = index.get("meta", {}) if isinstance(index, Mapping) else {}
    if meta.get("study_kind") != study.name:
        raise _fail(part, f"results.json names study {meta.get('study_kind')!r}")


def _generate(plan: Any, model: str, store: Path, max_requests: int | None) -> Any:
    from gasp.runner import RunOptions, generate

    return generate(plan, model, store, RunOptions(max_requests=max_requests, progress=False))


def _stored(store: Path) -> tuple[Any, Any]:
    """The stored answers' keys: samples (item, sample) and scores (item, sample,
    candidate), errors included."""
    from gasp.store import RunStore

    with RunStore.open(store) as run:
        return run.stored_samples(), run.stored_scores()


def _answers(samples: Any, scores: Any) -> int:
    """Distinct (item, sample) answers among stored samples and scores."""
    keys = {(r.item_id, r.sample_index) for r in samples.itertuples()}
    keys |= {(r.item_id, r.sample_index) for r in scores.itertuples()}
    return len(keys)


def _check_resume(plan: Any, model: str, store: Path) -> None:
    from gasp.runner import FixedN

    part = "resume"
    wanted = sum(item.n for item in plan.items)
    half = max(1, wanted // 2)
    _step(part, lambda: _generate(plan, model, store, half))
    first = _answers(*_step(part, lambda: _stored(store)))
    if wanted > 1 and not 0 < first < wanted:
        raise _fail(part, f"a run stopped after {half} requests holds {first} answers")
    _step(part, lambda: _generate(plan, model, store, None))
    samples, scores = _step(part, lambda: _stored(store))
    for frame, keys in ((samples, ["item_id", "sample_index"]),
                        (scores, ["item_id", "sample_index", "candidate"])):  # fmt: skip
        repeated = frame[frame[keys].duplicated()]
        if not repeated.empty:
            row = repeated.iloc[0]
            raise _fail(
                part, f"item {row['item_id']} answer {row['sample_index']} was stored twice"
            )
    total = _answers(samples, scores)
    if total == 0:
        raise _fail(part, "the resumed run holds no answers")
    if isinstance(plan.stopping, FixedN) and total != wanted:
        raise _fail(part, f"the resumed run holds {total} answers, the plan asks {wanted}")


def check_study(
    study: StudyType,
    *,
    model: str | None = None,
    options: Mapping[str, Any] | None = None,
    analysis: Mapping[str, Any] | None = None,
    quick: bool = True,
    work: str | Path | None = None,
) -> None:
    """Run ``study`` through the study contract on a mock backend; raise
    :class:`StudyCheckError` naming the first part it breaks.

    ``model`` is the mock backend (default: ``mock/scoring`` for a study that scores,
    else ``mock/personas``); ``options`` shape the study (with ``quick``, its ``--quick``
    values fill the rest); ``analysis`` are options of its analysis only (for example
    ``bootstrap=0`` to keep the check fast); ``work`` keeps the check's folders (default:
    a temporary folder, removed after).
    """
    from gasp.runner import RequestKind

    _check_declarations(study)
    given = dict(options or {})
    plan = _step("items", lambda: study.plan(study.name, given, quick=quick))
    if not plan.items:
        raise _fail("items", "the plan has no items")
    size = _step("plan size", lambda: study.plan_size(given, quick=quick))
    if size.requests < 1 or size.units < 1 or size.max_tokens < 1:
        raise _fail("plan size", f"a plan of no units or requests ({size})")
    scores = any(item.kind is RequestKind.SCORE for item in plan.items)
    chosen = model or ("mock/scoring" if scores else "mock/personas")
    own = {k: v for k, v in given.items() if k in study.study_options}
    with _folder(work) as folder:
        run_folder = folder / "run"
        run_folder.mkdir(parents=True, exist_ok=True)
        store = run_folder / "run.sqlite"
        _check_resume(plan, chosen, store)
        alone = folder / "alone"
        alone.mkdir(exist_ok=True)
        moved = alone / "run.sqlite"
        shutil.copyfile(store, moved)
        results = folder / "results"
        steps = own | dict(analysis or {})
        _step("analysis", lambda: study.analyze(moved, results, steps))
        _check_results(study, results)
        moved.unlink()
        store.unlink()
        report = _step("report", lambda: study.report(results, folder / "report", own))
        if not isinstance(report, Path) or not report.is_file():
            raise _fail("report", f"the report step returned {report!r}, not an HTML file")
        _check_metrics(study, results)


__all__ = ["StudyCheckError", "check_study"]
