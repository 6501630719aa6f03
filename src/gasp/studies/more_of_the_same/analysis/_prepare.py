"""One pass over a run's samples: validate, count words once, associate genders once.

Every analysis slices the :class:`PreparedRun` built here; no step counts words or
associates genders again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gasp.associate import associate_counts
from gasp.errors import DataError
from gasp.studies.more_of_the_same.analysis._config import UNSPECIFIED
from gasp.text import DocTermCounts, count_words

REQUIRED_COLUMNS: tuple[str, ...] = ("subject", "template", "condition", "text")

CUE_COLUMNS: tuple[str, ...] = ("female", "male", "neutral", "nonbinary_cue")
"""The counts behind each association (Algorithm 1), kept as ``cue_<name>`` columns."""

_CONDITION_TO_GENDER: dict[str, str] = {
    "woman": "F",
    "women": "F",
    "female": "F",
    "f": "F",
    "man": "M",
    "men": "M",
    "male": "M",
    "m": "M",
    "nonbinary": "N",
    "non-binary": "N",
    "nonbinary person": "N",
    "non-binary person": "N",
    "n": "N",
}


@dataclass(frozen=True)
class BLSFigure:
    """Share of women in an occupation according to the U.S. Bureau of Labor Statistics."""

    pct_female: float
    year: int | None


@dataclass(frozen=True)
class PreparedRun:
    """The valid generations of a run with their counts and associated genders.

    ``samples`` holds one row per valid generation (no error, non-empty text) with the
    added columns ``associated`` (``F``, ``M``, ``N`` or ``""`` for unassigned), the cue
    counts behind it (``cue_female``, ``cue_male``, ``cue_neutral``, ``cue_nonbinary_cue``) and
    ``named`` (``F``, ``M``, ``N`` or ``""`` for the unspecified condition);
    ``counts`` has one row per row of ``samples``. ``n_invalid`` counts the generations
    left out per (subject, template, condition, named).
    """

    samples: pd.DataFrame
    counts: DocTermCounts
    n_invalid: pd.DataFrame
    bls: Mapping[str, BLSFigure]
    model_id: str

    @property
    def associated(self) -> np.ndarray:
        """Associated gender per row (``""`` where unassigned)."""
        return np.asarray(self.samples["associated"].to_numpy(), dtype=object)

    @property
    def named(self) -> np.ndarray:
        """Named gender per row (``""`` for the unspecified condition)."""
        return np.asarray(self.samples["named"].to_numpy(), dtype=object)

    @property
    def unspecified(self) -> np.ndarray:
        """Mask of the generations whose prompt named no gender."""
        return np.asarray(self.samples["named"].to_numpy() == "", dtype=bool)


def _named_gender(samples: pd.DataFrame) -> pd.Series:
    """Named gender per row from ``named_gender`` when present, else from ``condition``.

    With a ``named_gender`` column (as in a run store) a missing value means the prompt
    named no gender, whatever the condition is called.
    """
    if "named_gender" in samples.columns:
        named = samples["named_gender"].astype(object).where(samples["named_gender"].notna(), "")
        named = named.astype(str).str.strip().str.upper()
        bad = ~named.isin(["", "F", "M", "N"])
        if bool(bad.any()):
            values = sorted(named[bad].unique())[:5]
            raise DataError(f"unknown named_gender value(s) {values}: expected F, M, N or empty")
        return named.astype(object)
    condition = samples["condition"].astype(str).str.strip().str.lower()
    named = condition.map(_CONDITION_TO_GENDER).fillna("")
    unknown = (named == "") & (condition != UNSPECIFIED)
    if bool(unknown.any()):
        shown = sorted(condition[unknown].unique())[:5]
        raise DataError(
            f"unknown condition(s) {shown}: expected unspecified, woman, man, nonbinary"
        )
    return named.astype(object)


def bls_from_study(study: Any) -> dict[str, BLSFigure]:
    """BLS share of women per subject name from a study's subjects (empty when unknown).

    Reads ``study.subjects`` (objects with ``name`` and ``bls_pct_female`` and
    ``bls_year`` in their ``attributes`` mapping or as attributes).
    """
    if study is None:
        return {}
    subjects = getattr(study, "subjects", None)
    if subjects is None:
        return {}
    items = subjects.values() if isinstance(subjects, Mapping) else subjects
    out: dict[str, BLSFigure] = {}
    for subject in items:
        name = getattr(subject, "name", None)
        attributes = getattr(subject, "attributes", None) or {}
        pct = attributes.get("bls_pct_female", getattr(subject, "bls_pct_female", None))
        if name is None or pct is None:
            continue
        try:
            value = float(pct)
        except (TypeError, ValueError):
            continue
        if np.isnan(value):
            continue
        year = attributes.get("bls_year", getattr(subject, "bls_year", None))
        try:
            year_int = int(year) if year is not None else None
        except (TypeError, ValueError):
            year_int = None
        out[str(name)] = BLSFigure(value, year_int)
    return out


def prepare_run(
    samples: pd.DataFrame,
    bls: Mapping[str, BLSFigure] | None = None,
    model_id: str | None = None,
) -> PreparedRun:
    """Validate ``samples``, count every valid text once and associate each with a gender."""
    missing = [c for c in REQUIRED_COLUMNS if c not in samples.columns]
    if missing:
        raise DataError(f"the samples table lacks the column(s) {missing}")
    if samples.empty:
        raise DataError("the run has no samples to analyse")
    frame = samples.reset_index(drop=True).copy()
    frame["subject"] = frame["subject"].astype(str)
    frame["template"] = frame["template"].astype(str)
    frame["named"] = _named_gender(frame)
    text_ok = frame["text"].map(lambda t: isinstance(t, str) and t.strip() != "")
    valid = np.array(text_ok.to_numpy(dtype=bool), copy=True)
    if "error" in frame.columns:
        err = frame["error"]
        no_error = err.isna() | (err.astype(str).str.strip() == "")
        valid = valid & np.asarray(no_error.to_numpy(dtype=bool))
    keys = ["subject", "template", "condition", "named"]
    n_invalid = (
        frame.loc[~valid, keys].value_counts().rename("n_invalid").reset_index()
        if (~valid).any()
        else pd.DataFrame(columns=[*keys, "n_invalid"])
    )
    frame = frame.loc[valid].reset_index(drop=True)
    if frame.empty:
        raise DataError("the run has no valid generation (every sample is empty or an error)")
    texts = frame["text"]  # converted to Python strings a chunk at a time
    counts = count_words(texts)
    association = associate_counts(texts, counts)
    frame["associated"] = association.table["gender"].fillna("").astype(str).to_numpy()
    for column in CUE_COLUMNS:
        frame[f"cue_{column}"] = association.table[column].to_numpy()
    if model_id is None:
        ids: list[object] = (
            list(frame["model_id"].dropna().unique()) if "model_id" in frame.columns else []
        )
        model_id = str(ids[0]) if len(ids) == 1 else ("+".join(map(str, ids)) or "unknown")
    return PreparedRun(
        samples=frame,
        counts=counts,
        n_invalid=n_invalid,
        bls=dict(bls or {}),
        model_id=model_id,
    )
