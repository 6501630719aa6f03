"""The whole analysis of a run: who is represented, how, and the word tables.

Reads only the samples table of a run store (never calls a model). Words are counted
once and genders associated once for the whole run (:mod:`gasp.analysis._prepare`);
every step slices those. The result is an :class:`AuditResults` with the tables
documented in :mod:`gasp.analysis._representation`, :mod:`gasp.analysis._descriptions`
and :mod:`gasp.analysis._word_tables`, and ``meta`` holding the run id, study, model,
settings, sample counts and the seconds each step took (``timings``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.analysis import _results as names
from gasp.analysis._config import AnalysisConfig
from gasp.analysis._descriptions import analyze_descriptions
from gasp.analysis._prepare import BLSFigure, bls_from_study, prepare_run
from gasp.analysis._representation import analyze_representation
from gasp.analysis._results import AuditResults
from gasp.analysis._word_tables import word_tables
from gasp.errors import DataError


class _Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def step(self, name: str) -> Any:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = round(time.perf_counter() - start, 4)


def analyze_samples(
    samples: pd.DataFrame,
    study: Any = None,
    config: AnalysisConfig | None = None,
    *,
    embeddings: Any = None,
    bls: Mapping[str, BLSFigure] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> AuditResults:
    """Analyse a samples table (the columns of ``RunStore.samples()``).

    ``study`` supplies the BLS figures of its subjects (``bls`` overrides them);
    ``embeddings`` (a loaded provider) overrides ``config.embeddings``; ``meta`` is
    merged into the results' metadata.
    """
    cfg = config if config is not None else AnalysisConfig()
    timer = _Timer()
    with timer.step("prepare"):
        figures = dict(bls) if bls is not None else bls_from_study(study)
        run = prepare_run(samples, bls=figures)
    tables: dict[str, pd.DataFrame] = {}
    with timer.step("representation"):
        tables.update(analyze_representation(run, cfg))
    with timer.step("descriptions"):
        how = analyze_descriptions(run, cfg, embeddings)
    tables[names.MARKED_WORDS] = how.marked_words
    tables[names.SRB_SCORES] = how.srb_scores
    tables[names.SRB_TEST] = how.srb_test.assign(model=run.model_id)
    tables[names.EXCLUDED] = how.excluded
    with timer.step("word_tables"):
        tables[names.WORD_TABLES] = word_tables(how.marked_words)
    run_ids: list[object] = (
        list(samples["run_id"].dropna().unique()) if "run_id" in samples.columns else []
    )
    studies: list[object] = (
        list(samples["study"].dropna().unique()) if "study" in samples.columns else []
    )
    info: dict[str, Any] = {
        "kind": "audit",
        "run_id": str(run_ids[0]) if len(run_ids) == 1 else None,
        "study": str(studies[0]) if len(studies) == 1 else getattr(study, "name", None),
        "model_id": run.model_id,
        "n_samples": len(samples),
        "n_valid": len(run.samples),
        "n_subjects": int(run.samples["subject"].nunique()),
        "n_analysed_subjects": int(how.srb_scores["subject"].nunique()),
        "embeddings": getattr(embeddings, "name", None) or cfg.to_meta()["embeddings"],
        "config": cfg.to_meta(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "timings": timer.seconds,
    }
    info.update(meta or {})
    return AuditResults(tables=tables, meta=info)


def analyze_run(store_path: str | Path, config: AnalysisConfig | None = None) -> AuditResults:
    """Analyse the run stored at ``store_path`` (a run store file)."""
    from gasp.store import RunStore

    path = Path(store_path)
    if not path.is_file():
        raise DataError(f"no run store at {path}")
    start = time.perf_counter()
    store = RunStore.open(path)
    try:
        samples = store.samples(include_errors=True)
        manifest = store.manifest() if store.has_manifest() else {}
        study = _study_of(manifest)
    finally:
        store.close()
    load_s = round(time.perf_counter() - start, 4)
    model = manifest.get("model") if isinstance(manifest, dict) else None
    extra: dict[str, Any] = {"store": str(path)}
    if isinstance(model, str):
        extra["model_id"] = model
    elif isinstance(model, Mapping) and (model.get("model_id") or model.get("spec")):
        extra["model_id"] = str(model.get("model_id") or model.get("spec"))
    study_spec = manifest.get("study") if isinstance(manifest, dict) else None
    if isinstance(study_spec, Mapping) and study_spec.get("name"):
        extra["study"] = str(study_spec["name"])
    results = analyze_samples(samples, study, config, meta=extra)
    results.meta["timings"] = {"load": load_s, **results.meta.get("timings", {})}
    return results


def _study_of(manifest: Mapping[str, Any]) -> Any:
    """The study recorded in a run manifest (None when there is none)."""
    from gasp.studies.more_of_the_same import Study

    spec = manifest.get("study")
    return Study.from_dict(spec) if isinstance(spec, Mapping) else None


def default_results_dir(store_path: str | Path) -> Path:
    """Where ``gasp analyze`` writes the results of a run: ``<run>.results`` beside it."""
    path = Path(store_path)
    return path.with_name(path.name + ".results")


class RunAudit:
    """The analysis as an estimator: settings in ``__init__``, :meth:`fit` fills ``results_``."""

    results_: AuditResults

    def __init__(self, config: AnalysisConfig | None = None, *, embeddings: Any = None) -> None:
        self.config = config if config is not None else AnalysisConfig()
        self.embeddings = embeddings

    def fit(self, samples: pd.DataFrame, study: Any = None) -> RunAudit:
        """Analyse ``samples`` (see :func:`analyze_samples`); return ``self``."""
        self.results_ = analyze_samples(samples, study, self.config, embeddings=self.embeddings)
        return self
