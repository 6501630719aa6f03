"""The audit folder: ``audit.json`` (what was audited, with which settings) and its runs.

``<out>/audit.json`` records the models, the studies, the baseline, the level of the
scorecard and, per run folder ``<model>/<study>``, every setting that shapes its
answers (model spec and system prompt, backend options, seed, ``--quick``, the study's
options and sizes, decoding). The same command resumes; a setting that changed on a
run that holds answers is refused with one line naming what differs, unless the run is
redone (``redo``); a run that holds no answer (a typo, a server that was down) takes
the new settings without a word. :func:`read_audit` reads the record back for
``gasp compare``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.auditing._scorecard import AuditModel, RunRecord
from gasp.errors import ConfigError
from gasp.io import RunPaths, run_folder_paths
from gasp.results import INDEX_FILE, replace_with

#: The file an audit keeps in its folder.
AUDIT_FILE = "audit.json"
#: Written in a run folder once every step finished: the store's size and time then.
DONE_FILE = ".audit-done"
#: Format of :data:`AUDIT_FILE`.
AUDIT_FORMAT = "gasp.audit/2"
#: ``redo`` value that redoes every run.
REDO_ALL = "all"


class SettingsChanged(ConfigError):
    """A run of the folder holds answers made with other settings than this audit's."""


def is_audit_folder(path: Path) -> bool:
    """True for a folder made by an audit (or a tour)."""
    return (path / AUDIT_FILE).is_file()


def read_record(out: Path) -> dict[str, Any]:
    """The audit record of ``out`` (empty when there is none)."""
    path = out / AUDIT_FILE
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ConfigError(f"{path} is not an audit record (not JSON); use another --out") from None
    if not isinstance(record, dict):
        raise ConfigError(f"{path} is not an audit record; use another --out")
    return record


def _holds_answers(paths: RunPaths) -> bool:
    from gasp.store import count_answers

    store = paths.store
    return store is not None and store.is_file() and count_answers(store) > 0


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]


def clear_run(paths: RunPaths) -> None:
    """Remove a run folder's store, results and report (``--redo``)."""
    from gasp.store import remove_store

    if paths.store is not None and paths.store.exists():
        remove_store(paths.store)
    for folder in (paths.results, paths.report):
        if folder.is_dir():
            shutil.rmtree(folder)
    (paths.results.parent / DONE_FILE).unlink(missing_ok=True)


def check_folder(
    out: Path,
    settings: Mapping[str, Mapping[str, Any]],
    redo: Collection[str] = (),
    sizing: Sequence[str] = (),
) -> list[str]:
    """Check the runs of this audit (``settings``: ``model/study`` -> its settings)
    against what ``out`` records, writing nothing. Returns the runs to clear before
    they run (``redo`` names studies, or ``all``); a changed setting of a run that holds
    answers and is not redone is a :class:`ConfigError` naming what differs. ``sizing``:
    what changed in the inputs of the sizes planned for ``--detect``
    (:func:`sizing_changes`), named instead of the study options they change."""
    old_runs: dict[str, Any] = read_record(out).get("runs", {})
    cleared = []
    for key, mine in settings.items():
        paths = run_folder_paths(out / key)
        study = key.split("/", 1)[1]
        wanted = REDO_ALL in redo or study in redo
        if wanted and _holds_answers(paths):
            cleared.append(key)
            continue
        before = old_runs.get(key)
        if before is None or before == mine or not _holds_answers(paths):
            continue
        differences = _differences(before, mine)
        if sizing and before.get("study_options") != mine.get("study_options"):
            kept = [d for d in differences if not d.startswith("study_options ")]
            differences = [f"sizes planned for other inputs: {'; '.join(sizing)}", *kept]
        raise SettingsChanged(
            f"{out / key} holds answers made with other settings ("
            + "; ".join(differences)
            + f"); give --redo {study} (or --redo all) to run it again, or another --out"
        )
    return cleared


def write_record(
    out: Path,
    models: Sequence[AuditModel],
    studies: Sequence[str],
    settings: Mapping[str, Mapping[str, Any]],
    *,
    baseline: str | None,
    level: float,
    quick: bool,
    sizing: Mapping[str, Any] | None = None,
    sizes: Mapping[str, Mapping[str, Any]] | None = None,
) -> None:
    """Record this audit in ``out`` (the models, studies and runs of earlier audits in
    the same folder kept); with ``sizing`` (:func:`sizing_inputs`) that names targets,
    the sizes its plan chose for them."""
    old = read_record(out)
    mine = [{"name": m.name, "spec": m.spec, "variant_prompt": m.variant_prompt} for m in models]
    names = {m.name for m in models}
    record = {
        "format": AUDIT_FORMAT,
        "models": [m for m in old.get("models", []) if m.get("name") not in names] + mine,
        "studies": [s for s in old.get("studies", []) if s not in studies] + list(studies),
        "quick": quick,
        "baseline": baseline,
        "level": level,
        "runs": {**old.get("runs", {}), **settings},
    }
    if sizing and sizing.get("targets"):
        record["detect"] = {**sizing, "sizes": dict(sizes or {})}
    elif "detect" in old:
        record["detect"] = old["detect"]
    out.mkdir(parents=True, exist_ok=True)
    path = out / AUDIT_FILE
    text = json.dumps(record, indent=2, sort_keys=False)
    replace_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def sizing_inputs(detect: Sequence[str], level: float, comparisons: int) -> dict[str, Any]:
    """What the sizes planned for ``--detect`` rest on: the targets, the audit's level
    and its number of comparisons (the models and studies)."""
    return {"targets": sorted(detect), "level": level, "comparisons": comparisons}


