"""The Typer application every command module registers its commands on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="gasp",
    help="Audit large language models for representational harms in the text they generate.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
