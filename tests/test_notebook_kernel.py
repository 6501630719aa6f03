"""The public API where researchers work: a real Jupyter kernel and a running event loop.

``docs/examples/notebook.ipynb`` is executed cell by cell in a real IPython kernel
(nbclient starting ipykernel): ``gasp.run`` on the embedded model and ``gasp.audit`` of
two mock models with a planted difference, each displayed. The same calls are made from
an ``asyncio`` program whose loop is running, both through the plain functions and the
``*_async`` variants.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

import gasp

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "notebook.ipynb"


def _outputs(cell: dict) -> str:
    """Everything a cell showed: its text, HTML and errors, as one string."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        data = output.get("data", {})
        parts += [data.get("text/plain", ""), data.get("text/html", "")]
        if output.get("output_type") == "error":
            parts.append(output["ename"] + ": " + output["evalue"])
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)


def _bars(cell: dict) -> list[str]:
    """The final text of each run's bar a cell showed."""
    return [
        "".join(o["data"]["text/plain"])
        for o in cell.get("outputs", [])
        if o.get("output_type") == "display_data"
        and "gasp-run" in "".join(o["data"].get("text/html", ""))
    ]


def _streams(cell: dict) -> str:
    """What a cell printed to stdout and stderr."""
    return "".join(
        "".join(o.get("text", ""))
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream"
    )


@pytest.mark.slow
def test_the_notebook_runs_a_study_and_an_audit_in_a_real_kernel(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    env = {"GASP_NOTEBOOK_OUT": str(tmp_path), "GASP_CACHE_DIR": os.environ["GASP_CACHE_DIR"]}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3")
        client.execute(cwd=str(tmp_path))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    shown = [_outputs(c) for c in notebook.cells if c.cell_type == "code"]
    assert not any("Error" in s.split(":")[0] for s in shown), shown
    run_cell, metrics_cell, audit_cell, comparisons_cell = shown[1:]
    assert "pronoun-pairs" in run_cell and "embedded" in run_cell
    # one bar per run, updated in place to its end; no line per step
    code = [c for c in notebook.cells if c.cell_type == "code"]
    run_bars, audit_bars = (_bars(code[1]), _bars(code[3]))
    assert len(run_bars) == 1 and len(audit_bars) == 2, (run_bars, audit_bars)
    assert run_bars[0].startswith("pronoun-pairs on embedded · ") and " · done in " in run_bars[0]
    assert "samples (100%)" in run_bars[0]
    assert [b.split(" · ")[0] for b in audit_bars] == [
        "run 1/2: a/narratives",
        "run 2/2: b/narratives",
    ]
    assert all(" · complete in " in b for b in audit_bars), audit_bars
    assert "Generate" not in _streams(code[1]) + _streams(code[3])
    assert "incorrect" in metrics_cell  # the study's headline metrics, as a table
    assert "named_female_share" in audit_cell and "<table" in audit_cell
    assert "named_female_share" in comparisons_cell
    card = json.loads((tmp_path / "audit" / "scorecard.json").read_text(encoding="utf-8"))
    share = next(c for c in card["comparisons"] if c["metric"] == "named_female_share")
    assert share["significant"] and share["difference"] > 0.2
    assert (tmp_path / "pairs" / "report" / "report.html").is_file()


MODELS = ["a=mock/personas", "b=mock/personas"]
AUDIT = {"studies": "narratives", "baseline": "a", "quick": True, "quiet": True,
         "model_options": {"b": {"female_share": 0.9}},
         "study_options": {"narratives": {"n": 10}}}  # fmt: skip


def test_run_and_audit_inside_a_running_event_loop(tmp_path: Path) -> None:
    async def program() -> tuple[gasp.RunResult, gasp.RunResult, float, float]:
        asyncio.get_running_loop()  # a loop is running here, as in a kernel
        plain = gasp.run("pronoun-pairs", "mock/personas", out=tmp_path / "p1", quick=True)
        awaited = await gasp.run_async(
            "pronoun-pairs", "mock/personas", out=tmp_path / "p2", quick=True
        )
        card = gasp.audit(MODELS, out=tmp_path / "a1", **AUDIT)
        other = await gasp.audit_async(MODELS, out=tmp_path / "a2", **AUDIT)
        differences = [
            c.comparisons.set_index("metric").loc["named_female_share", "difference"]
            for c in (card, other)
        ]
        return plain, awaited, *differences

    plain, awaited, first, second = asyncio.run(program())
    assert plain.ok and awaited.ok
    assert plain.metrics.equals(awaited.metrics)
    assert first == second and first > 0.2
