"""The generation options shared by ``gasp generate`` and ``gasp run``.

The ``Annotated`` aliases declare each shared Typer option once (name, help text);
:class:`gasp.pipeline.GenerationOptions` gathers their values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gasp.pipeline import DEFAULT_MAX_CONCURRENCY, DEFAULT_MODEL, DEFAULT_STUDY

#: The help panels of the options that only some studies read (the others: "Options").
MOTS_PANEL = "More of the Same only"
SOME_PANEL = "Some studies"

StudyArgument = Annotated[
    str,
    typer.Argument(help="Study name (see `gasp studies`) or a study file (.toml / .yaml)."),
]
ModelOption = Annotated[
    str,
    typer.Option("--model", "-m", help="provider/model, e.g. embedded, openai/gpt-4o-mini."),
]
ModelOptionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--model-option",
        help="Backend option KEY=VALUE (repeatable), e.g. device=cuda, batch_size=8.",
    ),
]
OccupationsOption = Annotated[
    str | None,
    typer.Option(help="Only these occupations (comma separated).", rich_help_panel=SOME_PANEL),
]
OccupationsFileOption = Annotated[
    Path | None,
    typer.Option(
        help="Your own occupations CSV (column 'occupation').", rich_help_panel=SOME_PANEL
    ),
]
NOption = Annotated[int | None, typer.Option("--n", help="Samples per cell / per gender.")]
TemplatesOption = Annotated[
    str | None, typer.Option(help="Only these templates.", rich_help_panel=SOME_PANEL)
]
ConditionsOption = Annotated[
    str | None,
    typer.Option(
        help="Only these conditions (unspecified,woman,man,nonbinary).",
        rich_help_panel=MOTS_PANEL,
    ),
]
StudyOptionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--study-option",
        help="The study's own option KEY=VALUE (repeatable; `gasp studies` lists them).",
    ),
]
CapFactorOption = Annotated[
    int | None,
    typer.Option(
        help="Stop an unspecified cell at this many times n samples.", rich_help_panel=MOTS_PANEL
    ),
]
TemperatureOption = Annotated[
    float | None, typer.Option(help="Sampling temperature (default: the study's, else 1).")
]
TopPOption = Annotated[float | None, typer.Option(help="Nucleus sampling mass (default 1).")]
MaxTokensOption = Annotated[
    int | None, typer.Option(help="Most tokens per answer (default: the study's, else 256).")
]
MaxConcurrencyOption = Annotated[int, typer.Option(help="Most requests in flight.")]
BaseUrlOption = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        help="Server URL for openai-compatible/ models; repeat it to spread the requests"
        " over several servers of the same model (see docs/fleet.md).",
    ),
]
ApiKeyEnvOption = Annotated[
    str | None, typer.Option(help="Environment variable holding the API key.")
]
MaxRequestsOption = Annotated[
    int | None, typer.Option(help="Stop cleanly after this many requests (resumable).")
]
MaxCostOption = Annotated[
    float | None, typer.Option(help="Stop cleanly before this many USD (openai/ models).")
]

BatchOption = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the requests through the provider's batch API (openai/, half price, "
        "answers within 24 h; a killed run resumes polling).",
    ),
]
WaitOption = Annotated[
    bool,
    typer.Option(
        "--wait",
        help="When another process is generating into the same run, wait for it to "
        "finish (default: refuse with one line naming it).",
    ),
]

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MODEL",
    "DEFAULT_STUDY",
    "MOTS_PANEL",
    "SOME_PANEL",
    "ApiKeyEnvOption",
    "BaseUrlOption",
    "BatchOption",
    "CapFactorOption",
    "ConditionsOption",
    "MaxConcurrencyOption",
    "MaxCostOption",
    "MaxRequestsOption",
    "MaxTokensOption",
    "ModelOption",
    "ModelOptionOption",
    "NOption",
    "OccupationsFileOption",
    "OccupationsOption",
    "StudyArgument",
    "StudyOptionOption",
    "TemperatureOption",
    "TemplatesOption",
    "TopPOption",
    "WaitOption",
]
