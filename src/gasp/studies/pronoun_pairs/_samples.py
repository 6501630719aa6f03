"""The samples an analysis of this package reads, checked before anything is computed."""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from gasp.errors import DataError


def run_samples(
    samples: pd.DataFrame, needed: Collection[str], *, run: str, unit: str
) -> pd.DataFrame:
    """A copy of ``samples`` (the samples of a ``run`` run, with its ``unit`` as rows);
    a :class:`DataError` naming the first ``needed`` column it lacks, or saying it has
    no rows."""
    missing = sorted(set(needed) - set(samples.columns))
    if missing:
        raise DataError(f"these samples are not a {run} run (no column {missing[0]!r})")
    if samples.empty:
        raise DataError(f"the run has no {unit} to analyse")
    return samples.copy()


__all__ = ["run_samples"]
