"""The Typer application every command module registers its commands on."""

from __future__ import annotations

import inspect

import typer

app = typer.Typer(
    name="gasp",
    help="Audit large language models for representational harms in the text they generate.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def one_line_help(typer_app: typer.Typer) -> None:
    """Give each command of ``typer_app`` (and of its groups) its docstring as one line of
    help, so that ``gasp --help`` lists every description unbroken (a docstring's own
    line breaks would split it)."""
    for info in typer_app.registered_commands:
        text = info.help or inspect.getdoc(info.callback) or ""
        info.help = " ".join(text.split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            one_line_help(group.typer_instance)
