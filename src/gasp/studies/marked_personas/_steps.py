"""Analyse generations (a run store or a user's table) into saved results: the tables of
every method per kind of text, the refusals first, the example texts of every word."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gasp._defaults import DEFAULT_THRESHOLD
from gasp.errors import ConfigError, DataError
from gasp.results import EXAMPLES_PER_WORD, AuditResults, TableLayout, build_example_index
from gasp.stats import FDR_SCOPES, study_fdr_level, study_rule
from gasp.studies.marked_personas._analysis import (
    Settings,
    analyze_kind,
    marked_tables,
    word_table,
)
from gasp.studies.marked_personas._frame import (
    prepare,
    refusal_mask,
    refusal_table,
    store_frame,
)
from gasp.studies.marked_personas._model import (
    KINDS,
    STUDY_KIND,
    MarkedPersonasStudy,
    load_study,
    study_from_mapping,
)
from gasp.text import count_words

#: Tables of each kind, in report order; saved as ``<kind>_<table>``.
KIND_TABLES = (
    "word_table",
    "marked_words",
    "chance_marked_words",
    "svm_accuracy",
    "svm_top_words",
    "jsd_top_words",
    "lexicon_rates",
    "lexicon_words",
    "resilience",
    "sentiment",
    "word_sentiment",
)
_WORD_COLUMNS = {
    "word_table": ("marked_words", "also_svm_top", "svm_only"),
    "marked_words": ("word",),
    "svm_accuracy": ("top_words",),
    "svm_top_words": ("word",),
    "jsd_top_words": ("word",),
    "lexicon_words": ("word",),
    "word_sentiment": ("word",),
}
_GENDER_CODES = {"M": "M", "W": "F", "F": "F", "N": "N"}


def settings_from(options: Mapping[str, Any]) -> Settings:
    """Analysis settings from the study options (None: the default)."""
    from gasp.studies.marked_personas._type import STUDY_TYPE

    opts = STUDY_TYPE.resolve_options(options)  # checked, typed and defaulted once
    patterns = str(opts["refusal_patterns"])
    threshold, fdr, scope = opts.get("threshold"), opts.get("fdr"), opts.get("fdr_scope")
    fdr = study_fdr_level(fdr, scope)
    if scope not in (None, *FDR_SCOPES):
        raise ConfigError(f"fdr_scope must be one of {', '.join(FDR_SCOPES)}, got {scope!r}")
    return Settings(
        lexicon_counting=str(opts["lexicon_counting"]),
        resilience_counting=str(opts["resilience_counting"]),
        threshold=DEFAULT_THRESHOLD if threshold is None else float(threshold),
        fdr=None if fdr is None else float(fdr),
        fdr_scope=str(scope or "comparison"),
        anonymizer=str(opts["anonymizer"]),
        svm_seed=opts.integer("svm_seed"),
        min_df=opts.number("min_df"),
        refusal_patterns=tuple(p.strip() for p in patterns.split("|") if p.strip()),
        exclude_refusals=bool(opts["exclude_refusals"]),
        interval_seed=int(options.get("seed") or 0),
    )


def _examples(frame: pd.DataFrame, words: list[str], options: Mapping[str, Any]) -> dict[str, Any]:
    samples = pd.DataFrame(
        {
            "text": frame["text"],
            "subject": frame["group"],
            "template": frame["template"],
            "named_gender": [
                _GENDER_CODES.get(str(g))
                for g in frame.get("gender", pd.Series([None] * len(frame)))
            ],
            "associated_gender": [None] * len(frame),
        }
    )
    for col in ("item_id", "sample_index"):
        if col in frame:
            samples[col] = frame[col].to_numpy()
    if "item_id" not in samples:
        samples["item_id"] = frame["template"].to_numpy()
        samples["sample_index"] = np.arange(len(frame))
    cap = int(options.get("examples_per_word") or EXAMPLES_PER_WORD)
    return build_example_index(samples, words, cap=cap, seed=int(options.get("seed") or 0))


def analyze_frame(
    raw: pd.DataFrame,
    study: MarkedPersonasStudy,
    options: Mapping[str, Any],
    manifest: Mapping[str, Any] | None = None,
) -> AuditResults:
    """Every analysis of ``raw`` (a run's samples or a user's table)."""
    settings = settings_from(options)
    frame = prepare(raw, study)
    if frame.empty:
        raise DataError("no generation with text to analyse")
    refused = refusal_mask(frame["text"].tolist(), settings.refusal_patterns)
    tables: dict[str, pd.DataFrame] = {"refusals": refusal_table(frame, refused, study)}
    used = frame[~refused].reset_index(drop=True) if settings.exclude_refusals else frame
    words: set[str] = set()
    kinds = [k for k in KINDS if (used["text_kind"] == k).any()]
    summary: dict[str, Any] = {}
    subs = {kind: used[used["text_kind"] == kind].reset_index(drop=True) for kind in kinds}
    counted = {kind: count_words(sub["text"].tolist()) for kind, sub in subs.items()}
    every = {kind: marked_tables(subs[kind], counted[kind], study, settings) for kind in kinds}
    # one family for a study-wide FDR: every comparison of every kind of text
    rule = study_rule(settings.rule(), (t for tables in every.values() for _, t in tables))
    for kind in kinds:
        sub = subs[kind]
        out = analyze_kind(sub, study, settings, (counted[kind], every[kind]), rule)
        out["word_table"] = word_table(out["marked_words"], out["svm_top_words"])
        for name in KIND_TABLES:
            tables[f"{kind}_{name}"] = out[name]
        for name in ("marked_words", "svm_top_words", "jsd_top_words", "word_sentiment"):
            words.update(out[name]["word"].astype(str))
        present = out["lexicon_words"]
        words.update(present.loc[present["occurrences"] > 0, "word"].astype(str))
        acc = out["svm_accuracy"]
        ws = out["word_sentiment"]
        overall = out["sentiment"].iloc[0]
        summary[kind] = {
            "texts": len(sub),
            "svm_accuracy_mean": float(acc["accuracy"].mean()) if len(acc) else None,
            "svm_accuracy_sd": float(acc["accuracy"].std(ddof=0)) if len(acc) else None,
            "svm_baseline_mean": float(acc["baseline"].mean()) if len(acc) else None,
            "svm_balanced_accuracy_mean": (
                float(acc["balanced_accuracy"].mean()) if len(acc) else None
            ),
            "sentiment_mean": float(overall["mean"]),
            "sentiment_sd": float(overall["sd"]),
            "word_sentiment_mean": float(ws["word_score"].mean()) if len(ws) else None,
            "word_sentiment_sd": float(ws["word_score"].std(ddof=0)) if len(ws) else None,
            "words_below_zero": int((ws["word_score"] < 0).sum()),
        }
    results = AuditResults(tables=tables)
    for name in tables:
        base = name.split("_", 1)[1] if name.split("_", 1)[0] in KINDS else name
        share = ("share",) if name == "refusals" else ()
        results.set_layout(
            name, TableLayout(word_columns=_WORD_COLUMNS.get(base, ()), share_columns=share)
        )
    results.meta.update(
        {
            "study_kind": STUDY_KIND,
            "study": study.name,
            "kinds": kinds,
            "texts": len(frame),
            "refusals": int(refused.sum()),
            "summary": summary,
            "settings": {**settings.to_dict(), "study": study.to_dict()},
        }
    )
    if manifest:
        results.meta["manifest"] = dict(manifest)
        model = manifest.get("model")
        results.meta["model"] = model.get("spec") if isinstance(model, Mapping) else model
    elif "model" in raw:
        results.meta["model"] = ", ".join(sorted({str(m) for m in raw["model"].dropna()}))
    results.examples = _examples(used, sorted(words), options)
    return results


def summary_lines(results: AuditResults, folder: Path) -> list[str]:
    """The lines printed after an analysis (texts, refusals, SVM accuracy, sentiment)."""
    meta = results.meta
    lines = [f"Marked Personas: {meta['texts']} texts, {meta['refusals']} refusals"]
    refusals = results.tables["refusals"]
    for rec in refusals.itertuples(index=False):
        lines.append(
            f"  refusals {rec.kind}/{rec.template}: {rec.refusals}/{rec.texts} ({rec.share:.0%})"
        )
    for kind, s in meta["summary"].items():
        if s["svm_accuracy_mean"] is not None:
            lines.append(
                f"{kind}: SVM accuracy {s['svm_accuracy_mean']:.3f} +/- {s['svm_accuracy_sd']:.3f} "
                f"(baseline {s['svm_baseline_mean']:.3f}, "
                f"balanced {s['svm_balanced_accuracy_mean']:.3f})"
            )
        lines.append(
            f"{kind}: VADER compound {s['sentiment_mean']:.3f} +/- {s['sentiment_sd']:.3f}"
        )
    lines.append(f"results written to {folder}")
    return lines


def analyze_step(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse a run store into ``results``."""
    samples, manifest = store_frame(store)
    spec = manifest.get("study")
    study = (
        study_from_mapping(spec)
        if isinstance(spec, Mapping) and "axes" in spec
        else load_study(STUDY_KIND)
    )
    audit = analyze_frame(samples, study, options, manifest)
    folder = audit.save(results)
    return {"lines": summary_lines(audit, folder)}
