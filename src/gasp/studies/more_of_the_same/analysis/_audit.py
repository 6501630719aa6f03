"""The whole analysis of a run: who is represented, how, and the word tables.

Reads only the samples table of a run store (never calls a model). Words are counted
once and genders associated once for the whole run (:mod:`._prepare`);
every step slices those. The result is an :class:`~gasp.results.AuditResults` holding
everything the report shows:

* the tables documented in :mod:`._representation`,
  :mod:`._descriptions` and :mod:`._word_tables`, plus
  ``sample_associations`` (one row per valid generation: item_id when the store has
  it, template, subject, condition, sample_index, named_gender, associated_gender and
  the cue counts cue_female, cue_male, cue_neutral, cue_nonbinary_cue behind it) and
  ``marked_words_by_group``;
* ``meta["settings"]``: the exact settings used (:meth:`AnalysisConfig.settings`);
* ``meta["layouts"]``: the word and share columns of the tables that have them;
* ``meta["manifest"]``: the run's manifest when the run came from a store;
* ``examples``: up to ``examples_per_word`` generations per marked word for the
  report's word browser (:func:`gasp.results.build_example_index`, seeded);

and ``meta`` holding the run id, study, model, sample counts and the seconds each
step took (``timings``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.results import AuditResults, build_example_index
from gasp.studies.more_of_the_same import _tables as names
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig, analysis_config_for_run
from gasp.studies.more_of_the_same.analysis._descriptions import analyze_descriptions
from gasp.studies.more_of_the_same.analysis._paired import paired_table
from gasp.studies.more_of_the_same.analysis._prepare import (
    CUE_COLUMNS,
    BLSFigure,
    PreparedRun,
    bls_from_study,
    prepare_run,
)
from gasp.studies.more_of_the_same.analysis._representation import analyze_representation
from gasp.studies.more_of_the_same.analysis._word_tables import marked_words_by_group, word_tables

_ASSOCIATION_KEYS = ("item_id", "template", "subject", "condition", "sample_index")
#: The sample columns the analysis reads from a run store (with the item attributes).
_STORE_COLUMNS = ("sample_index", "text", "error", "model_id")


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


def _blank_to_none(column: pd.Series) -> pd.Series:
    return column.astype(object).where(column.astype(str) != "", None)


def association_table(run: PreparedRun) -> pd.DataFrame:
    """One row per valid generation: its keys, named and associated gender and cue counts."""
    frame = run.samples
    keys = [c for c in _ASSOCIATION_KEYS if c in frame.columns]
    out = frame[keys].copy()
    out["named_gender"] = _blank_to_none(frame["named"])
    out["associated_gender"] = _blank_to_none(frame["associated"])
    for column in CUE_COLUMNS:
        out[f"cue_{column}"] = frame[f"cue_{column}"].to_numpy()
    return out


def select_examples(
    run: PreparedRun, marked: pd.DataFrame, config: AnalysisConfig
) -> dict[str, Any]:
    """The word browser's examples: up to ``examples_per_word`` generations per marked word."""
    frame = run.samples.assign(
        named_gender=_blank_to_none(run.samples["named"]),
        associated_gender=_blank_to_none(run.samples["associated"]),
    )
    words = marked["word"].astype(str).unique().tolist() if "word" in marked.columns else []
    return build_example_index(
        frame, words, cap=config.examples_per_word, seed=config.seed, counts=run.counts
    )


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
    tables[names.SRB_PAIRED] = paired_table(how.srb_scores, cfg).assign(model=run.model_id)
    tables[names.EXCLUDED] = how.excluded
    tables[names.CHANCE] = how.chance
    with timer.step("word_tables"):
        tables[names.WORD_TABLES] = word_tables(how.marked_words)
        tables[names.MARKED_WORDS_BY_GROUP] = marked_words_by_group(how.marked_words)
    tables[names.SAMPLE_ASSOCIATIONS] = association_table(run)
    with timer.step("examples"):
        examples = select_examples(run, how.marked_words, cfg)
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
        "settings": cfg.settings(embeddings),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "timings": timer.seconds,
    }
    info.update(meta or {})
    results = AuditResults(tables=tables, meta=info, examples=examples)
    for name, layout in names.AUDIT_LAYOUTS.items():
        if name in tables:
            results.set_layout(name, layout)
    return results


def analyze_run(
    store_path: str | Path,
    config: AnalysisConfig | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
) -> AuditResults:
    """Analyse the run stored at ``store_path`` (a run store file).

    Without ``config`` the settings are :func:`analysis_config_for_run` of the run's
    manifest with ``overrides`` (the defaults of ``gasp run``); ``overrides`` cannot be
    combined with ``config``. The manifest is saved in ``meta["manifest"]``.
    """
    if config is not None and overrides:
        raise ConfigError("give either an analysis config or overrides, not both")
    from gasp.store import RunStore

    path = Path(store_path)
    if not path.is_file():
        raise DataError(f"no run store at {path}")
    start = time.perf_counter()
    store = RunStore.open(path)
    try:
        samples = store.samples(include_errors=True, columns=_STORE_COLUMNS)
        manifest = store.manifest() if store.has_manifest() else {}
        study = _study_of(manifest)
        sessions = store.sessions()
    finally:
        store.close()
    load_s = round(time.perf_counter() - start, 4)
    model = manifest.get("model") if isinstance(manifest, dict) else None
    extra: dict[str, Any] = {"store": str(path), "manifest": manifest or None}
    if isinstance(model, str):
        extra["model_id"] = model
    elif isinstance(model, Mapping) and (model.get("model_id") or model.get("spec")):
        extra["model_id"] = str(model.get("model_id") or model.get("spec"))
    study_spec = manifest.get("study") if isinstance(manifest, dict) else None
    if isinstance(study_spec, Mapping) and study_spec.get("name"):
        extra["study"] = str(study_spec["name"])
    extra[names.GENERATION_TIME] = generation_time(sessions, samples)
    if config is None:
        config = analysis_config_for_run(manifest, **dict(overrides or {}))
    results = analyze_samples(samples, study, config, meta=extra)
    results.meta["timings"] = {"load": load_s, **results.meta.get("timings", {})}
    return results


def generation_time(sessions: pd.DataFrame, samples: pd.DataFrame) -> dict[str, float]:
    """Wall seconds of the run's finished generation sessions and the samples it holds."""
    seconds = 0.0
    if len(sessions) and {"started_at", "finished_at"} <= set(sessions.columns):
        started = pd.to_datetime(sessions["started_at"], utc=True, errors="coerce")
        finished = pd.to_datetime(sessions["finished_at"], utc=True, errors="coerce")
        seconds = float((finished - started).dt.total_seconds().fillna(0).sum())
    n = int(samples["text"].notna().sum()) if "text" in samples.columns else len(samples)
    return {"seconds": round(seconds, 1), "samples": float(n)}


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
