"""``gasp inspect-tasks-path``: the path that makes ``inspect list tasks`` list gasp's
Inspect AI tasks."""

from __future__ import annotations

import typer

from gasp.cli._app import app


@app.command("inspect-tasks-path")
def inspect_tasks_path_command() -> None:
    """Print the path of gasp's Inspect AI task module, relative to the current folder:
    `inspect list tasks "$(gasp inspect-tasks-path)"` lists the studies that `inspect
    eval gasp/<study>` runs (a bare `inspect list tasks` lists the current folder's
    files only)."""
    import gasp

    typer.echo(gasp.inspect_tasks_path())
