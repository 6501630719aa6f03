"""Figure files of the report: a matplotlib figure saved as PNG and SVG (no pyplot state).

Study sections draw their figures with :func:`new_figure` and write them with
:func:`save_figure`, which returns the PNG bytes for embedding in the page.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import matplotlib as mpl
from matplotlib.figure import Figure

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


def save_figure(fig: Figure, folder: Path, name: str) -> bytes:
    """Write ``fig`` as ``<name>.png`` and ``<name>.svg`` in ``folder``; return the PNG bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    with mpl.rc_context(_RC):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=130, metadata={"Software": None})
        png = buf.getvalue()
        (folder / f"{name}.png").write_bytes(png)
        fig.savefig(folder / f"{name}.svg", format="svg", metadata={"Date": None})
    return png
