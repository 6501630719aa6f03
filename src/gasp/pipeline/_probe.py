"""The probe of a table of generations, or of an analysed run (seed ``000`` §5.3).

:func:`probe_table` finds the words significant for group A against group B (and B
against A) within each subject of a table, clusters them and writes the prevalence
of every cluster (Figure 5), the silhouette curve (Figure 8), the words and a small
HTML page; :func:`probe_results` adds the probe's tables to an analysed run's
results through its study.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gasp.errors import DataError

if TYPE_CHECKING:
    from gasp.probe import GenerationColumns, ProbeConfig, ProbeResult

#: The probe's tables, by file name.
PROBE_FILES = (
    "probe_clusters.csv",
    "probe_silhouette.csv",
    "probe_words.csv",
    "probe_coverage.csv",
)


@dataclasses.dataclass(frozen=True)
class ProbeTableOutcome:
    """What :func:`probe_table` found and wrote."""

    result: ProbeResult
    folder: Path
    written: tuple[Path, ...]
    excluded_subjects: int


def probe_results(folder: Path, options: Mapping[str, Any]) -> str:
    """Add the probe's tables to the analysed results in ``folder`` through its study's
    probe (``options``: ``group_a``, ``group_b``, ``embeddings``, ``k``, ``seed`` and
    the whole ``config``); the study's one-line summary."""
    from gasp.pipeline._sources import study_type_of_results

    return study_type_of_results(folder).probe(folder, options)


def probe_table(
    file: Path,
    *,
    group_a: str,
    group_b: str,
    columns: GenerationColumns,
    method: Literal["calibrated", "marked"],
    embeddings: str,
    seed: int,
    config: ProbeConfig,
    out: Path | None = None,
) -> ProbeTableOutcome:
    """Probe the generations of the table ``file`` into ``out`` (default:
    ``<file>.probe`` beside it): the probe's tables, the significant words, the
    subjects left out and ``probe.html``."""
    import pandas as pd

    from gasp.io import read_generations
    from gasp.probe import probe_words, significant_words
    from gasp.report import probe_page
    from gasp.results import build_example_index

    subjects = list(columns.subject_columns)
    wanted = [columns.group, *subjects] + ([columns.model_column] if columns.model_column else [])
    generations = read_generations(file, columns.text, wanted)
    if columns.model_column is None and "model" in generations.columns:
        columns = dataclasses.replace(columns, model_column="model")
    found = significant_words(
        generations, group_a=group_a, group_b=group_b, columns=columns, method=method
    )
    if found.words.empty:
        raise DataError("no word is significant for either group in any subject")
    result = probe_words(
        found.words,
        group_a=group_a,
        group_b=group_b,
        embeddings=embeddings,
        seed=seed,
        config=config,
    )
    folder = out if out is not None else file.with_name(file.name + ".probe")
    folder.mkdir(parents=True, exist_ok=True)
    tables = (result.clusters, result.silhouette, result.words, result.coverage)
    written = [*_write(folder, PROBE_FILES, tables)]
    written += _write(
        folder, ("significant_words.csv", "excluded_subjects.csv"), (found.words, found.excluded)
    )
    samples = pd.DataFrame({"text": generations[columns.text].astype(str)})
    if subjects:
        samples["subject"] = generations[subjects].astype(str).agg(" | ".join, axis=1)
    kept = result.kept_clusters()
    ids = (kept if not kept.empty else result.clusters)["cluster"].unique()
    shown = result.assignments.loc[result.assignments["cluster"].isin(ids), "word"]
    examples = build_example_index(samples, shown.astype(str).tolist(), seed=seed)
    page = folder / "probe.html"
    page.write_text(probe_page(result, examples), encoding="utf-8")
    return ProbeTableOutcome(result, folder, (*written, page), len(found.excluded))


def _write(folder: Path, names: Sequence[str], tables: Sequence[object]) -> list[Path]:
    written = []
    for name, table in zip(names, tables, strict=True):
        table.to_csv(folder / name, index=False)  # type: ignore[attr-defined]
        written.append(folder / name)
    return written


__all__ = ["PROBE_FILES", "ProbeTableOutcome", "probe_results", "probe_table"]
