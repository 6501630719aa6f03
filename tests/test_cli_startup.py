"""The command line starts fast, stays quiet when asked, and ends quietly on a closed pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _cli import gasp_exit_code

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("scipy", "sklearn", "pandas", "numpy", "torch", "matplotlib", "transformers")

_LOADED = """
import sys
from gasp.cli import main
sys.argv = ["gasp", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(%r))
print("HEAVY=" + ",".join(heavy))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


@pytest.mark.parametrize("args", [["--help"], ["version"], ["run", "--help"]])
def test_help_and_version_load_no_statistics_stack(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED % (HEAVY,), *args],
        capture_output=True,
        text=True,
        env=_env(),
        check=True,
        timeout=120,
    )
    assert "HEAVY=\n" in done.stdout, done.stdout[-300:]


def test_a_closed_output_pipe_ends_quietly_with_status_141() -> None:
    reader, writer = os.pipe()
    os.close(reader)  # nobody reads: the first write meets a broken pipe
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gasp", "studies"],
            stdout=writer,
            stderr=subprocess.PIPE,
            env=_env(),
            timeout=120,
        )
    finally:
        os.close(writer)
    assert done.returncode == 141
    assert done.stderr == b""


def test_run_quiet_prints_nothing_but_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = gasp_exit_code(
        monkeypatch,
        "run", "narratives", "-m", "mock/echo", "--quick", "--quiet", "--skip", "probe",
        "--skip", "analyze", "--skip", "report", "--out", str(out),
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err == "" and captured.out == ""
    assert (out / "run.sqlite").is_file()


def test_the_format_help_names_every_readable_format() -> None:
    """The --format help is written without importing the readers; it must still name
    every format they read."""
    from gasp.cli._texts import FormatOption
    from gasp.io import SOURCE_FORMATS

    help_text = FormatOption.__metadata__[0].help
    for name in SOURCE_FORMATS:
        assert name in help_text
