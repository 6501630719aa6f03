"""Every mistake a user can fix is one line: ``gasp: error: ...`` on standard error,
nothing on standard output, exit status 2, and an existing run folder left byte for byte
as it was (no banner first, no store created, no results rewritten)."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.testing import FakeOpenAIServer


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    with pytest.MonkeyPatch.context() as monkeypatch:
        code = gasp_exit_code(
            monkeypatch,
            "run", "narratives", "-m", "mock/echo", "--quick", "--skip", "probe",
            "--quiet", "--out", str(out),
        )  # fmt: skip
    assert code == 0
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["real"]) as fake:
        yield fake


def hashes(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` by relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def assert_one_line(code: int, captured: pytest.CaptureFixture[str], message: str) -> str:
    """The error line, after checking it is the only output and the status is 2."""
    out, err = captured.readouterr()
    lines = err.splitlines()
    assert code == 2, err
    assert out == "", out
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), err
    assert message in lines[0], lines[0]
    return lines[0]


STUDY_FILE = 'name = "x"\nsubjects = ["nurse"]\n[templates]\np = "no placeholder"\n'

# fmt: off
CASES: list[tuple[str, str, str]] = [
    # study options: kind and range, checked before anything runs, for every study
    ('narratives threshold 1.7',
     'run narratives -m mock/echo --study-option gender_threshold=1.7 --out {run}',
     'gender_threshold must be a number above 0.5'),
    ('narratives threshold 0.2',
     'run narratives -m mock/echo --study-option gender_threshold=0.2 --out {run}',
     'gender_threshold must be'),
    ('narratives threshold -1',
     'run narratives -m mock/echo --study-option gender_threshold=-1 --out {run}',
     'gender_threshold must be'),
    ('narratives top_names 0',
     'run narratives -m mock/echo --study-option top_names=0 --out {run}',
     'top_names must be an integer of at least 1'),
    ('narratives threshold on analyze',
     'analyze {run} --study-option gender_threshold=2',
     'gender_threshold must be'),
    ('svm_seed -1',
     'run marked-personas -m mock/personas --quick --study-option svm_seed=-1 --out {run}',
     'svm_seed must be an integer from 0'),
    ('min_df 2',
     'generate marked-personas -m mock/personas --study-option min_df=2 --out {run}/run.sqlite',
     'min_df must be a number of at least 0 and below 1'),
    ('texts poems',
     'run marked-personas -m mock/personas --study-option texts=poems --out {run}',
     'texts must be one of personas, stories, both'),
    ('exclude_refusals maybe',
     'run marked-personas -m mock/personas --study-option exclude_refusals=maybe --out {run}',
     'must be true or false'),
    ('occugender mode',
     'run occugender -m mock/scoring --study-option mode=poem --out {run}',
     'mode must be one of raw, chat'),
    ('occugender max_candidate_chars',
     'run occugender -m mock/scoring --study-option max_candidate_chars=0 --out {run}',
     'max_candidate_chars must be'),
    ('occugender case_variants',
     'run occugender -m mock/scoring --study-option case_variants=often --out {run}',
     'case_variants must be'),
    ('pairs 0',
     'run pronoun-pairs -m mock/echo --study-option pairs=0 --out {run}',
     'pairs must be an integer of at least 1'),
    ('pair_seed -3',
     'run pronoun-pairs -m mock/echo --study-option pair_seed=-3 --out {run}',
     'pair_seed must be an integer of at least 0'),
    ('unknown study option',
     'run narratives -m mock/echo --study-option mode=raw --out {run}',
     "study 'narratives' has no option 'mode'"),
    ('study option without value',
     'run narratives --study-option gender_threshold --out {run}',
     '--study-option must be KEY=VALUE'),
    ('analysis option the study does not read',
     'run narratives -m mock/echo --threshold 3 --out {tmp}/fresh',
     "option --threshold does not apply to study 'narratives'"),
    ('analysis option refused before generating',
     'run occugender -m mock/scoring --quick --per-template --out {tmp}/fresh',
     "option --per-template does not apply to study 'occugender'"),
    ('more-of-the-same has no options',
     'run -m mock/personas --study-option x=1 --out {run}',
     "has no option 'x'"),
    # where the run goes, and the model it asks
    ('uncreatable --out',
     'run narratives -m mock/echo --out /proc/nonexistent/run',
     'cannot create the run folder /proc/nonexistent/run'),
    ('credentials in the base URL',
     'run narratives -m openai-compatible/real '
     '--base-url https://user:s3cret@127.0.0.1:9/v1 --out {run}',
     'carries credentials (user:password@); give the key in an environment variable'),
    ('credentials on generate',
     'generate narratives -m openai-compatible/real '
     '--base-url http://user:s3cret@127.0.0.1:9/v1 --out {run}/run.sqlite',
     'carries credentials'),
    ('model not on the server',
     'run narratives -m openai-compatible/typo --base-url {server} --out {run}',
     "does not serve model 'typo' (it serves: real)"),
    ('unknown hf model',
     'run narratives -m hf/nobody/no-such-model --out {run}',
     'neither a local folder nor in the local Hugging Face cache'),
    ('unknown provider',
     'run narratives -m nope/x --out {run}',
     "unknown model provider 'nope'"),
    ('unknown study',
     'run no-such-study --out {run}',
     'no study or study file'),
    ('missing key',
     'run narratives -m openai/gpt-4o-mini --api-key-env GASP_UNSET_KEY_VAR --out {run}',
     'set the GASP_UNSET_KEY_VAR environment variable'),
    ('unreachable server',
     'run narratives -m openai-compatible/m --base-url http://127.0.0.1:9/v1 --out {run}',
     'cannot reach http://127.0.0.1:9/v1'),
    ('capability',
     'run occugender -m mock/echo --quick --out {run}',
     'cannot score continuations'),
    ('broken study file',
     'run {study_file} -m mock/personas --out {run}',
     'lacks the placeholder [OCCUPATION]'),
    ('store of another run',
     'run narratives -m mock/echo --quick --seed 5 --out {run}',
     'holds another run (seed 0, now 5)'),
    ('n 0',
     'run narratives -m mock/echo --n 0 --out {run}',
     'n must be an integer of at least 1'),
    ('max-requests 0',
     'run narratives -m mock/echo --max-requests 0 --out {run}',
     'max_requests must be at least 1'),
    ('temperature 5',
     'run narratives -m mock/echo --temperature 5 --out {run}',
     'temperature must be between 0 and 2'),
    ('examples-per-word 0',
     'run narratives --examples-per-word 0 --out {run}',
     '--examples-per-word must lie in [1, 1000], got 0'),
    ('k-rule',
     'run -m mock/personas --k-rule bogus --out {run}',
     '--k-rule must be one of'),
    ('generate into a folder',
     'generate narratives -m mock/echo --out {run}',
     'is a directory'),
    # analysis options: refused before generation spends anything
    ('bootstrap -5',
     'run narratives -m mock/echo --bootstrap -5 --out {run}',
     '--bootstrap must lie in [0, 100000], got -5'),
    ('fdr-scope',
     'run -m mock/personas --fdr-scope bogus --out {run}',
     '--fdr-scope must be one of comparison, study'),
    ('fdr 3',
     'run marked-personas -m mock/personas --fdr 3 --out {run}',
     '--level must lie in (0, 1), got 3.0'),
    ('min-share 7',
     'run -m mock/personas --min-share 7 --out {run}',
     '--min-share must lie in [0, 0.5)'),
    ('unknown embeddings',
     'run -m mock/personas --embeddings nope --out {run}',
     "unknown embeddings 'nope'"),
    ('unknown probe embeddings',
     'run -m mock/personas --probe-embeddings nope.kv --out {run}',
     'word-vector file not found: nope.kv'),
    ('permutations on analyze',
     'analyze {run} --permutations -1',
     '--permutations must lie in [0, 100000], got -1'),
    # analysis and report inputs
    ('analyze nothing',
     'analyze {tmp}/nothing',
     'nothing does not exist: give a run folder'),
    ('analyze a table without --study',
     'analyze {tmp}/texts.csv',
     'name its study with --study'),
    ('analyze an empty table',
     'analyze {tmp}/empty.csv --study marked-personas',
     'has no rows'),
    ('analyze a malformed table',
     'analyze {tmp}/bad.csv --study marked-personas',
     'cannot read'),
    ('analyze as another study',
     'analyze {run} --study pronoun-pairs',
     "is a run of study 'narratives', not 'pronoun-pairs'"),
    ('report nothing',
     'report {tmp}/nothing',
     'no run at'),
    ('report examples 0',
     'report {run} --examples-per-word 0',
     '--examples-per-word must be an integer of at least 1, got 0'),
]
# fmt: on


@pytest.mark.parametrize(("args", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_one_line_exit_2_and_the_run_folder_unchanged(
    finished_run: Path,
    server: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: str,
    message: str,
) -> None:
    """``args``: the command line, with {run} the finished run folder, {server} a fake
    server serving the model "real", {study_file} a broken study file, {tmp} a folder
    holding a table of texts, an empty one and a malformed one."""
    monkeypatch.delenv("GASP_UNSET_KEY_VAR", raising=False)
    (tmp_path / "study.toml").write_text(STUDY_FILE)
    (tmp_path / "texts.csv").write_text("text\nhello\n")
    (tmp_path / "empty.csv").write_text("text,gender\n")
    (tmp_path / "bad.csv").write_text('a,b\n"unterminated\n')
    values = {
        "{run}": str(finished_run),
        "{server}": server.base_url,
        "{study_file}": str(tmp_path / "study.toml"),
        "{tmp}": str(tmp_path),
    }
    argv = []
    for arg in shlex.split(args):
        for key, value in values.items():
            arg = arg.replace(key, value)
        argv.append(arg)
    before = hashes(finished_run)
    capsys.readouterr()
    line = assert_one_line(gasp_exit_code(monkeypatch, *argv), capsys, message)
    assert "s3cret" not in line
    assert hashes(finished_run) == before
    assert not Path("/proc/nonexistent").exists()


@pytest.mark.parametrize("damage", ["deleted", "garbled"])
def test_report_of_a_damaged_results_table_names_it_and_how_to_rebuild(
    finished_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    damage: str,
) -> None:
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    table = sorted((run / "results").glob("*.csv"))[0]
    if damage == "deleted":
        table.unlink()
    else:
        table.write_bytes(b"\xff\xfe\x00garbled\xc3")
    before = hashes(run)
    capsys.readouterr()
    code = gasp_exit_code(monkeypatch, "report", str(run), "--out", str(tmp_path / "rep"))
    line = assert_one_line(code, capsys, str(table))
    assert "gasp analyze" in line and "--skip generate" in line
    assert hashes(run) == before and not (tmp_path / "rep" / "report.html").exists()


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_analyze_into_a_closed_pipe_ends_quietly(finished_run: Path, tmp_path: Path) -> None:
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gasp", "analyze", str(finished_run), "--out",
             str(tmp_path / "results")],
            stdout=writer, stderr=subprocess.PIPE, env=_env(), timeout=300,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert done.returncode == 141, done.stderr.decode()[-500:]
    assert done.stderr == b""


#: Runs ``gasp ARGS`` as the user nobody: the modules the commands need are imported
#: first (the interpreter's own files may not be readable by nobody), then the process
#: gives up root.
_AS_NOBODY = """
import importlib, os, pkgutil, pwd, sys
import gasp.cli, gasp.report, gasp.runner, gasp.store, gasp.studies
package = importlib.import_module(os.environ["GASP_TEST_STUDY_PACKAGE"])
for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(found.name)
import matplotlib.pyplot
import multiprocessing.pool, multiprocessing.queues, multiprocessing.synchronize
import multiprocessing.util, concurrent.futures.process, joblib
user = pwd.getpwnam("nobody")
os.setgroups([]); os.setgid(user.pw_gid); os.setuid(user.pw_uid)
sys.argv = ["gasp", *sys.argv[1:]]
gasp.cli.main()
"""


def _as_nobody(study: str, *args: str) -> subprocess.CompletedProcess[str]:
    from gasp.studies import BUILTIN_STUDY_MODULES

    module = BUILTIN_STUDY_MODULES[study]
    package = module if study != "narratives" else module.rsplit(".", 1)[0]
    env = {**_env(), "GASP_TEST_STUDY_PACKAGE": package}
    return subprocess.run(
        [sys.executable, "-c", _AS_NOBODY, *args],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip


def test_a_read_only_run_is_one_line_where_it_must_be_written_and_reads_elsewhere(
    finished_run: Path, request: pytest.FixtureRequest
) -> None:
    """As a user who may not write the run folder: run, analyze and report into it are
    one line each; analyze and report into a writable --out work."""
    check_read_only_run(finished_run, "narratives", "mock/echo", request)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("study", "model"),
    [
        ("more-of-the-same", "mock/personas"),
        ("marked-personas", "mock/personas"),
        ("occugender", "mock/scoring"),
        ("pronoun-pairs", "mock/echo"),
    ],
)
def test_a_read_only_run_of_every_other_study(
    study: str,
    model: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    out = tmp_path / "run"
    args = ["run", study, "-m", model, "--quick", "--skip", "probe", "--quiet", "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args) == 0
    check_read_only_run(out, study, model, request)


def check_read_only_run(
    finished: Path, study: str, model: str, request: pytest.FixtureRequest
) -> None:
    """Copy the run ``finished`` read-only and check every command on it as nobody."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as the user nobody (a read-only run for root is not)")
    try:
        import pwd

        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody on this machine")
    # pytest's own folders are root's alone: this one, in /tmp, nobody may enter
    root = Path(tempfile.mkdtemp(prefix="gasp-read-only-"))
    request.addfinalizer(lambda: shutil.rmtree(root, ignore_errors=True))
    root.chmod(0o755)
    run = root / "run"
    shutil.copytree(finished, run)
    for path in [run, *run.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    writable = root / "w"
    writable.mkdir()
    writable.chmod(0o777)
    before = hashes(run)
    refused = {
        "run": (["run", study, "-m", model, "--quick", "--out", str(run)],
                "is read-only, so this run cannot go on"),
        "analyze": (["analyze", str(run)], "cannot write the results folder"),
        "report": (["report", str(run)], "cannot write the report folder"),
    }  # fmt: skip
    for args, message in refused.values():
        done = _as_nobody(study, *args)
        lines = done.stderr.splitlines()
        assert done.returncode == 2, done.stderr[-800:]
        assert len(lines) == 1 and lines[0].startswith("gasp: error: ") and message in lines[0]
    done = _as_nobody(study, "analyze", str(run), "--out", str(writable / "results"))
    assert done.returncode == 0, done.stderr[-800:]
    done = _as_nobody(study, "report", str(run), "--out", str(writable / "report"))
    assert done.returncode == 0, done.stderr[-800:]
    assert (writable / "report" / "report.html").is_file()
    assert hashes(run) == before
    assert sorted(p.name for p in run.iterdir()) == ["report", "results", "run.sqlite"]


def test_a_typo_does_not_lock_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped model is refused before the run folder exists; a store that holds no
    answer (every request of a mistyped model failed, as on a server with no model list
    to check it against up front) is started afresh by the corrected command, with one
    line."""
    out = tmp_path / "run"
    with (
        FakeOpenAIServer(models=["real"]) as one,
        FakeOpenAIServer(models=["real"], models_status=404) as two,
    ):
        code = gasp_exit_code(
            monkeypatch, "run", "narratives", "-m", "openai-compatible/typo", "--base-url",
            one.base_url, "--quick", "--skip", "probe", "--out", str(out),
        )  # fmt: skip
        assert_one_line(code, capsys, "does not serve model 'typo'")
        assert not out.exists()
        gasp_exit_code(
            monkeypatch, "generate", "narratives", "-m", "openai-compatible/typo", "--base-url",
            two.base_url, "--n", "1",
            "--quiet", "--out", str(out / "run.sqlite"),
        )  # fmt: skip
        assert (out / "run.sqlite").is_file() and one.successes + two.successes == 0
        capsys.readouterr()
        code = gasp_exit_code(
            monkeypatch, "run", "narratives", "-m", "openai-compatible/real", "--base-url",
            one.base_url, "--quick", "--skip", "probe", "--out", str(out),
        )  # fmt: skip
        err = capsys.readouterr().err
        assert code == 0, err[-800:]
        assert "held no answer of its earlier run; it starts afresh" in err
        assert one.successes > 0
    assert (out / "report" / "report.html").is_file()
