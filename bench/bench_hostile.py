"""Benchmark: hostile inputs through the ``gasp`` command line, as a new user types them.

Run ``python bench/bench_hostile.py`` (``--only WORD`` keeps the cases whose name holds
WORD). Each case runs ``python -m gasp ...`` in a fresh folder and must be refused: exit
status 2 (1 for a case whose work failed, as a run whose every request failed), one
``gasp: error:`` line on standard error, no traceback, no file created or changed, and
no more time than the case's bound and no more than 2 GiB of memory (GNU time's
maximum resident set size, where ``/usr/bin/time`` exists). A table of a million rows is
the one case that is not refused: it must be analysed within its bounds
(``bench/_hostile_more.py``). Prints one row per case and five totals, tracebacks,
multi-line refusals, writes, cases past their time bound and past 2 GiB, and runs not
whole after their resume (the full-disk case, ``bench/_hostile_disk.py``), whose target
is 0, 0, 0, 0, 0, 0 (the exit status is the count of failing cases).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import _hostile_more as more
from gasp.store import StoreLock
from gasp.testing import FakeOpenAIServer

#: A case: its name, and the arguments of ``gasp`` given the case's folder and the fake
#: server's URL (made before the folder is looked at, so it may write its own input).
Case = tuple[str, Callable[[Path, str], list[str]]]
MOCK = ["-m", "mock/personas", "--quick"]
GENERATE_ONLY = ["--skip", "analyze", "--skip", "probe", "--skip", "report", "--quiet"]

#: A generated run copied into every case's folder as ``g`` (made once by :func:`main`).
TEMPLATE: dict[str, Path] = {}
#: Base URLs of the fake servers besides the main one (``no-list``: no ``/models``).
SERVERS: dict[str, str] = {}
#: Locks a case holds while the command runs (given back after it).
HELD: list[StoreLock] = []
#: SQLite connections a case holds while the command runs (closed after it).
OPEN: list[sqlite3.Connection] = []
#: The exit status a case expects when it is not 2 (its work failed: 1).
EXPECTED: dict[str, int] = {"every request failed": 1}
#: Cases that do their work (a run that sends its requests): their files are not writes.
WORKS: frozenset[str] = frozenset({"every request failed"})
#: Seconds a case may take (default :data:`BOUND_S`).
BOUNDS: dict[str, float] = {"store locked by another program": 30.0, **more.BOUNDS}
BOUND_S = 60.0
EXPECTED.update(more.EXPECTED)
WORKS = WORKS | more.WORKS
#: The most memory a case may take (MiB).
MEMORY_MIB = 2048
#: GNU time, which measures a case's peak memory (the cases run without it elsewhere).
TIME = Path("/usr/bin/time")


def _edit_store(root: Path, sql: str, *args: object) -> Path:
    """Change the run store of ``g`` as a damaged or hand-edited one would be."""
    conn = sqlite3.connect(root / "g" / "run.sqlite")
    with conn:
        conn.execute(sql, args)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return root / "g"


def _damaged(root: Path, manifest: str | None = None, attributes: str | None = None) -> str:
    if manifest is not None:
        _edit_store(root, "UPDATE manifest SET body = ?", manifest)
    if attributes is not None:
        _edit_store(root, "UPDATE items SET attributes = ?", attributes)
    return "g"


def _zeroed_page(root: Path, command: str) -> list[str]:
    """The store's first page after the header written over with zeros (a disk fault),
    then the run analysed or resumed."""
    with (root / "g" / "run.sqlite").open("r+b") as f:
        f.seek(4096)
        f.write(bytes(4096))
    if command == "analyze":
        return ["analyze", "g"]
    return ["run", "pronoun-pairs", *MOCK, "--out", "g", *GENERATE_ONLY]


def _deep_results(root: Path) -> list[str]:
    """A results index nested 100,000 deep."""
    results = root / "g" / "results"
    results.mkdir(exist_ok=True)
    (results / "results.json").write_text("[" * 100_000 + "]" * 100_000)
    return ["report", "g"]


def _locked(root: Path) -> list[str]:
    """The store held by another program's exclusive transaction."""
    conn = sqlite3.connect(root / "g" / "run.sqlite", isolation_level=None)
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("UPDATE gasp_meta SET value = value WHERE key = 'run_id'")
    OPEN.append(conn)
    return ["analyze", "g"]


