"""The analysis options of a run, checked once for every study.

Each option defaults to None ("the study's default"), so ``gasp run``, ``gasp
analyze`` and :func:`gasp.analyze` hand the study type the same values, and
re-analysing a run gives the result the run gave.
"""

from __future__ import annotations

import inspect
from typing import Any

from gasp.errors import ConfigError

#: The most resamples (``--bootstrap``, ``--permutations``) an analysis draws: each holds
#: the statistics of every unit, so 10^9 of them asked for tens of gigabytes.
MAX_RESAMPLES = 100_000
#: The most example texts kept per word (each is copied into the results).
MAX_EXAMPLES_PER_WORD = 1_000


def _check_ranges(
    *,
    min_samples: int | None,
    min_share: float | None,
    fdr: float | None,
    fdr_scope: str | None,
    bootstrap: int | None,
    permutations: int | None,
    examples_per_word: int | None,
    seed: int | None = None,
) -> None:
    """Raise :class:`ConfigError` for an analysis option outside what any study accepts."""
    if seed is not None and seed < 0:  # NumPy's generators take non-negative seeds
        raise ConfigError(f"--seed must be a non-negative whole number, got {seed}")
    if min_samples is not None and min_samples < 1:
        raise ConfigError(f"--min-samples must be at least 1, got {min_samples}")
    if min_share is not None and not 0.0 <= min_share < 0.5:
        raise ConfigError(f"--min-share must lie in [0, 0.5), got {min_share}")
    if fdr is not None and not 0.0 < fdr < 1.0:
        raise ConfigError(f"--fdr must lie in (0, 1), got {fdr}")
    if fdr_scope is not None:
        from gasp.stats import FDR_SCOPES

        if fdr_scope not in FDR_SCOPES:
            raise ConfigError(
                f"--fdr-scope must be one of {', '.join(FDR_SCOPES)}, got {fdr_scope!r}"
            )
    for flag, count in (("--bootstrap", bootstrap), ("--permutations", permutations)):
        if count is not None and count < 0:
            raise ConfigError(f"{flag} must not be negative, got {count}")
        if count is not None and count > MAX_RESAMPLES:
            raise ConfigError(
                f"{flag} must be at most {MAX_RESAMPLES:,} (the memory each resample "
                f"holds bounds it), got {count}"
            )
    if examples_per_word is not None and not 1 <= examples_per_word <= MAX_EXAMPLES_PER_WORD:
        raise ConfigError(
            f"--examples-per-word must lie between 1 and {MAX_EXAMPLES_PER_WORD:,}, "
            f"got {examples_per_word}"
        )


def analysis_options(
    *,
    min_samples: int | None = None,
    min_share: float | None = None,
    per_template: bool = False,
    threshold: float | None = None,
    fdr: float | None = None,
    plain: bool = False,
    fdr_scope: str | None = None,
    embeddings: str | None = None,
    bootstrap: int | None = None,
    permutations: int | None = None,
    seed: int | None = None,
    examples_per_word: int | None = None,
) -> dict[str, Any]:
    """The analysis options by name, as the study types read them (None or False: not
    given on the command line). A value no study accepts (a negative count, an FDR
    level outside (0, 1), an unknown FDR family) is refused here, before a run starts."""
    if embeddings is not None:
        from gasp.embeddings import check_embeddings

        check_embeddings(embeddings)
    _check_ranges(
        min_samples=min_samples,
        min_share=min_share,
        fdr=fdr,
        fdr_scope=fdr_scope,
        bootstrap=bootstrap,
        permutations=permutations,
        examples_per_word=examples_per_word,
        seed=seed,
    )
    return {
        "min_samples": min_samples,
        "min_share": min_share,
        "per_template": per_template,
        "threshold": threshold,
        "fdr": fdr,
        "fdr_scope": fdr_scope,
        "plain": plain,
        "embeddings": embeddings,
        "bootstrap": bootstrap,
        "permutations": permutations,
        "seed": seed,
        "examples_per_word": examples_per_word,
    }


#: The names :func:`analysis_options` takes (``seed`` aside).
ANALYSIS_OPTIONS = tuple(n for n in inspect.signature(analysis_options).parameters if n != "seed")

__all__ = ["ANALYSIS_OPTIONS", "analysis_options"]
