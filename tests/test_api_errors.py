"""At least 40 bad calls of the public API, each one ``GaspError`` line naming what was
wrong, with nothing written (the cases are ``bench/bench_api_errors.py``'s)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_api_errors.py"


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_api_errors", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_bad_call_is_one_gasp_error_line_and_writes_nothing(tmp_path: Path) -> None:
    outcomes = _bench().run_cases(tmp_path)
    assert len(outcomes) >= 40
    failed = [f"{o.case.what}: {o.error} (wrote {o.wrote})" for o in outcomes if not o.ok]
    assert failed == []


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_wrong_type_is_also_a_type_error(value: object, tmp_path: Path) -> None:
    import gasp

    with pytest.raises(TypeError, match="quick must be True or False"):
        gasp.run("pronoun-pairs", "mock/echo", out=tmp_path / "o", quick=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level must lie in"):
        gasp.run("pronoun-pairs", "mock/echo", out=tmp_path / "o", level=3.0)
    assert not (tmp_path / "o").exists()
