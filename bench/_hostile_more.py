"""More hostile cases of ``bench/bench_hostile.py``: servers whose answers no client
should read whole or cannot read as an answer, a zip bomb named like an Inspect AI log,
and a table of a million rows (which is not refused: it must be analysed within its
time and memory bound)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import _hostile_disk as disk

#: Servers whose every answer is broken, and the case of each.
BROKEN = {
    "truncated": "body cut short of its length",
    "html": "HTML page with status 200",
    "null_content": "content: null",
    "tool_calls": "tool calls instead of text",
}
#: Fault kinds of the fake server, each served by one server of its own (by name).
SERVER_FAULTS = ("oversized", "gzip_bomb", "trickle", "rate_limit", *BROKEN)
#: The ``Retry-After`` of the rate-limiting server: a day and more.
RETRY_AFTER_S = 100_000.0
#: The rows of the large table.
ROWS = 1_000_000


def zip_bomb(root: Path) -> list[str]:
    """A 2 MB ``.eval`` whose first member decodes to 2 GiB of zeros."""
    with (
        zipfile.ZipFile(root / "bomb.eval", "w", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("_journal/start.json", "w", force_zip64=True) as member,
    ):
        block = bytes(2**24)
        for _ in range(128):
            member.write(block)
    return ["analyze", "bomb.eval", "--study", "narratives"]


def zero_subjects(root: Path) -> list[str]:
    """A study file whose subjects are read from ``/dev/zero``."""
    (root / "zero.yaml").write_text(
        "name: zero\nsubjects_file: /dev/zero\ntemplates:\n  p: 'Describe [ARTICLE] [OCCUPATION]'\n"
    )
    return ["run", "zero.yaml", "-m", "mock/personas", "--quick", "--out", "z"]


def million_rows(root: Path) -> list[str]:
    """A CSV of a million short stories, analysed as narratives."""
    names = ("Sarah", "Tom", "Maria", "James", "Alex")
    jobs = ("nurse", "plumber", "secretary", "engineer")
    with (root / "big.csv").open("w") as out:
        out.write("text,profession\n")
        for i in range(ROWS):
            out.write(f"{names[i % 5]} was a {jobs[i % 4]}. She worked.,{jobs[i % 4]}\n")
    return ["analyze", "big.csv", "--study", "narratives", "--out", "big"]


def served(fault: str, servers: dict[str, str], *extra: str) -> list[str]:
    """The quick pronoun pairs against the server of ``fault``."""
    return ["run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake", "--base-url",
            servers[fault], "--out", "run", "--quiet", *extra]  # fmt: skip


def _served(fault: str, servers: dict[str, str]) -> Callable[[Path, str], list[str]]:
    return lambda r, u: served(fault, servers)


def cases(servers: dict[str, str]) -> list[tuple[str, Callable[[Path, str], list[str]]]]:
    """The cases, in the form of ``bench_hostile.CASES``."""
    return [
        ("answers of 100 MB", lambda r, u: served("oversized", servers)),
        ("gzip-bomb answers", lambda r, u: served("gzip_bomb", servers)),
        (
            "a byte a second",
            lambda r, u: served("trickle", servers, "--request-deadline", "10"),
        ),
        (
            "429 with Retry-After 100000",
            lambda r, u: served("rate_limit", servers, "--request-deadline", "20"),
        ),
        *[(case, _served(fault, servers)) for fault, case in BROKEN.items()],
        (disk.CASE, lambda r, u: disk.command(servers)),
        ("zip bomb named .eval", lambda r, u: zip_bomb(r)),
        ("/dev/zero as subjects file", lambda r, u: zero_subjects(r)),
        ("table of a million rows", lambda r, u: million_rows(r)),
    ]


#: What each case ends with when it is not 2: a run whose every request failed (1), a
#: table analysed (0).
EXPECTED = {
    "answers of 100 MB": 1,
    "gzip-bomb answers": 1,
    "a byte a second": 1,
    "429 with Retry-After 100000": 1,
    **dict.fromkeys(BROKEN.values(), 1),
    disk.CASE: 1,
    "table of a million rows": 0,
}
#: Cases that do their work (their files are not writes).
WORKS = frozenset(EXPECTED)
#: What runs in a case's process before it starts (its files capped).
BEFORE = {disk.CASE: disk.cap_files}
#: Checks after a case: what went wrong, or "" (the capped run resumed whole).
AFTER = {disk.CASE: disk.check}
#: Seconds each may take.
BOUNDS = {
    "a byte a second": 60.0,
    "429 with Retry-After 100000": 60.0,
    "table of a million rows": 600.0,
}
