"""A size the runner cannot hold is refused, in one line, before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.errors import ConfigError
from gasp.runner import MAX_PLANNED_REQUESTS, Item, StudyPlan


def _plan(*sizes: int) -> StudyPlan:
    items = [Item(key=(f"i{k}",), prompt="p", n=n) for k, n in enumerate(sizes)]
    return StudyPlan(kind="k", name="s", items=items, spec={})


def test_a_plan_is_bounded_by_the_sum_of_its_items_samples() -> None:
    assert _plan(MAX_PLANNED_REQUESTS - 1, 1).planned_requests() == MAX_PLANNED_REQUESTS
    with pytest.raises(ConfigError, match=r"plans 5,000,001 requests \(2 items.*lower --n"):
        _plan(MAX_PLANNED_REQUESTS, 1)


@pytest.mark.parametrize(
    ("study", "n"),
    [("pronoun-pairs", "100000000000000000000"), ("more-of-the-same", "1000000000")],
)
def test_gasp_run_refuses_a_size_beyond_the_bound_before_writing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    study: str,
    n: str,
) -> None:
    out = tmp_path / "run"
    args = ["run", study, "-m", "mock/personas", "--quick", "--n", n, "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gasp: error: ") and "requests" in err[0]
    assert not out.exists()