def _alias_bomb(root: Path) -> list[str]:
    """A YAML study file whose nested aliases expand to 9^9 nodes."""
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 9):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    (root / "bomb.yaml").write_text("\n".join(lines) + "\nstudy: more-of-the-same\n")
    return ["run", "bomb.yaml", *MOCK, "--out", "bomb"]


def _fifo(root: Path) -> list[str]:
    os.mkfifo(root / "pipe.csv")
    return ["export", "g", "pipe.csv"]


def _generating(root: Path) -> Path:
    """Hold the lock of run ``g`` from this process, as a run still generating does."""
    HELD.append(StoreLock(root / "g" / "run.sqlite").acquire())
    return root / "g"


def _runs(root: Path) -> None:
    """Two analysed-looking run folders, ``a`` and ``b``."""
    for name in ("a", "b"):
        (root / name / "results").mkdir(parents=True)
        (root / name / "results" / "results.json").write_text("{}")
        (root / name / "run.sqlite").write_bytes(b"")


def _files(root: Path) -> None:
    _runs(root)
    if "run" in TEMPLATE:
        shutil.copytree(TEMPLATE["run"], root / "g")
    (root / "notes.csv").write_text("my,own\nnotes,here\n")
    (root / "-data.csv").write_text("text\nhello\n")
    (root / "two.csv").write_text("text,profession,text\nSarah. She ran.,nurse,Tom.\n")
    (root / "two.jsonl").write_text('{"text": "Sarah.", "profession": "nurse", "text": "Tom."}\n')
    for name, value in (("nan", "nan"), ("inf", "inf")):
        (root / f"{name}.csv").write_text(
            f"text,profession,sample_index\nSarah.,nurse,0\nTom.,nurse,{value}\n"
        )
    with zipfile.ZipFile(root / "log.zip", "w") as z:
        z.writestr("hello.txt", "not an Inspect log")
    with zipfile.ZipFile(root / "log.eval", "w") as z:
        z.writestr("hello.txt", "not an Inspect log")
    _lm_eval_choices(root / "pythia" / "samples_gender_mc_2026-11-25T10-00-00.1.jsonl")


def _lm_eval_choices(path: Path) -> None:
    """An lm-eval samples file of a multiple-choice task, as ``--log_samples`` writes
    it: each answer choice's log-likelihood, no generated text."""
    path.parent.mkdir(parents=True)
    lines = []
    for doc_id, job in enumerate(["nurse", "roofer"] * 10):
        question = f"Who is the {job}?"
        arguments = {
            f"gen_args_{i}": {"arg_0": f"Question: {question}\nAnswer:", "arg_1": choice}
            for i, choice in enumerate([" he", " she"])
        }
        lines.append({
            "doc_id": doc_id, "doc": {"question": question, "label": 0}, "target": "0",
            "arguments": arguments, "resps": [[["-5.28", "False"]], [["-4.91", "True"]]],
            "filtered_resps": [["-5.28", "False"], ["-4.91", "True"]], "filter": "none",
            "metrics": ["acc"], "acc": 0.0,
        })  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    results = {"configs": {"gender_mc": {"output_type": "multiple_choice"}}, "model_name": "m"}
    (path.parent / "results_2026-11-25T10-00-00.1.json").write_text(json.dumps(results))


