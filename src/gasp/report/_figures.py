"""Figure files of the report: a matplotlib figure saved as PNG and SVG (no pyplot state).

Study sections draw their figures with :func:`new_figure`, give them a legend with
:func:`outside_legend` (above the axes, where it cannot cover data) and write them with
:func:`save_figure`, which returns the PNG bytes for embedding in the page. Error bars
are drawn from an estimate and its interval through :func:`error_bars`, the one place
that turns an interval into bar lengths.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import numpy.typing as npt
from matplotlib.figure import Figure
from matplotlib.legend import Legend

from gasp.results import replace_with

_RC: Any = {
    "svg.hashsalt": "gasp-report",
    "svg.fonttype": "path",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def new_figure(width: float, height: float) -> Figure:
    """An empty figure in the report's style (constrained layout)."""
    with mpl.rc_context(_RC):
        return Figure(figsize=(width, height), layout="constrained")


def error_bars(
    estimate: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike, scale: float = 1.0
) -> np.ndarray:
    """The (2, n) lengths of the error bars of ``estimate`` from its interval
    ``[low, high]``, times ``scale`` (100 for percentages), as matplotlib's ``xerr`` and
    ``yerr`` take them.

    Every length is finite and non-negative: an interval that misses its estimate by a
    rounding error (a share of 0 or 1) or by design (a percentile interval) gets a bar of
    length 0 on that side, and a missing bound (NaN) no bar, so any valid result draws.
    """
    est = np.asarray(estimate, dtype=float)
    below = scale * (est - np.asarray(low, dtype=float))
    above = scale * (np.asarray(high, dtype=float) - est)
    lengths = np.vstack([np.ravel(below), np.ravel(above)])
    return np.clip(np.nan_to_num(lengths, nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)


def outside_legend(fig: Figure, fontsize: float = 7, ncols: int | None = None) -> Legend | None:
    """One legend of every labelled artist of ``fig``, placed above its axes.

    The figure's constrained layout keeps the space the legend takes, so it never covers
    plotted data. A label repeated in several panels is listed once. Without ``ncols`` the
    entries share as many columns as the figure's width holds. None when nothing is labelled.
    """
    handles: list[Any] = []
    labels: list[str] = []
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if not labels:
        return None
    if ncols is None:
        # An entry is its handle (about 4 font sizes with the gaps) and its text (about
        # 0.6 font sizes a character); the row may take the figure's width.
        entry = fontsize * (4.0 + 0.6 * max(len(label) for label in labels))
        ncols = int(max(1, min(len(labels), fig.get_figwidth() * 72 // entry)))
    return fig.legend(
        handles, labels, loc="outside upper center", ncols=ncols, fontsize=fontsize, frameon=False
    )


def save_figure(fig: Figure, folder: Path, name: str) -> bytes:
    """Write ``fig`` as ``<name>.png`` and ``<name>.svg`` in ``folder``; return the PNG bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    with mpl.rc_context(_RC):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=130, metadata={"Software": None})
        png = buf.getvalue()
        replace_with(folder / f"{name}.png", lambda tmp: tmp.write_bytes(png))
        replace_with(
            folder / f"{name}.svg",
            lambda tmp: fig.savefig(tmp, format="svg", metadata={"Date": None}),
        )
    return png
