""":func:`associate_genders`, :func:`marked_words`, :func:`calibrate` and
:func:`probe_words`: analyses of a table of generations (or of two groups' words) the
user already has, without a study."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gasp._api._keywords import (
    in_python_words,
    require_choices,
    require_int,
    require_number,
    require_path,
    require_text,
    require_texts,
)
from gasp._defaults import DEFAULT_THRESHOLD
from gasp.probe import ProbeResult
from gasp.stats import CalibrationReport

#: The Marked Words variants: plain (Marked Personas) or calibrated (More of the Same).
MARKED_WORDS_METHODS = ("plain", "calibrated")


@dataclasses.dataclass(frozen=True)
class GenderAssociation:
    """The table with each text's associated gender and counts added, the number of
    texts per label (F, M, N, unassigned), and the file written (None: none)."""

    table: pd.DataFrame
    counts: pd.Series
    written: Path | None = None


@dataclasses.dataclass(frozen=True)
class MarkedWords:
    """The words that mark a target group against the unmarked groups of a table: one
    row per significant word (``word``, ``count_target``, ``z_<group>`` for each
    unmarked group, ``z_sum``), the sizes of the groups, and the file written."""

    words: pd.DataFrame
    target_size: int
    #: Each unmarked group's column name and its number of texts.
    unmarked_sizes: dict[str, int]
    written: Path | None = None


def _table_path(function: str, file: str | Path) -> Path:
    path = require_path(function, "file", file, optional=False, folder=False)
    assert path is not None
    return path


def associate_genders(
    file: str | Path, *, text_column: str = "text", out: str | Path | None = None
) -> GenderAssociation:
    """Associate each text of the table ``file`` with a gender (F, M, N or unassigned)
    from its gendered words, as ``gasp associate`` does; with ``out`` the table with
    the associated gender and counts is written there (.csv, .jsonl, .parquet, ...).

    Example:
        >>> import gasp, pandas as pd
        >>> texts = ["She said her day went well.", "He took his car.", "It rained."]
        >>> pd.DataFrame({"text": texts}).to_csv(folder / "texts.csv", index=False)
        >>> found = gasp.associate_genders(folder / "texts.csv")
        >>> int(found.counts["F"]), int(found.counts["M"])
        (1, 1)
    """
    fn = "gasp.associate_genders"
    path = _table_path(fn, file)
    require_text(fn, "text_column", text_column)
    target = require_path(fn, "out", out, folder=False)
    from gasp.io import write_table
    from gasp.pipeline import associate_table

    with in_python_words(fn):
        table, counts = associate_table(path, text_column)
        written = write_table(table, target) if target is not None else None
    return GenderAssociation(table, counts, written)


def marked_words(
    file: str | Path,
    target: str,
    unmarked: str | Sequence[str],
    *,
    text_column: str = "text",
    threshold: float = DEFAULT_THRESHOLD,
    level: float | None = None,
    min_count: int = 0,
    method: str = "plain",
    out: str | Path | None = None,
) -> MarkedWords:
    """The words that distinguish the ``target`` group of the table ``file`` from every
    ``unmarked`` group, as ``gasp marked-words`` does. Groups are ``column=value``
    selectors (``"gender=W"``, ``"race=a Black,gender=W"``).

    A word is significant when its z-score exceeds ``threshold`` against every
    unmarked group, or, with ``level``, by a Benjamini-Hochberg test at that false
    discovery rate. ``method`` is ``plain`` (Marked Personas) or ``calibrated`` (More
    of the Same, Algorithm 4). With ``out`` every significant word is written there.

    Example:
        >>> import gasp, pandas as pd
        >>> rows = [("She loves yoga and tea.", "W"), ("He loves football and beer.", "M")]
        >>> pd.DataFrame(rows * 20, columns=["text", "gender"]).to_csv(
        ...     folder / "groups.csv", index=False)
        >>> found = gasp.marked_words(folder / "groups.csv", "gender=W", "gender=M")
        >>> "yoga" in set(found.words["word"]), found.target_size
        (True, 20)
    """
    fn = "gasp.marked_words"
    path = _table_path(fn, file)
    require_text(fn, "target", target)
    groups = require_texts(fn, "unmarked", unmarked)
    require_text(fn, "text_column", text_column)
    require_number(fn, "threshold", threshold)
    chosen = None if level is None else require_number(fn, "level", level)
    require_int(fn, "min_count", min_count)
    require_choices(fn, "method", [require_text(fn, "method", method) or ""], MARKED_WORDS_METHODS)
    written_to = require_path(fn, "out", out, folder=False)
    from gasp.errors import ConfigError
    from gasp.io import write_table
    from gasp.pipeline import marked_words_of_table

    with in_python_words(fn):
        if chosen is not None and not 0.0 < chosen < 1.0:
            raise ConfigError(f"--level must be a false discovery rate in (0, 1), got {level}")
        found = marked_words_of_table(
            path, target, groups, text_column=text_column, threshold=threshold, fdr=chosen,
            min_count=min_count, calibrated=method == "calibrated",
        )  # fmt: skip
        written = write_table(found.words, written_to) if written_to is not None else None
    return MarkedWords(found.words, found.target_size, found.unmarked_sizes, written)


def calibrate(
    file: str | Path,
    unmarked: str | Sequence[str],
    target: str | Sequence[str] = (),
    *,
    each: str | Sequence[str] | None = None,
    text_column: str = "text",
    n_common: int = 100,
    english_source: str = "wordfreq",
    threshold: float = DEFAULT_THRESHOLD,
    alpha_step: float = 0.05,
    out: str | Path | None = None,
) -> CalibrationReport:
    """Choose the hyperparameters of Calibrated Marked Words for the table ``file``, as
    ``gasp calibrate`` does (seed ``000``, A.2): C_English and C_topic by binary search,
    then a sweep of alpha, every target group against the ``unmarked`` groups.

    Targets are ``column=value`` selectors (``target``), or every combination of the
    values of the columns ``each``. Common words are the ``n_common`` most frequent
    English words of ``english_source`` (``wordfreq``, or ``brown`` with NLTK). With
    ``out`` the search and sweep tables and the two constants are written there as CSV.

    Example:
        >>> import gasp, pandas as pd
        >>> rows = [("She loves yoga and the tea.", "W"), ("He loves football and the beer.", "M")]
        >>> pd.DataFrame(rows * 20, columns=["text", "gender"]).to_csv(
        ...     folder / "calibrate.csv", index=False)
        >>> report = gasp.calibrate(folder / "calibrate.csv", "gender=M", "gender=W")
        >>> report.c_english > 0 and report.c_topic > 0
        True
    """
    fn = "gasp.calibrate"
    path = _table_path(fn, file)
    groups = require_texts(fn, "unmarked", unmarked)
    targets = require_texts(fn, "target", target)
    columns = None if each is None else ",".join(require_texts(fn, "each", each))
    require_text(fn, "text_column", text_column)
    require_int(fn, "n_common", n_common)
    require_text(fn, "english_source", english_source)
    require_number(fn, "threshold", threshold)
    require_number(fn, "alpha_step", alpha_step)
    folder = require_path(fn, "out", out)
    from gasp.pipeline import calibrate_table, write_calibration

    with in_python_words(fn):
        report = calibrate_table(
            path, groups, targets, each=columns, text_column=text_column, n_common=n_common,
            english_source=english_source, threshold=threshold, alpha_step=alpha_step,
        )  # fmt: skip
    if folder is not None:
        write_calibration(report, folder)
    return report


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


__all__ = [
    "MARKED_WORDS_METHODS",
    "PROBE_METHODS",
    "GenderAssociation",
    "MarkedWords",
    "ProbeOutcome",
    "associate_genders",
    "calibrate",
    "marked_words",
    "probe_words",
]
