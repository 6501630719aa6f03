"""Reading a run another process is still generating: analysis and report say so.

Reading takes no lock (:func:`gasp.store.lock_holder` only asks whether a process
holds the run's generation lock); the analysis records one sentence in the results it
saves, which the report shows, and both commands print it on stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


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
    from gasp.results import INDEX_FILE, mark_incomplete

    if (results / INDEX_FILE).is_file():
        mark_incomplete(results, note)
    print(f"gasp: note: {note}", file=sys.stderr)


def note_report(store: Path | None) -> None:
    """Before re-rendering a report: say when its run is being generated now."""
    from gasp.store import lock_holder

    holder = lock_holder(store) if store is not None else None
    if holder is not None and holder.pid != os.getpid():
        print(
            f"gasp: note: {holder.describe()} is still generating this run; the report shows "
            "the results of its last analysis",
            file=sys.stderr,
        )


__all__ = ["generation_note", "note_analysis", "note_report"]
