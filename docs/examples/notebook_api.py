"""gasp from Python, the way a notebook uses it: two studies, their results as DataFrames.

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

# %% The audit of two models (gasp.audit) comes here: see docs/api.md, "Audits".

# %% Where the reports are
for result in (pairs, stories):
    print(result.study, result.report)
