"""One updating bar per run in a Jupyter notebook.

In a notebook a line per step and a summary table per run bury the cell's output, and
Rich's live bars need widgets to update. :func:`notebook_bar` instead shows one output
per run that is updated in place (IPython's ``display(..., display_id=True)``, which
every Jupyter front end and ``nbclient`` understand): the run's name, its step, a bar of
the samples stored, the rate and the time left; at the end how long it took or why it
stopped. While a bar is open, :class:`gasp.runner.RunProgress` and the pipeline's steps
report to it (:func:`active_bar`) instead of printing.
"""

from __future__ import annotations

import contextlib
import html
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

#: Seconds between two redraws of a bar (its last state is always drawn).
REDRAW_S = 0.25

_lock = threading.Lock()
_active: NotebookBar | None = None


def in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython's ZMQ shell), False in a terminal, a script
    or plain IPython."""
    if "IPython" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def duration_text(seconds: float) -> str:
    """A duration as progress words it: ``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class NotebookBar:
    """The updating output of one run: its ``title``, step and samples."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.step = ""
        self.done = 0
        self.total = 0
        self.session = 0
        self.outcome = ""
        #: How the run ended when it did not raise (``done`` when left empty).
        self.verdict = ""
        self._began = time.monotonic()
        self._samples_began = 0.0
        self._drawn = 0.0
        self._handle: Any = None
        self._guard = threading.Lock()

    def text(self) -> str:
        """The bar in words (also its plain-text form in the notebook)."""
        parts = [self.title]
        if self.step:
            parts.append(self.step)
        if self.total:
            parts.append(f"{self.done}/{self.total} samples ({100 * self.done / self.total:.0f}%)")
            elapsed = time.monotonic() - self._samples_began
            if self.session and elapsed > 0 and not self.outcome:
                rate = self.session / elapsed
                parts.append(f"{rate:.2f}/s")
                if self.done < self.total:
                    parts.append(f"about {duration_text((self.total - self.done) / rate)} left")
        if self.outcome:
            parts.append(self.outcome)
        return " · ".join(parts)

    def _bundle(self) -> dict[str, str]:
        value = f'value="{self.done}" max="{self.total}"' if self.total else ""
        bar = f'<progress {value} style="width:16em"></progress>'
        text = html.escape(self.text())
        return {"text/plain": self.text(), "text/html": f'<div class="gasp-run">{bar} {text}</div>'}

    def draw(self, *, force: bool = False) -> None:
        """Show the bar (the first time) or update it, at most every :data:`REDRAW_S`."""
        from IPython.display import display

        with self._guard:
            now = time.monotonic()
            if not force and now - self._drawn < REDRAW_S:
                return
            self._drawn = now
            if self._handle is None:
                self._handle = display(self._bundle(), raw=True, display_id=True)
            else:
                self._handle.update(self._bundle(), raw=True)

    def set_step(self, index: int, total: int, name: str) -> None:
        """The step the run is at (``2/3 Analyze``)."""
        self.step = f"{index}/{total} {name}"
        self.draw(force=True)

    def start(self, total: int, done: int) -> None:
        """Samples begin: ``done`` of about ``total`` are stored already."""
        self.total, self.done, self.session = total, done, 0
        self._samples_began = time.monotonic()
        self.draw(force=True)

    def update_total(self, total: int) -> None:
        """The expected number of samples changed."""
        self.total = total
        self.draw()

    def advance(self) -> None:
        """One more sample stored."""
        self.done += 1
        self.session += 1
        self.draw()

    def finish(self, outcome: str) -> None:
        """The run ended: ``outcome`` says how."""
        self.step = ""
        self.outcome = outcome
        self.draw(force=True)


def active_bar() -> NotebookBar | None:
    """The bar of the run under way in this notebook, if any."""
    return _active


@contextlib.contextmanager
def notebook_bar(title: str) -> Iterator[NotebookBar]:
    """Show one updating bar for the run inside the ``with`` block; it ends with the
    run's time, or with why the run stopped."""
    global _active
    bar = NotebookBar(title)
    bar.draw(force=True)
    with _lock:
        _active = bar
    try:
        yield bar
    except BaseException as exc:
        bar.finish(f"stopped after {duration_text(time.monotonic() - bar._began)}: {exc}")
        raise
    else:
        bar.finish(f"{bar.verdict or 'done'} in {duration_text(time.monotonic() - bar._began)}")
    finally:
        with _lock:
            _active = None


__all__ = ["NotebookBar", "active_bar", "duration_text", "in_notebook", "notebook_bar"]
