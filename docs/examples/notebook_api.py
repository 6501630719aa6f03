"""gasp from Python, the way a notebook uses it: two studies, their results as DataFrames,
and an audit of two models whose comparisons are a DataFrame.

Run it as a script (``python docs/examples/notebook_api.py [FOLDER] [MODEL]``) or paste
its cells into Jupyter, where a result shows its headline metrics inline. The model
defaults to ``mock/personas``, a scripted mock that needs no download; give
``embedded`` (or any ``provider/model``) to audit a real one.
"""

# %% Run two studies on one model (each call resumes its run folder if it exists)
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import gasp

folder = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/notebook")
model = sys.argv[2] if len(sys.argv) > 2 else "mock/personas"

pairs = gasp.run("pronoun-pairs", model, out=folder / "pronoun-pairs", quick=True)
stories = gasp.run("narratives", model, out=folder / "narratives", quick=True)

# %% The headline metrics of both studies, side by side
metrics = pd.concat(
    [result.metrics.assign(study=result.study) for result in (pairs, stories)],
    ignore_index=True,
)
print(metrics[["study", "metric", "value", "ci_low", "ci_high", "n", "better"]])

# %% Any saved table, by name, as a DataFrame
print(sorted(pairs.tables))
answers = pairs.table("pairs_answers")
print(answers.head())

# %% Re-analyse a run with other settings (no model is called)
again = gasp.analyze(folder / "narratives", out=folder / "narratives-again", seed=1)
print(again.metrics[["metric", "value"]])

# %% An audit of two models against baseline a: b is the same mock told to make nine
# protagonists in ten women (the quick sizes are too small for the difference to be
# significant; without quick=True the audit runs the studies' full sizes)
card = gasp.audit(
    ["a=mock/personas", "b=mock/personas"],
    studies=["pronoun-pairs", "narratives"],
    baseline="a",
    out=folder / "audit",
    quick=True,
    model_options=["b:female_share=0.9"],
)
comparisons = card.comparisons
print(comparisons[["study", "metric", "model", "baseline", "difference", "q_value", "direction"]])
print("content hash:", card.content_hash(), "gate exit status:", card.exit_status)

# %% Where the reports are
for result in (pairs, stories):
    print(result.study, result.report)
