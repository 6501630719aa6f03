"""Reading a run another process is still generating: analysis and report say so.

Reading takes no lock (:func:`gasp.store.lock_holder` only asks whether a process
holds the run's generation lock); the analysis records one sentence in the results it
saves, which the report shows, and both commands print it on stderr.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer


def generation_note(store: Path | None) -> str | None:
    """A sentence saying another process is generating into ``store`` now, or None."""
    if store is None:
        return None
    from gasp.store import lock_holder

    holder = lock_holder(store)
    if holder is None or holder.pid == os.getpid():
        return None
    return (
        f"This run is incomplete: {holder.describe()} is still generating it, so these "
        "results cover only the samples stored when they were computed; analyse it again "
        "once the generation finishes."
    )


def note_analysis(note: str | None, results: Path) -> None:
    """After analysing a run that was being generated: record ``note`` with the results
    and print it (nothing when ``note`` is None)."""
    if note is None:
        return
    if (results / "results.json").is_file():
        from gasp.results import mark_incomplete

        mark_incomplete(results, note)
    typer.echo(f"gasp: note: {note}", err=True)


def note_report(store: Path | None) -> None:
    """Before re-rendering a report: say when its run is being generated now."""
    from gasp.store import lock_holder

    holder = lock_holder(store) if store is not None else None
    if holder is not None and holder.pid != os.getpid():
        typer.echo(
            f"gasp: note: {holder.describe()} is still generating this run; the report shows "
            "the results of its last analysis",
            err=True,
        )


__all__ = ["generation_note", "note_analysis", "note_report"]
