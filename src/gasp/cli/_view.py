"""``gasp view``: a local, read-only browser over every run and audit under some folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gasp.cli._app import app


@app.command("view")
def view_command(
    folders: Annotated[
        list[Path] | None,
        typer.Argument(help="Folders to search for runs and audits (default: this one)."),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to serve on (another than 127.0.0.1 is warned about).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to serve on (0: a free one).")] = 0,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the address; open no browser.")
    ] = False,
    export: Annotated[
        Path | None,
        typer.Option(help="Write the pages as a static site to this folder instead of serving."),
    ] = None,
) -> None:
    """Browse every run and audit under the folders in a local web page (read-only)."""
    import gasp

    where = gasp.view(
        list(folders or [Path(".")]),
        host=host,
        port=port,
        open_browser=not no_browser,
        export=export,
    )
    if export is not None:
        typer.echo(where)


__all__ = ["view_command"]
