"""gasp's generation studies as Inspect AI tasks: ``inspect eval gasp/<study>`` against
the fake OpenAI-compatible server, then ``gasp analyze LOG.eval``, equals ``gasp run``
of the same study against the same server (the server answers by the prompt alone)."""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.errors import ConfigError
from gasp.results import AuditResults
from gasp.testing import FakeOpenAIServer

pytest.importorskip("inspect_ai")

ANSWERS = (
    "The {a} was late. Sarah said she had a flat tyre.",
    "The {b} did it. Tom says he is sorry.",
    "I cannot tell. Chris. They wrote a poem about the market.",
    "Mary. She was a proud nurse who loved her garden and her sister.",
    "John. He was a calm pilot who loved the sea.",
)


def _answer(prompt: str, rng: np.random.Generator) -> str:
    """An answer chosen by the prompt alone (no seed), so both tools get the same."""
    del rng
    words = [w.strip(".,'") for w in prompt.split()]
    a = words[words.index("The") + 1] if "The" in words else "doctor"
    b = words[-4] if len(words) > 4 else "nurse"
    return ANSWERS[zlib.crc32(prompt.encode()) % len(ANSWERS)].format(a=a, b=b)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(text=_answer) as fake:
        yield fake


def _inspect_log(
    server: FakeOpenAIServer,
    study: str,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    **args: object,
) -> Path:
    from inspect_ai import eval as inspect_eval

    import gasp.interop.inspect_tasks  # noqa: F401  (what the entry point loads)

    monkeypatch.setenv("FAKE_API_KEY", "unused")
    monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
    (log,) = inspect_eval(
        f"gasp/{study}",
        model="openai-api/fake/fake-model",
        task_args=dict(args),
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.mark.parametrize("study", ["pronoun-pairs", "narratives", "marked-personas"])
def test_inspect_eval_then_gasp_analyze_equals_gasp_run(
    study: str,
    server: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = tmp_path / "run"
    args = ["run", study, "-m", "openai-compatible/fake-model", "--base-url", server.base_url]
    assert gasp_exit_code(monkeypatch, *args, "--quick", "--out", str(run)) == 0
    log = _inspect_log(server, study, tmp_path / "logs", monkeypatch, quick=True)
    out = tmp_path / "from-inspect"
    assert gasp_exit_code(monkeypatch, "analyze", str(log), "--out", str(out)) == 0, (
        capsys.readouterr()
    )
    printed = capsys.readouterr().out
    assert f"of Inspect task 'gasp/{study}'" in printed
    native, inspected = AuditResults.load(run / "results"), AuditResults.load(out)
    assert sorted(native.tables) == sorted(inspected.tables)
    for name in native.tables:
        pd.testing.assert_frame_equal(
            native[name].reset_index(drop=True),
            inspected[name].reset_index(drop=True),
            check_dtype=False,
            obj=name,
        )
    assert inspected.meta["settings"]["input"]["format"] == "inspect"


def test_the_tasks_carry_attributes_decoding_and_n_and_scoring_is_refused() -> None:
    from gasp.interop.inspect_tasks import study_task

    pairs = study_task("pronoun-pairs", quick="true", n=3)
    sample = pairs.dataset[0]
    assert {"template", "pair_id", "profession_a", "pronoun", "item_id"} <= set(sample.metadata)
    assert pairs.epochs == 3
    assert pairs.config.temperature == 0.2 and pairs.config.max_tokens == 24
    stories = study_task("narratives", quick=True)
    assert stories.config.temperature == 0.6 and stories.epochs == 2
    assert stories.dataset[0].input[0].role == "system"
    with pytest.raises(ConfigError, match="log-probabilities"):
        study_task("occugender")


def _generation_studies() -> set[str]:
    """The built-in studies whose items are all generations (the others are refused)."""
    from gasp.interop import study_samples
    from gasp.studies import BUILTIN_STUDY_MODULES

    found = set()
    for name in BUILTIN_STUDY_MODULES:
        try:
            study_samples(name, quick=True)
        except ConfigError:
            continue
        found.add(name)
    return found


def test_inspect_list_tasks_given_gasps_path_lists_every_generation_study(
    tmp_path: Path,
) -> None:
    """The real ``inspect`` command, from a folder unrelated to gasp."""
    import gasp.interop.inspect_tasks as module

    src = str(Path(module.__file__ or "").parents[2])
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    gasp = [sys.executable, "-m", "gasp", "inspect-tasks-path"]
    path = subprocess.run(gasp, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    relative = path.stdout.strip()
    assert not Path(relative).is_absolute()
    assert (tmp_path / relative).resolve() == Path(module.__file__ or "").resolve()
    inspect = [str(Path(sys.executable).with_name("inspect")), "list", "tasks", relative]
    listed = subprocess.run(inspect, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    lines, studies = listed.stdout.split(), _generation_studies()
    assert {"marked-personas", "pronoun-pairs", "narratives"} <= studies
    assert {line.rsplit("@", 1)[1] for line in lines} == studies
    assert {line.rsplit("@", 1)[0] for line in lines} == {relative}


def test_inspect_tasks_path_without_inspect_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai raises ImportError
    assert gasp_exit_code(monkeypatch, "inspect-tasks-path") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["gasp: error: Inspect AI is not installed: pip install 'gasp[inspect]'"]
