"""The Probe step on audit results: cluster the marked words of one or more runs.

The audit analysis writes the significant words of every subject to its
:data:`gasp.results.MARKED_WORDS` table (columns subject, source, gender, word, ...).
Figure 5 of seed ``000`` clusters the words significant for the generations
*associated* with women and men (``source == "associated"``) across models, so
:func:`add_probe_tables` reads those rows of every run given, labels each run with its
``meta["model_id"]`` and stores :data:`gasp.results.PROBE_CLUSTERS` and
:data:`gasp.results.PROBE_SILHOUETTE` in the first results with the clusters' layout
(``meta["layouts"]``); ``meta["probe"]`` holds the groups, k and the word-filter
counts, and ``meta["settings"]["probe"]`` the probe's settings (the cluster rules, k
rule and grid, embeddings, word filter, seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.probe import PROBE_EMBEDDINGS, ProbeConfig, ProbeResult, WordVectorSource, probe_words
from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import (
    MARKED_WORDS,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
    probe_clusters_layout,
)


def words_from_results(
    results: AuditResults | Sequence[AuditResults], *, source: str | None = "associated"
) -> pd.DataFrame:
    """The significant-words table (model, subject, group, word) of audit results.

    ``source`` keeps the rows of that source (``associated`` or ``named``; None keeps
    all). Each run is labelled by ``meta["model_id"]`` (``run<i>`` when absent); runs
    with the same model id are told apart by a ``#<i>`` suffix.
    """
    runs = [results] if isinstance(results, AuditResults) else list(results)
    frames: list[pd.DataFrame] = []
    seen: set[str] = set()
    for i, run in enumerate(runs):
        table = run.get(MARKED_WORDS)
        if table is None or table.empty:
            continue
        missing = [c for c in ("subject", "gender", "word") if c not in table.columns]
        if missing:
            raise DataError(f"the marked-words table lacks column(s) {', '.join(missing)}")
        if source is not None and "source" in table.columns:
            table = table[table["source"].astype(str) == source]
        model = str(run.meta.get("model_id") or f"run{i}")
        if model in seen:
            model = f"{model}#{i}"
        seen.add(model)
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "subject": table["subject"].astype(str).to_numpy(),
                    "group": table["gender"].astype(str).to_numpy(),
                    "word": table["word"].astype(str).to_numpy(),
                }
            )
        )
    if not frames:
        raise DataError("no marked words in the audit results to probe")
    return pd.concat(frames, ignore_index=True)


def add_probe_tables(
    results: AuditResults | Sequence[AuditResults],
    *,
    group_a: str = "F",
    group_b: str = "M",
    source: str | None = "associated",
    embeddings: str | WordVectorSource = PROBE_EMBEDDINGS,
    k: int | None = None,
    seed: int | np.random.Generator = 0,
    config: ProbeConfig | None = None,
) -> ProbeResult:
    """Probe the marked words of ``results`` and store the tables in the (first) results.

    Several runs (one per model) are probed together, as in Figure 5 of seed ``000``;
    the tables go into the first :class:`AuditResults`. Returns the full
    :class:`ProbeResult`.
    """
    runs = [results] if isinstance(results, AuditResults) else list(results)
    if not runs:
        raise DataError("no audit results to probe")
    table = words_from_results(runs, source=source)
    result = probe_words(
        table,
        group_a=group_a,
        group_b=group_b,
        embeddings=embeddings,
        k=k,
        seed=seed,
        config=config,
    )
    target = runs[0]
    target.tables[PROBE_CLUSTERS] = result.clusters
    target.tables[PROBE_SILHOUETTE] = result.silhouette
    meta: dict[str, Any] = result.meta()
    meta["source"] = source
    meta["embeddings"] = embeddings if isinstance(embeddings, str) else type(embeddings).__name__
    target.meta["probe"] = meta
    settings = dict(target.meta.get("settings") or {})
    settings["probe"] = {"groups": [result.group_a, result.group_b], "source": source}
    settings["probe"].update(result.settings)
    target.meta["settings"] = settings
    target.set_layout(PROBE_CLUSTERS, probe_clusters_layout(result.group_a, result.group_b))
    return result