def sizing_changes(out: Path, sizing: Mapping[str, Any]) -> list[str]:
    """What differs between the inputs of the sizes ``out`` records (:func:`sizing_inputs`)
    and ``sizing``, in the options' terms (``--detect A -> B``, ``--level 0.05 -> 0.01``);
    empty when they agree or nothing is recorded."""
    record = read_record(out)
    planned = record.get("detect")
    if not isinstance(planned, dict):
        planned = {"targets": []} if record.get("runs") else {}
    if not planned:
        return []
    old, new = list(planned.get("targets", [])), list(sizing.get("targets", []))
    if old != new:
        return [f"--detect {' '.join(old) or '(none)'} -> {' '.join(new) or '(none)'}"]
    changes = []
    if "level" in planned and planned["level"] != sizing.get("level"):
        changes.append(f"--level {planned['level']:g} -> {sizing['level']:g}")
    if "comparisons" in planned and planned["comparisons"] != sizing.get("comparisons"):
        changes.append(
            f"comparisons {planned['comparisons']} -> {sizing['comparisons']} "
            "(other models or studies)"
        )
    return changes


def planned_sizes(out: Path, sizing: Mapping[str, Any]) -> dict[str, Any] | None:
    """The sizes an earlier plan chose in ``out`` for the same ``--detect`` targets, level
    and comparisons (None: no such plan): the same command resumes with them rather than
    planning again from answers that have come in since."""
    planned = read_record(out).get("detect")
    if not sizing.get("targets") or not isinstance(planned, dict):
        return None
    if sizing_changes(out, sizing) or not isinstance(planned.get("sizes"), dict):
        return None
    return dict(planned["sizes"])


def store_stamp(paths: RunPaths) -> str:
    """The size and modification time of a run's store (empty without one)."""
    store = paths.store
    if store is None or not store.is_file():
        return ""
    stat = store.stat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def is_finished(paths: RunPaths, report_file: str) -> bool:
    """True when the run finished every step and its store has not changed since."""
    done = paths.results.parent / DONE_FILE
    return (
        done.is_file()
        and (paths.report / report_file).is_file()
        and done.read_text(encoding="utf-8") == store_stamp(paths)
    )


def mark_finished(paths: RunPaths) -> None:
    """Record that the run finished every step (its store's stamp now)."""
    (paths.results.parent / DONE_FILE).write_text(store_stamp(paths), encoding="utf-8")


#: The file of a run folder holding how long its steps took (``{"seconds": ...}``).
TIME_FILE = "time.json"


def save_seconds(paths: RunPaths, seconds: float) -> None:
    """Record in the run folder how many seconds the run's steps took."""
    (paths.results.parent / TIME_FILE).write_text(
        json.dumps({"seconds": round(float(seconds), 1)}), encoding="utf-8"
    )


def saved_seconds(paths: RunPaths) -> float | None:
    """The seconds :func:`save_seconds` recorded for the run (None when none were)."""
    path = paths.results.parent / TIME_FILE
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("seconds")
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, int | float) else None


def read_audit(folder: Path) -> tuple[list[AuditModel], list[RunRecord], str | None, float | None]:
    """The models, runs, baseline and level an audit folder records (the level is None
    in a folder written before it was recorded)."""
    record = read_record(folder)
    models = [AuditModel(m["name"], m["spec"], m.get("variant_prompt")) for m in record["models"]]
    runs = []
    for model in models:
        for study in record.get("studies", []):
            paths = run_folder_paths(folder / model.name / study)
            status = "complete" if (paths.results / INDEX_FILE).is_file() else "failed"
            reason = "" if status == "complete" else "no saved results"
            runs.append(RunRecord(model.name, study, paths, status, reason, saved_seconds(paths)))
    level = record.get("level")
    return models, runs, record.get("baseline"), float(level) if level is not None else None


__all__ = [
    "AUDIT_FILE",
    "DONE_FILE",
    "REDO_ALL",
    "SettingsChanged",
    "check_folder",
    "clear_run",
    "is_audit_folder",
    "is_finished",
    "mark_finished",
    "read_audit",
    "read_record",
    "sizing_changes",
    "sizing_inputs",
    "store_stamp",
    "write_record",
]
