"""Progress bars while a run generates, and the summary table after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from gasp.runner._summary import RunSummary

#: Most cell bars shown at once (the cells generating right now; others wait hidden).
MAX_VISIBLE_CELLS = 6


class _RateColumn(ProgressColumn):
    """Samples per second of a task."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "", style="progress.data.speed")


class RunProgress:
    """A bar for the whole study and one per cell being generated.

    Disabled (every method a no-op) when ``enabled`` is false or the console is not a
    terminal.
    """

    def __init__(self, study_name: str, *, enabled: bool, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled and self.console.is_terminal
        self._progress: Progress | None = None
        self._study: TaskID | None = None
        self._cells: dict[tuple[str, ...], TaskID] = {}
        self._visible: list[tuple[str, ...]] = []
        self._name = study_name

    def start(self, total: int, done: int) -> None:
        """Show the study bar (``done`` samples already stored of about ``total``)."""
        if not self.enabled:
            return
        self._progress = Progress(
            TextColumn("{task.description}", justify="left"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            refresh_per_second=4,
        )
        self._progress.start()
        self._study = self._progress.add_task(self._name, total=total, completed=done)

    def update_total(self, total: int) -> None:
        """Revise the expected number of samples (adaptive cells grow or stop early)."""
        if self._progress is not None and self._study is not None:
            self._progress.update(self._study, total=total)

    def advance(self, key: tuple[str, ...], cell_total: int, cell_done: int) -> None:
        """One more sample stored for cell ``key``."""
        progress = self._progress
        if progress is None or self._study is None:
            return
        progress.advance(self._study)
        if key not in self._cells:
            visible = len(self._visible) < MAX_VISIBLE_CELLS
            self._cells[key] = progress.add_task(
                f"  {' / '.join(key)}",
                total=cell_total,
                completed=cell_done,
                visible=visible,
            )
            if visible:
                self._visible.append(key)
        else:
            progress.update(self._cells[key], total=cell_total, completed=cell_done)

    def cell_finished(self, key: tuple[str, ...]) -> None:
        """Remove the bar of a finished cell."""
        progress = self._progress
        if progress is None or key not in self._cells:
            return
        progress.remove_task(self._cells.pop(key))
        if key in self._visible:
            self._visible.remove(key)
            for other, task in self._cells.items():
                if other not in self._visible:
                    progress.update(task, visible=True)
                    self._visible.append(other)
                    break

    def stop(self) -> None:
        """Stop drawing."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def summary_table(summary: RunSummary) -> Table:
    """A Rich table of what a run did: generated, resumed, skipped (why), failed (by kind)."""
    table = Table(title=f"gasp generate: {summary.study}", show_header=True, header_style="bold")
    table.add_column("")
    table.add_column("count", justify="right")
    table.add_column("details")
    table.add_row("generated", str(summary.generated), "new samples stored in this session")
    table.add_row("resumed", str(summary.resumed), "samples already in the store")
    table.add_row("cells complete", str(summary.cells_by_status.get("complete", 0)), "")
    table.add_row(
        "cells skipped",
        str(len(summary.skipped)),
        "; ".join(f"{'/'.join(k)}: {r}" for k, r in list(summary.skipped.items())[:5])
        + (" ..." if len(summary.skipped) > 5 else ""),
    )
    table.add_row(
        "cells capped",
        str(len(summary.capped)),
        "; ".join(f"{'/'.join(k)}" for k in list(summary.capped)[:5]),
    )
    table.add_row(
        "failed",
        str(summary.failed),
        ", ".join(f"{k}: {v}" for k, v in sorted(summary.failed_by_kind.items())),
    )
    table.add_row(
        "faults met",
        str(sum(summary.faults_by_kind.values())),
        ", ".join(f"{k}: {v}" for k, v in sorted(summary.faults_by_kind.items()))
        + (" (retried)" if summary.faults_by_kind else ""),
    )
    if summary.cost_usd is not None:
        table.add_row("cost", f"${summary.cost_usd:.4f}", "from the tokens each answer reported")
    status = "complete" if summary.complete else (summary.stopped or "incomplete")
    table.add_row("run", status, f"{summary.elapsed_s:.1f} s, store {summary.store_path}")
    return table
