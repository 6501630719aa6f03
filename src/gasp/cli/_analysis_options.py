"""The analysis options shared by ``gasp analyze`` and ``gasp run``.

Each option defaults to None ("the study's default"), so both commands hand the
study type the same values and re-analysing a run gives the result the run gave.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

MinSamplesOption = Annotated[
    int | None,
    typer.Option(help="Generations each associated gender needs (default: the run's n)."),
]
MinShareOption = Annotated[
    float | None,
    typer.Option(help="Share of unspecified generations each gender needs (default 0.10)."),
]
PerTemplateOption = Annotated[
    bool, typer.Option("--per-template", help="Marked words and SRB per template.")
]
ThresholdOption = Annotated[
    float | None, typer.Option(help="z-score a marked word must exceed (default 1.96).")
]
ExamplesPerWordOption = Annotated[
    int | None, typer.Option(help="Example generations saved per significant word (default 50).")
]
FdrOption = Annotated[
    float | None, typer.Option(help="Benjamini-Hochberg FDR level instead of z > 1.96.")
]
FdrScopeOption = Annotated[
    str | None,
    typer.Option(
        "--fdr-scope",
        help="Family of the FDR: comparison (default) or study (every word x subject x "
        "comparison test at once; --fdr defaults to 0.05).",
    ),
]
PlainOption = Annotated[
    bool, typer.Option("--plain", help="Plain Marked Words instead of calibrated.")
]
EmbeddingsOption = Annotated[
    str | None, typer.Option(help="Word embeddings for SRB (default glove).")
]
BootstrapOption = Annotated[
    int | None, typer.Option(help="Draws behind each interval (0: none; docs/intervals.md).")
]
PermutationsOption = Annotated[
    int | None, typer.Option(help="Label shuffles of the permutation test (0: none).")
]


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
    given on the command line)."""
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


__all__ = [
    "BootstrapOption",
    "EmbeddingsOption",
    "ExamplesPerWordOption",
    "FdrOption",
    "FdrScopeOption",
    "MinSamplesOption",
    "MinShareOption",
    "PerTemplateOption",
    "PermutationsOption",
    "PlainOption",
    "ThresholdOption",
    "analysis_options",
]
