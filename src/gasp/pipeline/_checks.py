"""Checks a run makes before it prints or writes anything.

A run (``gasp.run``, ``gasp run``, ``gasp analyze``, ...) checks every input it can
(options, model, key, server, the run a store holds, the folders it will write)
first, so a mistake is one line and leaves the run folder as it was; only then does
it print its banner and start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from gasp.errors import ConfigError, DataError

if TYPE_CHECKING:
    from gasp.pipeline._steps import Step, StudyRun


def _nearest_existing(path: Path) -> Path:
    current = path.absolute()
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def check_out_folder(out: Path) -> None:
    """Raise :class:`ConfigError` when ``--out`` names something that is not a folder."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} exists and is not a folder")


def check_writable_folder(folder: Path, what: str, hint: str = "") -> None:
    """Raise :class:`ConfigError` when ``folder`` (``what``: "results folder", ...) can
    neither be written nor created; ``hint`` says what to do instead."""
    existing = _nearest_existing(folder)
    reason = ""
    if not existing.is_dir():
        reason = f"{existing} is not a folder"
    elif not os.access(existing, os.W_OK | os.X_OK):
        reason = (
            f"{existing} is read-only"
            if existing == folder.absolute()
            else (f"{existing} does not allow creating it")
        )
    if reason:
        raise ConfigError(
            f"cannot write the {what} {folder}: {reason}" + (f"; {hint}" if hint else "")
        )


def make_folder(folder: Path, what: str) -> None:
    """Create ``folder`` (and its parents); one :class:`ConfigError` line when the system
    refuses (``--out /proc/nonexistent/run``)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the {what} {folder}: {exc.strerror or type(exc).__name__}"
        ) from None


def check_run(run: StudyRun, steps: Collection[Step], out: Path) -> None:
    """Every check of ``gasp run`` before its banner: the generation (options, model,
    key, server, the run the store holds), the analysis options the study reads and the
    folders each step writes; then the run folder is created."""
    from gasp.pipeline._steps import Step
    from gasp.runner import check_generation
    from gasp.store import is_writable

    store = run.paths.store
    report_hint = f"render the report elsewhere with `gasp report {out} --out DIR`"
    if Step.generate in steps and store is not None:
        if store.is_file() and not is_writable(store):
            raise ConfigError(
                f"the run store {store} is read-only, so this run cannot go on; "
                f"skip generation (--skip generate) or {report_hint}"
            )
        check_generation(
            run.generation.build_study(),
            run.model,
            store,
            run.generation.run_options(progress=False),
        )
        check_writable_folder(out, "run folder")
    if Step.analyze in steps:
        run.study_type.check_analysis_options(run.analysis)
    if Step.analyze in steps or Step.probe in steps:
        check_writable_folder(
            run.paths.results,
            "results folder",
            f"analyse the run elsewhere with `gasp analyze {out} --out DIR`",
        )
    if Step.report in steps:
        check_writable_folder(run.paths.report, "report folder", report_hint)
    if Step.generate in steps:
        make_folder(out, "run folder")


def _rebuild_hint(results: Path) -> str:
    return (
        f"rebuild the results with `gasp analyze RUN --out {results}` "
        "(or `gasp run ... --skip generate` in the run folder)"
    )


def report_from_results(render: Callable[[], Path], results: Path) -> Path:
    """Render a report from the saved ``results`` with ``render``; a results table that
    is missing, not UTF-8 text or not a table is one :class:`DataError` naming the file
    and how to rebuild it."""
    import pandas as pd

    for file in sorted(results.glob("*")):
        if file.suffix.lower() in (".csv", ".json") and file.is_file():
            try:
                file.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                raise DataError(
                    f"results table {file} is not UTF-8 text (garbled?); {_rebuild_hint(results)}"
                ) from None
    try:
        return render()
    except FileNotFoundError as exc:
        missing = exc.filename or "a results table"
        raise DataError(f"results table {missing} is missing; {_rebuild_hint(results)}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        detail = " ".join(str(exc).split())[:120]
        raise DataError(
            f"a results table in {results} cannot be read ({detail}); {_rebuild_hint(results)}"
        ) from None


__all__ = [
    "check_out_folder",
    "check_run",
    "check_writable_folder",
    "make_folder",
    "report_from_results",
]
