"""The analysis options of a run, checked once for every study.

Each option defaults to None ("the study's default"), so ``gasp run``, ``gasp
analyze`` and :func:`gasp.analyze` hand the study type the same values, and
re-analysing a run gives the result the run gave.
"""

from __future__ import annotations

import inspect
from typing import Any

from gasp.errors import ConfigError
from gasp.pipeline._settings import check_settings, names_of


def analysis_options(
    *,
    threshold: float | None = None,
    fdr: float | None = None,
    fdr_scope: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    examples_per_word: int | None = None,
) -> dict[str, Any]:
    """The generic analysis options by name, as the study types read them (None: not
    given). A value no study accepts (a negative count, an FDR level outside (0, 1), an
    unknown FDR family) is refused here, before a run starts, by the settings'
    declarations (:mod:`gasp.pipeline._settings`); the FDR level's setting is
    ``level``, kept here under the name the studies read (``fdr``). A study's own
    analysis options (``--min-share``) are its study options, checked by the study."""
    given = {
        "level": fdr, "fdr_scope": fdr_scope, "bootstrap": bootstrap,
        "examples_per_word": examples_per_word, "threshold": threshold,
    }  # fmt: skip
    check_settings(given, names_of("analysis"))
    if seed is not None and seed < 0:  # NumPy's generators take non-negative seeds
        raise ConfigError(f"--seed must be a non-negative whole number, got {seed}")
    return {
        "threshold": threshold,
        "fdr": fdr,
        "fdr_scope": fdr_scope,
        "bootstrap": bootstrap,
        "seed": seed,
        "examples_per_word": examples_per_word,
    }


#: The names :func:`analysis_options` takes (``seed`` aside).
ANALYSIS_OPTIONS = tuple(n for n in inspect.signature(analysis_options).parameters if n != "seed")

__all__ = ["ANALYSIS_OPTIONS", "analysis_options"]
