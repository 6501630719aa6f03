""":func:`probe_words`: cluster the significant words of two groups into patterns."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gasp._api._keywords import (
    in_python_words,
    require_choices,
    require_int,
    require_number,
    require_path,
    require_text,
    require_texts,
)
from gasp.probe import ProbeResult

#: The Marked Words variants that pick the significant words (``marked`` is ``plain``).
PROBE_METHODS = ("calibrated", "plain", "marked")


@dataclasses.dataclass(frozen=True)
class ProbeOutcome:
    """What :func:`probe_words` found and wrote.

    For a table: the probe's ``result``, the ``folder`` written, the files in it and
    the subjects left out (those without both groups). For an analysed run's results
    folder: that folder, its study's one-line ``summary`` of the probe, and no
    ``result`` (the tables were added to the folder's results).
    """

    folder: Path
    result: ProbeResult | None = None
    written: tuple[Path, ...] = ()
    excluded_subjects: int = 0
    summary: str = ""


def probe_words(
    source: str | Path,
    *,
    group_a: str = "F",
    group_b: str = "M",
    text_column: str = "text",
    group_column: str = "gender",
    subject_columns: str | Sequence[str] = (),
    unit_columns: str | Sequence[str] = (),
    model_column: str | None = None,
    method: str = "calibrated",
    embeddings: str = "minilm",
    k: int | None = None,
    k_max: int = 60,
    k_step: int = 1,
    k_rule: str = "max",
    n_init: int = 5,
    seed: int = 0,
    min_subjects: int = 3,
    min_ratio: float = 1.5,
    min_zipf: float = 1.0,
    out: str | Path | None = None,
) -> ProbeOutcome:
    """Cluster the words that mark ``group_a`` or ``group_b`` and measure each
    cluster's prevalence in the two groups, as ``gasp probe`` does.

    ``source`` is a table of generations (CSV, TSV, Parquet, JSON Lines, JSON), its
    text in ``text_column`` and its group in ``group_column``, the groups compared
    within each subject (``subject_columns``, split further by ``unit_columns``); the
    tables and ``probe.html`` go to ``out`` (default ``<source>.probe``). Or ``source``
    is an analysed run's results folder, to which the probe's tables are added.
    ``method`` picks the significant words (``calibrated`` or ``plain`` Marked Words),
    ``embeddings`` the word vectors (``minilm``, ``glove`` or a KeyedVectors file);
    ``k`` fixes the number of clusters, otherwise ``k_rule`` picks it on the grid up to
    ``k_max``. A kept cluster reaches ``min_subjects`` subjects and ``min_ratio``.

    Example:
        >>> import gasp, pandas as pd, random
        >>> rng = random.Random(0)
        >>> filler = lambda: " ".join(rng.choices(["the", "work", "day", "team", "city"], k=12))
        >>> rows = [(f"{who} loves {a} and {b}. {filler()}", group, job)
        ...         for who, a, b, group in (("She", "yoga", "meditation", "W"),
        ...                                  ("He", "football", "hockey", "M"))
        ...         for job in ("nurse", "pilot", "chef") for _ in range(12)]
        >>> table = folder / "texts.csv"
        >>> pd.DataFrame(rows, columns=["text", "gender", "job"]).to_csv(table, index=False)
        >>> found = gasp.probe_words(table, group_a="W", group_b="M", subject_columns="job",
        ...                          method="plain", k=2)
        >>> found.result.k, found.folder.name
        (2, 'texts.csv.probe')
        >>> sorted(found.result.kept_clusters()["words"])
        ['meditation, yoga']
    """
    fn = "gasp.probe_words"
    path = require_path(fn, "source", source, optional=False, folder=False)
    assert path is not None
    for name, value in (("group_a", group_a), ("group_b", group_b), ("text_column", text_column),
                        ("group_column", group_column), ("embeddings", embeddings),
                        ("k_rule", k_rule), ("method", method)):  # fmt: skip
        require_text(fn, name, value)
    require_text(fn, "model_column", model_column, optional=True)
    require_choices(fn, "method", [method], PROBE_METHODS)
    subjects = [*require_texts(fn, "subject_columns", subject_columns),
                *require_texts(fn, "unit_columns", unit_columns)]  # fmt: skip
    if k is not None:
        require_int(fn, "k", k)
    for name, number in (("k_max", k_max), ("k_step", k_step), ("n_init", n_init),
                         ("min_subjects", min_subjects)):  # fmt: skip
        require_int(fn, name, number)
    require_int(fn, "seed", seed, minimum=0, maximum=2**32 - 1)
    require_number(fn, "min_ratio", min_ratio)
    require_number(fn, "min_zipf", min_zipf)
    target = require_path(fn, "out", out)
    from gasp.pipeline import probe_results, probe_table
    from gasp.probe import (
        ClusteringConfig,
        GenerationColumns,
        PrevalenceConfig,
        ProbeConfig,
        WordFilterConfig,
    )

    grid: dict[str, Any] = {"k": k, "k_max": k_max, "k_step": k_step, "k_rule": k_rule}
    with in_python_words(fn):
        config = ProbeConfig(
            filter=WordFilterConfig(min_zipf=min_zipf),
            clustering=ClusteringConfig(**grid, n_init=n_init),  # k_rule checked there
            prevalence=PrevalenceConfig(min_subjects=min_subjects, min_ratio=min_ratio),
        )
        if path.is_dir():
            given = {"group_a": group_a, "group_b": group_b, "embeddings": embeddings}
            line = probe_results(path, {**given, "k": k, "seed": seed, "config": config})
            return ProbeOutcome(path, summary=line)
        columns = GenerationColumns(
            text=text_column,
            group=group_column,
            subject_columns=tuple(subjects),
            model_column=model_column,
        )
        outcome = probe_table(
            path,
            group_a=group_a,
            group_b=group_b,
            columns=columns,
            method="calibrated" if method == "calibrated" else "marked",
            embeddings=embeddings,
            seed=seed,
            config=config,
            out=target,
        )
    return ProbeOutcome(outcome.folder, outcome.result, outcome.written, outcome.excluded_subjects)


__all__ = ["PROBE_METHODS", "ProbeOutcome", "probe_words"]
