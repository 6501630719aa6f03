"""``gasp compare`` across studies: the audit scorecard built from folders that exist.

Given audit folders (made by ``gasp audit``) or run folders of any studies, it finds
every analysed run, names its model (the audit's model name, the ``--label`` of a run
folder, else the model recorded in its results) and writes ``scorecard.json`` and
``index.html`` to ``--out`` with the audit's tests and correction. No model is called.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from gasp.audit import AuditModel, RunRecord, build_scorecard, write_audit_page, write_scorecard
from gasp.errors import ConfigError
from gasp.io import locate_run, run_folder_paths
from gasp.pipeline import study_type_of_results
from gasp.results import INDEX_FILE
from gasp.text import slug

#: The file ``gasp audit`` keeps in its folder (models, baseline).
AUDIT_FILE = "audit.json"


def is_audit_folder(path: Path) -> bool:
    """True for a folder made by ``gasp audit``."""
    return (path / AUDIT_FILE).is_file()


def _model_of(results: Path) -> str:
    meta = json.loads((results / INDEX_FILE).read_text(encoding="utf-8")).get("meta", {})
    manifest = meta.get("manifest") or {}
    model = manifest.get("model") if isinstance(manifest, dict) else None
    spec = model.get("spec") if isinstance(model, dict) else model
    return str(spec or meta.get("model_id") or "model")


def _slug(text: str) -> str:
    return slug(text, keep="._", fallback="model")


def _from_audit(folder: Path) -> tuple[list[AuditModel], list[RunRecord], str | None]:
    record = json.loads((folder / AUDIT_FILE).read_text(encoding="utf-8"))
    models = [AuditModel(m["name"], m["spec"], m.get("variant_prompt")) for m in record["models"]]
    runs = []
    for model in models:
        for study in record.get("studies", []):
            paths = run_folder_paths(folder / model.name / study)
            status = "complete" if (paths.results / INDEX_FILE).is_file() else "failed"
            reason = "" if status == "complete" else "no saved results"
            runs.append(RunRecord(model.name, study, paths, status, reason))
    return models, runs, record.get("baseline")


def compare_scorecard(
    folders: Sequence[Path], out: Path, labels: Sequence[str] | None, level: float = 0.05
) -> Path:
    """Write the cross-study scorecard of ``folders`` to ``out``; return the page."""
    labels = list(labels or [])
    plain = [f for f in folders if not is_audit_folder(f)]
    if labels and len(labels) != len(plain):
        raise ConfigError(f"give one --label per run folder ({len(plain)}), got {len(labels)}")
    models: dict[str, AuditModel] = {}
    runs: list[RunRecord] = []
    baselines = []
    for folder in folders:
        if is_audit_folder(folder):
            found, records, baseline = _from_audit(folder)
            models.update({m.name: m for m in found if m.name not in models})
            runs += records
            baselines.append(baseline)
            continue
        paths = locate_run(folder)
        study = study_type_of_results(paths.results).name
        spec = _model_of(paths.results)
        name = _slug(labels.pop(0)) if labels else _slug(spec)
        models.setdefault(name, AuditModel(name, spec))
        if any(r.model == name and r.study == study for r in runs):
            raise ConfigError(f"two runs of {study} for model {name!r}; name them with --label")
        runs.append(RunRecord(name, study, paths))
    if len(models) < 2:
        raise ConfigError("a comparison needs runs of at least two models")
    known = [b for b in baselines if b is not None]
    baseline = known[0] if len(set(known)) == 1 and len(baselines) == len(folders) else None
    card = build_scorecard(list(models.values()), runs, out, baseline=baseline, level=level)
    write_scorecard(card, out)
    return write_audit_page(card, out)


__all__ = ["compare_scorecard", "is_audit_folder"]
