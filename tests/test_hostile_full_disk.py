"""A disk that fills while gasp writes, made real for one process: its files capped with
``RLIMIT_FSIZE`` (what ``ulimit -f`` sets; Python ignores ``SIGXFSZ``, so a write past
the cap fails with ``EFBIG`` as a full disk fails with ``ENOSPC``). Wherever the cap is
met (the store's creation, its plan, its answers, the report), the command ends in one
line with exit status 1, leaves no temporary file behind, and the same command without
the cap completes the run with every stored answer kept."""

from __future__ import annotations

import errno
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gasp.errors import RunFailed, refused_write
from gasp.results import replace_with
from gasp.store import damaged_store

RUN = ["run", "pronoun-pairs", "-m", "mock/personas", "--quick", "--quiet"]


def _gasp(cwd: Path, *args: str, cap_kib: int | None = None) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        if cap_kib is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (cap_kib * 1024, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-m", "gasp", *args], cwd=cwd, preexec_fn=cap,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def _answers(store: Path) -> dict[tuple[str, int], str]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "samples" not in names:
            return {}
        rows = conn.execute("SELECT item_id, sample_index, text FROM samples WHERE error IS NULL")
        return {(str(item), int(index)): str(text) for item, index, text in rows}
    finally:
        conn.close()


def _one_failure_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith("gasp: error: ") and "Traceback" not in done.stderr
    assert "is the disk full" in lines[0]
    return lines[0]


@pytest.mark.parametrize("cap_kib", [40, 80, 100, 200])
def test_a_run_whose_disk_fills_fails_in_one_line_and_resumes_whole(
    tmp_path: Path, cap_kib: int
) -> None:
    args = [*RUN, "--n", "10", "--out", "run"]
    _one_failure_line(_gasp(tmp_path, *args, cap_kib=cap_kib))
    store = tmp_path / "run" / "run.sqlite"
    before = _answers(store)
    assert not list(tmp_path.rglob("*.tmp"))
    done = _gasp(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    after = _answers(store)
    assert len(after) == 120 and all(after[key] == text for key, text in before.items())


def test_a_report_the_disk_cannot_hold_names_its_file_and_leaves_no_temporary(
    tmp_path: Path,
) -> None:
    done = _gasp(tmp_path, *RUN, "--out", "run", "--skip", "report")
    assert done.returncode == 0, done.stderr
    line = _one_failure_line(_gasp(tmp_path, "report", "run", cap_kib=40))
    assert "File too large: run/report/report.html" in line
    assert not list(tmp_path.rglob("*.tmp")) and not (tmp_path / "run/report/report.html").exists()
    assert _gasp(tmp_path, "report", "run").returncode == 0


def test_refused_writes_are_told_apart_from_other_errors() -> None:
    assert refused_write(OSError(errno.EFBIG, "File too large"))
    assert refused_write(OSError(errno.ENOSPC, "No space left on device"))
    assert not refused_write(OSError(errno.EACCES, "Permission denied"))
    assert refused_write(sqlite3.OperationalError("database or disk is full"))
    assert not refused_write(sqlite3.OperationalError("database is locked"))
    full = damaged_store(Path("run.sqlite"), sqlite3.OperationalError("database or disk is full"))
    assert isinstance(full, RunFailed) and full.exit_code == 1
    damaged = damaged_store(Path("run.sqlite"), sqlite3.DatabaseError("file is not a database"))
    assert not isinstance(damaged, RunFailed) and "damaged" in str(damaged)


def test_a_refused_write_through_a_temporary_file_names_the_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"

    def write(tmp: Path) -> None:
        tmp.write_text("partial")
        raise OSError(errno.EFBIG, "File too large")

    with pytest.raises(OSError) as raised:
        replace_with(target, write)
    assert raised.value.filename == str(target) and raised.value.errno == errno.EFBIG
    assert list(tmp_path.iterdir()) == []


def test_a_shell_cap_works_the_same(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    script = f"ulimit -f 80; exec {sys.executable} -m gasp {' '.join(RUN)} --out run"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    _one_failure_line(done)
