"""The arguments every command that runs a model shares: the study, the model, and the
study's and backend's own options (the run's declared settings are generated from their
declarations, :mod:`gasp.cli._declared`)."""

from __future__ import annotations

import inspect
from typing import Annotated

import typer

import gasp

#: The study and model of ``gasp run`` and ``gasp generate`` when none is named: the
#: defaults of :func:`gasp.run`, read when the command line is built.
DEFAULT_STUDY: str = inspect.signature(gasp.run).parameters["study"].default
DEFAULT_MODEL: str = inspect.signature(gasp.run).parameters["model"].default

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
StudyOptionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--study-option",
        help="The study's own option KEY=VALUE (repeatable; `gasp studies` lists them).",
    ),
]

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_STUDY",
    "ModelOption",
    "ModelOptionOption",
    "StudyArgument",
    "StudyOptionOption",
]
