"""Building the store's DataFrames: item attributes as columns, stable dtypes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.store._records import stored_json
from gasp.store._schema import SAMPLE_COLUMNS, SCORE_COLUMNS

#: Columns of :meth:`RunStore.samples` before the item's attribute columns.
SAMPLES_LEADING_COLUMNS: tuple[str, ...] = ("run_id", "study", "item_id")

#: Columns of :meth:`RunStore.samples` after the item's attribute columns, in order: the
#: samples table's own columns, the item's prompt after the sample's index, the seed and
#: the faults met last (the key's item and the internal queue time left out).
SAMPLES_TRAILING_COLUMNS: tuple[str, ...] = (
    "sample_index",
    "prompt",
    *(
        c
        for c in SAMPLE_COLUMNS
        if c not in ("item_id", "sample_index", "seed", "queue_s", "fault_kinds")
    ),
    "seed",
    "fault_kinds",
)

#: Columns of the scores table that :meth:`RunStore.scores` leaves out or moves: the
#: key's item (its attributes are columns) and the internal queue time; the faults
#: met come last, as in :data:`SAMPLES_TRAILING_COLUMNS`.
_SCORES_LEFT_OUT = ("item_id", "queue_s", "fault_kinds")
#: Columns of :meth:`RunStore.scores` after the item's attribute columns, in order.
SCORES_TRAILING_COLUMNS: tuple[str, ...] = (
    *(c for c in SCORE_COLUMNS if c not in _SCORES_LEFT_OUT),
    "fault_kinds",
)


class ItemTable:
    """The attributes of every item, parsed once, in study order."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        """``rows`` are (item_id, attributes JSON) pairs sorted by ordinal."""
        self.attributes: dict[str, dict[str, Any]] = {
            item_id: stored_json(body, f"the stored item {item_id!r}'s attributes", dict)
            for item_id, body in rows
        }
        keys: dict[str, None] = {}
        for attrs in self.attributes.values():
            keys.update(dict.fromkeys(attrs))
        #: Union of the attribute names, in first-seen order.
        self.keys: list[str] = list(keys)

    def columns(self) -> dict[str, pd.Series]:
        """One Series per attribute, indexed by position in :attr:`attributes`.

        pandas infers the dtype, except that text with missing values is kept as
        ``object`` with None for the missing ones (as ``named_gender`` always was).
        """
        values = list(self.attributes.values())
        return {key: _column([a.get(key) for a in values]) for key in self.keys}

    def attach(self, frame: pd.DataFrame, after: str = "item_id") -> pd.DataFrame:
        """``frame`` with one column per attribute of its ``item_id``, right after ``after``."""
        position = {item_id: i for i, item_id in enumerate(self.attributes)}
        codes = frame["item_id"].map(position).to_numpy(dtype=np.int64)
        at = list(frame.columns).index(after) + 1
        for offset, (key, series) in enumerate(self.columns().items()):
            column = series.iloc[codes].reset_index(drop=True)
            frame.insert(at + offset, key, column.set_axis(frame.index))
        return frame


def _column(values: list[Any]) -> pd.Series:
    present = [v for v in values if v is not None]
    if len(present) < len(values) and all(isinstance(v, str) for v in present):
        return pd.Series(values, dtype=object)
    return pd.Series(values)


def study_name(manifest: Mapping[str, Any]) -> str | None:
    """``manifest["study"]["name"]`` when the manifest has one, else the study's kind
    (``manifest["study_kind"]``: studies whose spec has no name), else None."""
    study = manifest.get("study")
    name = study.get("name") if isinstance(study, Mapping) else None
    if name is None:
        name = manifest.get("study_kind")
    return None if name is None else str(name)


def finish_frame(
    frame: pd.DataFrame,
    *,
    run_id: str,
    study: str | None,
    items: ItemTable,
    trailing: Sequence[str],
    nullable_ints: Sequence[str],
) -> pd.DataFrame:
    """Add ``run_id``, ``study`` and the attribute columns; fix the dtypes and order."""
    frame = frame.reset_index(drop=True)
    frame.insert(0, "study", study)
    frame.insert(0, "run_id", run_id)
    frame = items.attach(frame)
    for col in nullable_ints:
        frame[col] = frame[col].astype("Int64")
    for col in ("sample_index", "attempts"):
        if col in frame:
            frame[col] = frame[col].astype("int64")
    if "latency_s" in frame:
        frame["latency_s"] = frame["latency_s"].astype("float64")
    return frame[[*SAMPLES_LEADING_COLUMNS, *items.keys, *trailing]]


def parse_json_column(frame: pd.DataFrame, column: str) -> None:
    """Replace a column of JSON texts by the parsed values (NULL becomes None)."""
    frame[column] = pd.Series(
        [json.loads(v) if isinstance(v, str) else None for v in frame[column]],
        index=frame.index,
        dtype=object,
    )


def order_candidates(frame: pd.DataFrame) -> pd.DataFrame:
    """Within each (item, sample index), rows in the order the item lists its candidates.

    ``frame`` is sorted by item and sample index and has the item's candidates as JSON
    in ``_candidates``, which is dropped.
    """
    if frame.empty:
        return frame.drop(columns=["_candidates"])
    rank = [
        json.loads(c).index(x)
        for c, x in zip(frame["_candidates"], frame["candidate"], strict=True)
    ]
    frame = frame.assign(_rank=pd.Series(rank, index=frame.index, dtype="int64"))
    group = (frame[["item_id", "sample_index"]] != frame[["item_id", "sample_index"]].shift()).any(
        axis=1
    )
    frame = frame.assign(_group=group.cumsum())
    frame = frame.sort_values(["_group", "_rank"], kind="stable")
    return frame.drop(columns=["_group", "_rank", "_candidates"]).reset_index(drop=True)


def concat_chunks(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Chunks of one query as one frame, with the dtypes one read would have inferred
    (a chunk whose column is all NULL reads as ``object``)."""
    if len(frames) == 1:
        return frames[0]
    mixed = [c for c in frames[0].columns if len({str(f[c].dtype) for f in frames}) > 1]
    frame = pd.concat(frames, ignore_index=True)
    for column in mixed:
        frame[column] = frame[column].infer_objects()
    return frame


def chosen_columns(all_columns: tuple[str, ...], wanted: Iterable[str] | None) -> tuple[str, ...]:
    """The trailing columns to read: all of them, or those ``wanted`` (in table order)."""
    if wanted is None:
        return all_columns
    chosen = set(wanted)
    unknown = sorted(chosen - set(all_columns))
    if unknown:
        raise DataError(f"unknown sample column(s) {unknown}: choose from {list(all_columns)}")
    return tuple(c for c in all_columns if c in chosen or c == "sample_index")
