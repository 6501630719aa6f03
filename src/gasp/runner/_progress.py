"""Progress while a run generates, and the summary table after it.

On a terminal: rich bars (the study and the cells generating now). In a Jupyter
notebook, while a run's bar is open (:func:`gasp.runner.notebook_bar`): that one bar.
Elsewhere (a file, a pipe, CI): one plain line every ``interval_s`` seconds (30 by default;
``RunOptions.progress_interval_s`` or the ``GASP_PROGRESS_INTERVAL_S`` environment
variable change it), from a background thread, so a step that stalls still reports.
"""

from __future__ import annotations

import math
import os
import threading
import time
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

from gasp.runner._notebook import active_bar, duration_text

if TYPE_CHECKING:
    from gasp.backends import EndpointStats
    from gasp.runner._summary import RunSummary

#: Most cell bars shown at once (the cells generating right now; others wait hidden).
MAX_VISIBLE_CELLS = 6

#: Seconds between plain progress lines when the console is not a terminal.
DEFAULT_PROGRESS_INTERVAL_S = 30.0

#: Environment variable overriding the interval of plain progress lines (seconds).
PROGRESS_INTERVAL_ENV = "GASP_PROGRESS_INTERVAL_S"


def progress_interval(interval_s: float | None = None) -> float:
    """The interval of plain progress lines: ``interval_s``, else the environment, else 30 s."""
    if interval_s is None:
        raw = os.environ.get(PROGRESS_INTERVAL_ENV, "").strip()
        try:
            interval_s = float(raw) if raw else DEFAULT_PROGRESS_INTERVAL_S
        except ValueError:
            interval_s = DEFAULT_PROGRESS_INTERVAL_S
    if not (interval_s > 0 and math.isfinite(interval_s)):
        return DEFAULT_PROGRESS_INTERVAL_S
    return interval_s


def progress_line(name: str, done: int, total: int, rate: float | None, elapsed_s: float) -> str:
    """One plain progress line: study, done / total (percent), rate per second, time left.

    ``rate`` is samples per second in this session (None or 0 when none came yet).
    """
    total = max(total, done)
    percent = f" ({100 * done / total:.0f}%)" if total else ""
    if total and done >= total:
        left, speed = "done", f"{rate:.2f}/s" if rate else "-/s"
    elif rate:
        left = f"about {duration_text((total - done) / rate)} left"
        speed = f"{rate:.2f}/s"
    else:
        left, speed = "time left unknown", "-/s"
    return (
        f"[{name}] {done}/{total} samples{percent}, {speed}, {left}"
        f" (elapsed {duration_text(elapsed_s)})"
    )


class _RateColumn(ProgressColumn):
    """Samples per second of a task."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "", style="progress.data.speed")


class RunProgress:
    """A bar for the whole study and one per cell being generated, or plain lines.

    Disabled (every method a no-op) when ``enabled`` is false. On a terminal it draws
    rich bars; otherwise it prints :func:`progress_line` every ``interval_s`` seconds
    (see :func:`progress_interval`) and once more when it stops.
    """

    def __init__(
        self,
        study_name: str,
        *,
        enabled: bool,
        console: Console | None = None,
        interval_s: float | None = None,
    ) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled
        self.plain = enabled and not self.console.is_terminal
        self.interval_s = progress_interval(interval_s)
        self._progress: Progress | None = None
        self._study: TaskID | None = None
        self._cells: dict[tuple[str, ...], TaskID] = {}
        self._visible: list[tuple[str, ...]] = []
        self._name = study_name
        self._lock = threading.Lock()
        self._done = 0
        self._total = 0
        self._session = 0
        self._started = 0.0
        self._stop_event = threading.Event()
        self._thread: threading.Thread | None = None
        #: The notebook's bar of this run, when one is open: it shows the samples.
        self.bar = active_bar() if enabled else None

    def start(self, total: int, done: int) -> None:
        """Show the study bar (``done`` samples already stored of about ``total``)."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.start(total, done)
            return
        with self._lock:
            self._done, self._total, self._session = done, total, 0
            self._started = time.monotonic()
        if self.plain:
            self._print_line()
            self._stop_event.clear()
            self._thread = threading.Thread(target=self._tick, name="gasp-progress", daemon=True)
            self._thread.start()
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

    def line(self) -> str:
        """The plain progress line of now."""
        with self._lock:
            done, total, session = self._done, self._total, self._session
            elapsed = time.monotonic() - self._started if self._started else 0.0
        rate = session / elapsed if session and elapsed > 0 else None
        return progress_line(self._name, done, total, rate, elapsed)

    def _print_line(self) -> None:
        self.console.print(self.line(), markup=False, highlight=False, soft_wrap=True)

    def _tick(self) -> None:
        while not self._stop_event.wait(self.interval_s):
            self._print_line()

    def update_total(self, total: int) -> None:
        """Revise the expected number of samples (adaptive cells grow or stop early)."""
        with self._lock:
            self._total = total
        if self.bar is not None:
            self.bar.update_total(total)
        if self._progress is not None and self._study is not None:
            self._progress.update(self._study, total=total)

    def advance(self, key: tuple[str, ...], cell_total: int, cell_done: int) -> None:
        """One more sample stored for cell ``key``."""
        with self._lock:
            self._done += 1
            self._session += 1
        if self.bar is not None:
            self.bar.advance()
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
        """Stop drawing (plain output: stop the timer and print the last line)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop_event.set()
            thread.join()
            self._print_line()
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def endpoint_details(endpoint: EndpointStats) -> str:
    """One server's line of the summary: answers, faults by kind, drained periods."""
    parts = [f"requests sent; {endpoint.succeeded} answered, {endpoint.failed} failed"]
    if endpoint.failed_by_kind:
        kinds = ", ".join(f"{k}: {v}" for k, v in sorted(endpoint.failed_by_kind.items()))
        parts[0] += f" ({kinds})"
    if endpoint.cancelled:
        parts.append(f"{endpoint.cancelled} cancelled")
    if endpoint.drained:
        parts.append(f"drained {endpoint.drained} time(s), {endpoint.drained_s:.1f} s")
    if endpoint.drained_now:
        parts.append("drained at the end")
    return "; ".join(parts)


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
    for endpoint in summary.endpoints:
        table.add_row(f"endpoint {endpoint.url}", str(endpoint.sent), endpoint_details(endpoint))
    if summary.batching:
        table.add_row("batch size", str(summary.batch_size), summary.batching)
    if summary.prompt_form == "completion":
        table.add_row(
            "prompt form", "completion", "text to continue, cut at the study's stop strings"
        )
    if summary.batch:
        table.add_row(
            "batches",
            str(summary.batches_submitted),
            f"submitted in this session; {summary.batches_resumed} resumed from the store",
        )
    if summary.cost_usd is not None:
        note = "from the tokens each answer reported"
        note += " (batch API: half price)" if summary.batch else ""
        table.add_row("cost", f"${summary.cost_usd:.4f}", note)
    status = "complete" if summary.complete else (summary.stopped or "incomplete")
    table.add_row("run", status, f"{summary.elapsed_s:.1f} s, store {summary.store_path}")
    return table
