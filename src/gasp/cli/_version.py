"""``gasp version``: print the package version."""

from __future__ import annotations

import typer

from gasp import __version__
from gasp.cli._app import app


@app.command()
def version() -> None:
    """Print the version of gasp."""
    typer.echo(__version__)
