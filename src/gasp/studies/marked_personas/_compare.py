"""Marked Personas across analysed runs (for example GPT-4 and GPT-3.5, as Table 3 sets
them side by side): the words significant in every run and in one run only, SVM
accuracies, sentiment and lexicon rates per run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError
from gasp.results import AuditResults, TableLayout
from gasp.studies.marked_personas._lexicons import DEFAULT_COUNTING
from gasp.studies.marked_personas._model import KINDS, STUDY_KIND


def _label(results: AuditResults, path: Path) -> str:
    return str(results.meta.get("model") or path.name)


def merge_examples(indices: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """One example index from several (documents renumbered, a word's texts pooled)."""
    present = [i for i in indices if i]
    if not present:
        return None
    merged: dict[str, Any] = {
        **{k: v for k, v in present[0].items() if k not in ("docs", "words", "sample_ids")},
        "docs": [],
        "sample_ids": [],
        "words": {},
    }
    for index in present:
        offset = len(merged["docs"])
        merged["docs"].extend(index.get("docs", []))
        merged["sample_ids"].extend(index.get("sample_ids", []))
        for word, entry in index.get("words", {}).items():
            target = merged["words"].setdefault(word, {"g": {}, "n": {}})
            for group, items in entry.get("g", {}).items():
                target["g"].setdefault(group, []).extend([[d + offset, s] for d, s in items])
            for group, n in entry.get("n", {}).items():
                target["n"][group] = target["n"].get(group, 0) + int(n)
    return merged


def _words(results: AuditResults, kind: str) -> dict[str, list[str]]:
    table = results.get(f"{kind}_marked_words")
    if table is None:
        return {}
    return {
        str(g): sub["word"].astype(str).tolist() for g, sub in table.groupby("group", sort=False)
    }


def _word_comparison(runs: list[AuditResults], labels: list[str], kind: str) -> pd.DataFrame:
    per_run = [_words(r, kind) for r in runs]
    groups = list(dict.fromkeys(g for words in per_run for g in words))
    rows = []
    for group in groups:
        lists = [words.get(group, []) for words in per_run]
        common = [w for w in lists[0] if all(w in set(other) for other in lists[1:])]
        row: dict[str, Any] = {"group": group, "significant_in_all": ", ".join(common)}
        for label, words in zip(labels, lists, strict=True):
            row[f"only_{label}"] = ", ".join(w for w in words if w not in set(common))
        rows.append(row)
    return pd.DataFrame(rows)


def _side_by_side(
    runs: list[AuditResults], labels: list[str], name: str, keys: list[str], value: str
) -> pd.DataFrame | None:
    parts = []
    for results, label in zip(runs, labels, strict=True):
        table = results.get(name)
        if table is None or table.empty:
            return None
        if "counting" in table:
            table = table[table["counting"] == DEFAULT_COUNTING]
        parts.append(table.set_index(keys)[value].rename(f"{value}_{label}"))
    return pd.concat(parts, axis=1).reset_index()


def compare_results(paths: Sequence[Path], labels: Sequence[str] | None = None) -> AuditResults:
    """The comparison of the analysed runs at ``paths`` (results folders)."""
    runs = [AuditResults.load(p) for p in paths]
    if len(runs) < 2:
        raise ConfigError("give at least two analysed runs to compare")
    names = list(labels) if labels else [_label(r, p) for r, p in zip(runs, paths, strict=True)]
    if len(names) != len(runs):
        raise ConfigError(f"give one label per run ({len(runs)}), got {len(names)}")
    if len(set(names)) != len(names):
        names = [f"{n}_{i + 1}" for i, n in enumerate(names)]
    tables: dict[str, pd.DataFrame] = {}
    result = AuditResults(tables=tables)
    kinds = [k for k in KINDS if all(k in r.meta.get("kinds", []) for r in runs)]
    for kind in kinds:
        words = _word_comparison(runs, names, kind)
        tables[f"{kind}_word_comparison"] = words
        result.set_layout(
            f"{kind}_word_comparison", TableLayout(word_columns=tuple(words.columns[1:]))
        )
        for name, keys, value in (
            ("svm_accuracy", ["grouping", "group"], "accuracy"),
            ("sentiment", ["group"], "mean"),
            ("lexicon_rates", ["lexicon", "group"], "mean_pct"),
        ):
            table = _side_by_side(runs, names, f"{kind}_{name}", keys, value)
            if table is not None:
                tables[f"{kind}_{name}_comparison"] = table
    result.meta.update(
        {
            "study_kind": STUDY_KIND,
            "kind": "comparison",
            "kinds": kinds,
            "runs": [str(p) for p in paths],
            "labels": names,
            "settings": {"runs": names},
        }
    )
    result.examples = merge_examples([r.examples for r in runs])
    return result
