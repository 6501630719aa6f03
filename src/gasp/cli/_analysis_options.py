"""The analysis options shared by ``gasp analyze`` and ``gasp run`` (declarations only;
:func:`gasp.pipeline.analysis_options` checks their values)."""

from __future__ import annotations

from typing import Annotated

import typer

from gasp.cli._generation_options import MOTS_PANEL, SOME_PANEL

MinSamplesOption = Annotated[
    int | None,
    typer.Option(
        help="Generations each associated gender needs (default: the run's n).",
        rich_help_panel=MOTS_PANEL,
    ),
]
MinShareOption = Annotated[
    float | None,
    typer.Option(
        help="Share of unspecified generations each gender needs (default 0.10).",
        rich_help_panel=MOTS_PANEL,
    ),
]
PerTemplateOption = Annotated[
    bool,
    typer.Option(
        "--per-template", help="Marked words and SRB per template.", rich_help_panel=MOTS_PANEL
    ),
]
ThresholdOption = Annotated[
    float | None,
    typer.Option(
        help="z-score a marked word must exceed (default 1.96).", rich_help_panel=SOME_PANEL
    ),
]
ExamplesPerWordOption = Annotated[
    int | None,
    typer.Option(
        help="Example generations saved per significant word (default 50).",
    ),
]
LevelOption = Annotated[
    float | None,
    typer.Option(
        "--level",
        "--fdr",
        help="Benjamini-Hochberg false discovery rate of the word tests instead of z > 1.96 "
        "(--fdr is its old name).",
        rich_help_panel=SOME_PANEL,
    ),
]
FdrScopeOption = Annotated[
    str | None,
    typer.Option(
        "--fdr-scope",
        help="Family of the FDR: comparison (default) or study (every word x subject x "
        "comparison test at once; --fdr defaults to 0.05).",
        rich_help_panel=SOME_PANEL,
    ),
]
PlainOption = Annotated[
    bool,
    typer.Option(
        "--plain", help="Plain Marked Words instead of calibrated.", rich_help_panel=MOTS_PANEL
    ),
]
EmbeddingsOption = Annotated[
    str | None,
    typer.Option(help="Word embeddings for SRB (default glove).", rich_help_panel=MOTS_PANEL),
]
BootstrapOption = Annotated[
    int | None,
    typer.Option(
        help="Draws behind each interval (0: none; docs/intervals.md).", rich_help_panel=SOME_PANEL
    ),
]
PermutationsOption = Annotated[
    int | None,
    typer.Option(
        help="Label shuffles of the permutation test (0: none).", rich_help_panel=MOTS_PANEL
    ),
]


__all__ = [
    "BootstrapOption",
    "EmbeddingsOption",
    "ExamplesPerWordOption",
    "FdrScopeOption",
    "LevelOption",
    "MinSamplesOption",
    "MinShareOption",
    "PerTemplateOption",
    "PermutationsOption",
    "PlainOption",
    "ThresholdOption",
]
