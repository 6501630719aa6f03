"""The scorecard of folders that exist (``gasp compare`` across studies or audits).

Given audit folders or run folders of any studies, it finds every analysed run, names
its model (the audit's model name, the label of a run folder, else the model recorded
in its results) and writes ``scorecard.json`` and ``index.html`` with the audit's tests
and correction. No model is called. The level is the one given, else the one the audit
folders record, else the default.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gasp.auditing._folder import is_audit_folder, read_audit
from gasp.auditing._models import model_folder_name
from gasp.auditing._page import write_audit_page
from gasp.auditing._scorecard import (
    AuditModel,
    RunRecord,
    Scorecard,
    build_scorecard,
    write_scorecard,
)
from gasp.errors import ConfigError, DataError
from gasp.io import locate_run
from gasp.pipeline import study_type_of_results
from gasp.results import INDEX_FILE


def _meta(results: Path) -> dict[str, Any]:
    path = results / INDEX_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    meta = data.get("meta", data) if isinstance(data, dict) else {}
    return meta if isinstance(meta, dict) else {}


def _model_of(meta: dict[str, Any]) -> str:
    manifest = meta.get("manifest") or {}
    model = manifest.get("model") if isinstance(manifest, dict) else None
    spec = model.get("spec") if isinstance(model, dict) else model
    return str(spec or meta.get("model_id") or "model")


def compare_folders(
    folders: Sequence[Path],
    out: Path,
    labels: Sequence[str] | None = None,
    level: float | None = None,
) -> Scorecard:
    """Write the scorecard of ``folders`` (audit or run folders) to ``out``; return it."""
    from gasp.auditing._run import DEFAULT_LEVEL

    if level is not None and not 0.0 < level < 1.0:
        raise ConfigError(f"--level must lie in (0, 1), got {level}")
    names = list(labels or [])
    plain = [f for f in folders if not is_audit_folder(f)]
    if names and len(names) != len(plain):
        raise ConfigError(f"give one --label per run folder ({len(plain)}), got {len(names)}")
    models: dict[str, AuditModel] = {}
    runs: list[RunRecord] = []
    baselines = []
    levels = []
    for folder in folders:
        if is_audit_folder(folder):
            found, records, baseline, folder_level = read_audit(folder)
            models.update({m.name: m for m in found if m.name not in models})
            runs += records
            baselines.append(baseline)
            levels.append(folder_level)
            continue
        paths = locate_run(folder)
        study = study_type_of_results(paths.results).name
        spec = _model_of(_meta(paths.results))
        name = model_folder_name(names.pop(0) if names else spec)
        models.setdefault(name, AuditModel(name, spec))
        if any(r.model == name and r.study == study for r in runs):
            raise ConfigError(f"two runs of {study} for model {name!r}; name them with --label")
        runs.append(RunRecord(name, study, paths))
    if len(models) < 2:
        raise ConfigError("a comparison needs runs of at least two models")
    known = [b for b in baselines if b is not None]
    baseline = known[0] if len(set(known)) == 1 and len(baselines) == len(folders) else None
    if level is None:
        recorded = sorted({lv for lv in levels if lv is not None})
        if len(recorded) > 1:
            raise ConfigError(
                f"the audit folders record different levels ({', '.join(map(str, recorded))}); "
                "give --level"
            )
        level = recorded[0] if recorded else DEFAULT_LEVEL
    card = build_scorecard(list(models.values()), runs, out, baseline=baseline, level=level)
    write_scorecard(card, out)
    write_audit_page(card, out)
    card.folder = out
    return card


__all__ = ["compare_folders"]
