"""The README's main job: ``gasp tour`` (every study's quick run) on the embedded model,
within its budget."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gasp.backends import DecodingConfig
from gasp.cli import app
from gasp.runner import as_plan, estimate_plan
from gasp.studies import get_study_type, study_names
from gasp.studies.more_of_the_same import QUICK, STUDY_TYPE

README = Path(__file__).resolve().parents[1] / "README.md"

#: A conservative throughput of the embedded model (CTranslate2 int8) at batch 16 on two
#: CPU cores: bench/bench_embedded.py measured 159 tokens/s on a quiet machine and 33 with
#: ten other processes on the two cores; the tour generated 240 answers (about 130
#: tokens/s) with one other job running.
EMBEDDED_TOKENS_PER_S = 80.0
#: First start (GGUF dequantized, CTranslate2 conversion), analysis, probe and report.
FIXED_OVERHEAD_S = 150.0
#: Model load, analysis and report of each further study of the tour.
STUDY_OVERHEAD_S = 30.0
#: The README's promise for the tour on two quiet cores.
BUDGET_S = 10 * 60


def test_readme_main_job_is_the_tour_of_every_study() -> None:
    text = README.read_text(encoding="utf-8")
    quick_start = text.split("## Quick start", 1)[1].split("##", 1)[0]
    first_block = re.search(r"```bash\n(.*?)```", quick_start, re.S)
    assert first_block is not None
    command = first_block.group(1).strip()
    assert command.startswith("scripts/setup.sh && .venv/bin/gasp tour")
    assert "--study" not in command  # every study


def _worst_case_tokens(name: str) -> int:
    """Completion tokens of a study's quick run when every answer uses max_tokens and
    every adaptive item runs to its cap (a scoring request counts one token)."""
    study_type = get_study_type(name)
    quick = study_type.quick_options()
    max_tokens = int(quick.get("max_tokens") or study_type.decoding_defaults()["max_tokens"])
    plan = study_type.build(name, {k: v for k, v in quick.items() if k != "max_tokens"})
    estimate = estimate_plan(as_plan(plan), "embedded", DecodingConfig(max_tokens=max_tokens))
    generation = estimate.requests_max - estimate.score_requests
    return max_tokens * generation + estimate.score_requests


def test_the_tour_fits_the_budget_in_the_worst_case() -> None:
    study = STUDY_TYPE.build(
        "more-of-the-same",
        {k: v for k, v in STUDY_TYPE.quick_options().items() if k != "max_tokens"},
    )
    assert [s.name for s in study.subjects] == list(QUICK.occupations)
    assert study.n == QUICK.n and study.stopping.cap_factor == QUICK.cap_factor
    # It still asks for both templates and all four conditions.
    assert set(study.templates) == {"persona", "biography"}
    assert len(study.conditions) == 4
    tokens = {name: _worst_case_tokens(name) for name in study_names()}
    # 3 occupations x 2 templates x (cap_factor n unspecified + 3 named cells of n)
    assert tokens["more-of-the-same"] == QUICK.max_tokens * 6 * (QUICK.cap_factor + 3) * QUICK.n
    seconds = (
        sum(tokens.values()) / EMBEDDED_TOKENS_PER_S
        + FIXED_OVERHEAD_S
        + STUDY_OVERHEAD_S * (len(tokens) - 1)
    )
    assert seconds < BUDGET_S, f"the tour could take {seconds:.0f} s ({tokens})"


@pytest.mark.slow
def test_run_on_the_embedded_model_end_to_end(tmp_path: Path) -> None:
    """A tiny ``gasp run`` on the real embedded model: generate, analyze, report."""
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--quick",
            "--occupations",
            "nurse",
            "--templates",
            "persona",
            "--conditions",
            "unspecified,woman,man",
            "--n",
            "1",
            "--cap-factor",
            "1",
            "--max-tokens",
            "12",
            "--out",
            str(out),
            "--skip",
            "probe",
        ],
    )
    assert result.exit_code == 0, result.output
    page = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "SmolLM2" in page or "smollm2" in page.lower()
    assert "Who is represented" in page
