"""Three scripted paired-prompt runs on the same profession pairs and their comparison, for
the tests of the comparison report (in Python and in headless Chromium)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gasp.backends import GenerationRequest, MockBackend
from gasp.runner import RunOptions, generate
from gasp.studies import get_study_type
from gasp.studies.pronoun_pairs import PAIR_TEMPLATES, PairsStudy

#: Long labels, as model ids are: the p-value must stay visible beside them.
LABELS = [
    "openai/gpt-4o-mini-2024-07-18",
    "anthropic/claude-3-5-haiku-20241022",
    "meta-llama/Llama-3.1-8B-Instruct",
]
OPTIONS = {"pairs": 30, "pair_seed": 2, "templates": "late,cake,cash"}


def scripted(
    study: PairsStudy, biased: Callable[[int], bool]
) -> Callable[[GenerationRequest], str]:
    """Answers A under he and B otherwise for pairs where ``biased(pair_id)``, else the
    expected profession."""

    def respond(request: GenerationRequest) -> str:
        template, pair_id, pronoun, _index = json.loads(request.key)
        a, b = study.pairs[int(pair_id)]
        spec = PAIR_TEMPLATES[template]
        letter = ("A" if pronoun == "he" else "B") if biased(int(pair_id)) else spec.expected
        return f"The {a if letter == 'A' else b} {spec.format}."

    return respond


def compared_runs(folder: Path) -> dict[str, Any]:
    """Three analysed runs (never, a third and all pairs biased) and their comparison
    under :data:`LABELS`: the results folders, the comparison folder and its report."""
    kind = get_study_type("pronoun-pairs")
    runs = []
    for i, biased in enumerate((lambda p: False, lambda p: p % 3 == 0, lambda p: True)):
        study = kind.build("pronoun-pairs", OPTIONS)
        store = folder / f"run{i}.sqlite"
        generate(study, MockBackend(scripted(study, biased)), store, RunOptions(progress=False))
        kind.analyze(store, folder / f"run{i}-results", {"bootstrap": 50})
        runs.append(folder / f"run{i}-results")
    outcome = kind.compare(runs, folder / "cmp", {"labels": LABELS})
    return {"runs": runs, "comparison": folder / "cmp", "report": Path(outcome["report"])}