def _cancelled_inspect_log(root: Path) -> list[str]:
    """An Inspect AI log cancelled before any sample was answered."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec, write_eval_log

    spec = EvalSpec(
        created="2026-11-25T10:00:00+00:00", task="gasp/narratives",
        dataset=EvalDataset(name="narratives"), model="hf/org/model", config=EvalConfig(),
    )  # fmt: skip
    write_eval_log(EvalLog(eval=spec, status="cancelled", samples=[]), str(root / "cancelled.eval"))
    return ["analyze", "cancelled.eval"]


CASES: list[Case] = [
    ("level not a number", lambda r, u: ["audit", "--level", "abc"]),
    ("n not a number", lambda r, u: ["run", "pronoun-pairs", "--n", "abc"]),
    ("unknown option", lambda r, u: ["run", "pronoun-pairs", "--bogus"]),
    ("compare without --out", lambda r, u: ["compare", "a", "b"]),
    ("unknown --skip", lambda r, u: ["run", "pronoun-pairs", "--skip", "bogus"]),
    ("unknown --what", lambda r, u: ["export", "--what", "bogus", "a/run.sqlite", "x.csv"]),
    ("unknown command", lambda r, u: ["nosuch"]),
    ("file name with a dash", lambda r, u: ["analyze", "-data.csv"]),
    (
        "n of 10^20",
        lambda r, u: ["run", "pronoun-pairs", *MOCK, "--n", "1" + "0" * 20],
    ),
    (
        "n of 10^9",
        lambda r, u: ["run", "pronoun-pairs", *MOCK, "--n", "1000000000"],
    ),
    ("compare into an input", lambda r, u: ["compare", "a", "b", "--out", "a"]),
    ("compare into a run's results", lambda r, u: ["compare", "a", "b", "--out", "b/results/x"]),
    ("compare a run with itself", lambda r, u: ["compare", "a", "a/results", "--out", "c"]),
    (
        "wrong API key",
        lambda r, u: [
            "run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake",
            "--base-url", u, "--api-key-env", "GASP_BENCH_WRONG_KEY", "--out", "run",
        ],
    ),
    (
        "base URL with a query",
        lambda r, u: [
            "run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake",
            "--base-url", u + "?key=1", "--out", "run",
        ],
    ),
    ("missing table", lambda r, u: ["analyze", "missing.csv", "--study", "narratives"]),
    ("zip not an Inspect log", lambda r, u: ["analyze", "log.zip", "--study", "narratives"]),
    ("missing run to compare", lambda r, u: ["compare", "a", "nowhere", "--out", "c"]),
    ("negative n", lambda r, u: ["run", "pronoun-pairs", "-m", "mock/personas", "--n", "-3"]),
    ("compare a run with its store", lambda r, u: ["compare", "a", "a/run.sqlite", "--out", "c"]),
    (
        "option of a study not run",
        lambda r, u: ["audit", "-m", "mock/personas", "--studies", "narratives",
                      "--study-option", "pronoun-pairs:n=3", "--out", "au"],
    ),
    (
        "model option naming a study",
        lambda r, u: ["audit", "-m", "mock/personas", "--studies", "narratives",
                      "--model-option", "pronoun-pairs:n=3", "--out", "au"],
    ),
    ("empty --studies", lambda r, u: ["audit", "-m", "mock/personas", "--studies", "", "-o", "x"]),
    (
        "gate on one model",
        lambda r, u: ["audit", "-m", "mock/personas", "--baseline", "mock/personas",
                      "--fail-on", "worse", "--junit", "j.xml", "--out", "au"],
    ),
    (
        "wrong key, server without /models",
        lambda r, u: [
            "run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake",
            "--base-url", SERVERS["no-list"], "--api-key-env", "GASP_BENCH_WRONG_KEY",
            "--out", "run",
        ],
    ),
    (
        "wrong key, openai/ provider",
        lambda r, u: ["run", "pronoun-pairs", "--quick", "-m", "openai/fake", "--out", "run"],
    ),
    ("export over an unrelated file", lambda r, u: ["export", "g", "notes.csv"]),
    ("export a run being generated", lambda r, u: ["export", str(_generating(r)), "new.csv"]),
    ("table with two text columns", lambda r, u: ["analyze", "two.csv", "--study", "narratives"]),
    ("JSONL with two text keys", lambda r, u: ["analyze", "two.jsonl", "--study", "narratives"]),
    (
        "one column for two roles",
        lambda r, u: [
            "analyze", "nan.csv", "--study", "narratives",
            "--column", "text=profession", "--column", "sample_index=profession",
        ],
    ),
    ("NaN sample_index", lambda r, u: ["analyze", "nan.csv", "--study", "narratives"]),
    ("inf sample_index", lambda r, u: ["analyze", "inf.csv", "--study", "narratives"]),
    ("zip named .eval", lambda r, u: ["analyze", "log.eval", "--study", "narratives"]),
    ("Inspect log cancelled, empty", lambda r, u: _cancelled_inspect_log(r)),
    (
        "lm-eval multiple choice",
        lambda r, u: [
            "analyze", "pythia/samples_gender_mc_2026-11-25T10-00-00.1.jsonl",
            "--study", "narratives", "--column", "profession=question",
        ],
    ),
    ("hub dataset name", lambda r, u: ["analyze", "someuser/stories", "--study", "narratives"]),
    ("manifest not JSON", lambda r, u: ["analyze", _damaged(r, manifest="{not json")]),
    ("manifest a JSON list", lambda r, u: ["analyze", _damaged(r, manifest="[1,2]")]),
    ("item attributes not JSON", lambda r, u: ["analyze", _damaged(r, attributes="{oops")]),
    ("item attributes null", lambda r, u: ["analyze", _damaged(r, attributes="null")]),
    (
        "resume on a damaged manifest",
        lambda r, u: ["run", "pronoun-pairs", *MOCK, "--out", _damaged(r, manifest="{oops"),
                      *GENERATE_ONLY],
    ),
    ("zeroed page, analysed", lambda r, u: _zeroed_page(r, "analyze")),
    ("zeroed page, resumed", lambda r, u: _zeroed_page(r, "run")),
    ("results nested 100,000 deep", lambda r, u: _deep_results(r)),
    ("store locked by another program", lambda r, u: _locked(r)),
    ("analysis seed -1", lambda r, u: ["analyze", "g", "--seed", "-1"]),
    ("bootstrap of 10^9", lambda r, u: ["analyze", "g", "--bootstrap", "1000000000"]),
    ("empty results compared", lambda r, u: ["compare", "a", "b", "--out", "c"]),
    ("0-byte store analysed", lambda r, u: ["analyze", "a"]),
    ("export into a FIFO", lambda r, u: _fifo(r)),
    ("YAML alias bomb as a study file", lambda r, u: _alias_bomb(r)),
    (
        "names file with other columns",
        lambda r, u: ["run", "narratives", *MOCK, "--study-option", "names_file=notes.csv",
                      "--out", "n"],
    ),
    (
        "/dev/urandom as names file",
        lambda r, u: ["run", "narratives", *MOCK, "--study-option", "names_file=/dev/urandom",
                      "--out", "n"],
    ),
    (
        "/dev/zero as occupations file",
        lambda r, u: ["run", "more-of-the-same", *MOCK, "--occupations-file", "/dev/zero",
                      "--out", "z"],
    ),
    (
        "/dev/zero as jobs file",
        lambda r, u: ["run", "occugender", "-m", "mock/scoring", "--quick",
                      "--study-option", "jobs_file=/dev/zero", "--out", "z"],
    ),
    (
        "every request failed",
        lambda r, u: ["run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake",
                      "--base-url", SERVERS["failing"], "--out", "run", "--quiet"],
    ),
    (
        "hf:// dataset name",
        lambda r, u: ["analyze", "hf://datasets/someuser/stories", "--study", "narratives"],
    ),
]  # fmt: skip
CASES += more.cases(SERVERS)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            p = Path(folder) / name
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
        out[str(Path(folder).relative_to(root)) + "/"] = (0, 0)
    return out


def _memory(stderr: str) -> tuple[str, int | None]:
    """Standard error without GNU time's lines, and the peak memory they told (MiB)."""
    lines = stderr.splitlines()
    told = [int(line.split()[1]) // 1024 for line in lines if line.startswith("GASP_BENCH_MAX")]
    kept = [line for line in lines if not line.startswith(("GASP_BENCH_MAX", "Command "))]
    return "\n".join(kept), (told[-1] if told else None)


def main() -> int:
    """Run every case; print a row each and the totals; return the number failing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="keep the cases whose name holds this")
    args = parser.parse_args()
    env = {**os.environ, "GASP_BENCH_WRONG_KEY": "wrong", "OPENAI_API_KEY": "wrong"}
    tracebacks = multiline = writes = slow = heavy = broken = failing = 0
    with (
        tempfile.TemporaryDirectory() as made,
        FakeOpenAIServer(api_key="right", models=["fake"]) as server,
        FakeOpenAIServer(api_key="right", models_status=404) as no_list,
        FakeOpenAIServer(fault_rate=1.0, faults=["malformed"], models=["fake"]) as failing_server,
        FakeOpenAIServer(models=["fake"]) as plain,
        contextlib.ExitStack() as hostile,
    ):
        SERVERS["no-list"] = no_list.base_url
        SERVERS["failing"] = failing_server.base_url
        SERVERS["plain"] = plain.base_url
        more.disk.ASKED["plain"] = lambda: plain.requests
        for fault in more.SERVER_FAULTS:
            served = FakeOpenAIServer(
                fault_rate=1.0, faults=[fault], models=["fake"], retry_after_s=more.RETRY_AFTER_S
            )
            SERVERS[fault] = hostile.enter_context(served).base_url
        env["OPENAI_BASE_URL"] = server.base_url
        TEMPLATE["run"] = Path(made) / "g"
        subprocess.run(
            [sys.executable, "-m", "gasp", "run", "pronoun-pairs", *MOCK,
             "--out", str(TEMPLATE["run"]), *GENERATE_ONLY],
            env=env, check=True, capture_output=True,
        )  # fmt: skip
        for name, make in CASES:
            if args.only not in name:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                _files(root)
                command = make(root, server.base_url)  # may write the case's own input
                before = _snapshot(root)
                start = time.monotonic()
                bound = BOUNDS.get(name, BOUND_S)
                timer = ["/usr/bin/time", "-f", "GASP_BENCH_MAXRSS_KB %M"] if TIME.is_file() else []
                try:
                    result = subprocess.run(
                        [*timer, sys.executable, "-m", "gasp", *command],
                        cwd=root, env=env, capture_output=True, text=True, timeout=bound,
                        preexec_fn=more.BEFORE.get(name),
                    )  # fmt: skip
                except subprocess.TimeoutExpired as expired:
                    err = expired.stderr or b""
                    text = err.decode(errors="replace") if isinstance(err, bytes) else err
                    result = subprocess.CompletedProcess(command, -1, "", text)
                seconds = time.monotonic() - start
                result.stderr, mib = _memory(result.stderr)
                lines = result.stderr.strip().splitlines()
                traced = "Traceback" in result.stderr
                one_line = len(lines) == 1 and lines[0].startswith("gasp: error: ")
                wrote = _snapshot(root) != before and name not in WORKS
                after = more.AFTER.get(name)
                problem = after(root, command, env) if after is not None else ""
                while HELD:
                    HELD.pop().release()
                while OPEN:
                    OPEN.pop().close()
                late = seconds >= bound
                code = EXPECTED.get(name, 2)
                one_line = one_line or code == 0  # a case that works says what it did
                big = mib is not None and mib > MEMORY_MIB
                tracebacks += traced
                multiline += not one_line
                writes += wrote
                slow += late
                heavy += big
                broken += bool(problem)
                ok = result.returncode == code and one_line and not (traced or wrote or late or big)
                ok = ok and not problem
                failing += not ok
                shown = lines[0][:100] if lines else "(nothing on standard error)"
                shown = f"{shown} [{problem}]" if problem else shown
                memory = f"{mib:5d} MiB" if mib is not None else "    - MiB"
                print(f"{'ok  ' if ok else 'FAIL'} {name:32s} exit {result.returncode} "
                      f"{seconds:5.1f} s {memory}  {shown}")  # fmt: skip
    print(
        f"tracebacks: {tracebacks}  multi-line refusals: {multiline}  writes: {writes}  "
        f"past their bound: {slow}  past {MEMORY_MIB} MiB: {heavy}  "
        f"not whole after resume: {broken}"
    )
    print("target: 0, 0, 0, 0, 0, 0")
    return failing


if __name__ == "__main__":
    sys.exit(main())
