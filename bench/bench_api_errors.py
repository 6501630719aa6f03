"""Bad calls of the public API: each must be one ``GaspError`` line naming the keyword,
raised before anything is written.

Runs every case in a fresh working folder beside two small finished runs (mock models),
and prints one row per case: the function, the call, the error's class, whether it is a
``GaspError`` (and a ``ValueError``/``TypeError`` where it fits), whether its message is
one line, and whether any file changed. ``tests/test_api_errors.py`` runs the same cases.

    .venv/bin/python bench/bench_api_errors.py
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import gasp


@dataclass(frozen=True)
class Case:
    """One bad call: what it does wrong, the call, and a word its message must hold."""

    what: str
    call: Callable[[Path], Any]
    says: str


def _runs(root: Path) -> tuple[Path, Path]:
    """Two finished quick runs of one study on mock models."""
    a, b = root / "a", root / "b"
    gasp.run("pronoun-pairs", "mock/personas", out=a, quick=True)
    gasp.run("pronoun-pairs", "mock/echo", out=b, quick=True)
    return a, b


def cases(a: Path, b: Path) -> list[Case]:
    """The bad calls (``a`` and ``b``: finished runs; each call gets a working folder)."""
    pp, mock = "pronoun-pairs", "mock/personas"
    two = ["a=mock/personas", "b=mock/personas"]
    frame = pd.DataFrame({"text": ["She is kind."], "gender": ["F"]})
    r: Callable[..., Any] = gasp.run
    an: Callable[..., Any] = gasp.analyze
    co: Callable[..., Any] = gasp.compare
    au: Callable[..., Any] = gasp.audit
    pl: Callable[..., Any] = gasp.plan_audit

    def file_at(w: Path) -> Path:
        return w / "a-file"  # each working folder holds it before the call

    return [
        Case("seed is text", lambda w: r(pp, mock, out=w / "o", seed="x"), "seed"),
        Case("seed negative", lambda w: r(pp, mock, out=w / "o", seed=-1), "seed"),
        Case("seed is a bool", lambda w: r(pp, mock, out=w / "o", seed=True), "seed"),
        Case("seed too large", lambda w: r(pp, mock, out=w / "o", seed=2**40), "seed"),
        Case("quick is text", lambda w: r(pp, mock, out=w / "o", quick="yes"), "quick"),
        Case("quiet is a number", lambda w: r(pp, mock, out=w / "o", quiet=1), "quiet"),
        Case("study is a number", lambda w: r(3, mock, out=w / "o"), "study"),
        Case("model is None", lambda w: r(pp, None, out=w / "o"), "model"),
        Case("out is a number", lambda w: r(pp, mock, out=5), "out"),
        Case("out is a file", lambda w: r(pp, mock, out=file_at(w)), "out"),
        Case("unknown step", lambda w: r(pp, mock, out=w / "o", skip="reports"), "skip"),
        Case("step not text", lambda w: r(pp, mock, out=w / "o", skip=[1]), "skip"),
        Case(
            "study_options not KEY=VALUE",
            lambda w: r(pp, mock, out=w / "o", study_options=["n"]),
            "KEY=VALUE",
        ),
        Case(
            "study_options a number",
            lambda w: r(pp, mock, out=w / "o", study_options=5),
            "study_options",
        ),
        Case(
            "model_options a number",
            lambda w: r(pp, mock, out=w / "o", model_options=3),
            "model_options",
        ),
        Case("level above 1", lambda w: r(pp, mock, out=w / "o", level=2), "level"),
        Case("level is text", lambda w: r(pp, mock, out=w / "o", level="0.05"), "level"),
        Case("level and fdr", lambda w: r(pp, mock, out=w / "o", level=0.1, fdr=0.05), "level"),
        Case("unknown keyword", lambda w: r(pp, mock, out=w / "o", colour="red"), "colour"),
        Case("keyword misspelt", lambda w: r(pp, mock, out=w / "o", max_token=5), "max_tokens"),
        Case("n zero", lambda w: r(pp, mock, out=w / "o", n=0), "n"),
        Case(
            "max_tokens negative", lambda w: r(pp, mock, out=w / "o", max_tokens=-1), "max_tokens"
        ),
        Case(
            "temperature negative",
            lambda w: r(pp, mock, out=w / "o", temperature=-1.0),
            "temperature",
        ),
        Case(
            "examples_per_word zero",
            lambda w: r(pp, mock, out=w / "o", examples_per_word=0),
            "examples_per_word",
        ),
        Case("bootstrap negative", lambda w: r(pp, mock, out=w / "o", bootstrap=-5), "bootstrap"),
        Case("unknown study", lambda w: r("no-such-study", mock, out=w / "o"), "no-such-study"),
        Case("unknown provider", lambda w: r(pp, "nosuch/x", out=w / "o"), "nosuch"),
        Case(
            "unknown study option",
            lambda w: r(pp, mock, out=w / "o", study_options={"nothing": 1}),
            "nothing",
        ),
        Case(
            "study option out of range",
            lambda w: r(pp, mock, out=w / "o", study_options={"pairs": 0}),
            "pairs",
        ),
        Case(
            "unknown occupation",
            lambda w: r("more-of-the-same", mock, out=w / "o", occupations="astronaut-chef"),
            "astronaut-chef",
        ),
        Case(
            "unknown probe embeddings",
            lambda w: r("more-of-the-same", mock, out=w / "o", probe_embeddings="nope"),
            "nope",
        ),
        Case(
            "unknown k rule",
            lambda w: r("more-of-the-same", mock, out=w / "o", k_rule="bogus"),
            "k_rule",
        ),
        Case("analyze a number", lambda w: an(3), "source"),
        Case("analyze a missing path", lambda w: an(w / "missing"), "missing"),
        Case("analyze misspelt keyword", lambda w: an(a, fdrr=0.05), "fdrr"),
        Case("analyze a DataFrame, no study", lambda w: an(frame), "study"),
        Case("analyze a DataFrame, no out", lambda w: an(frame, study="narratives"), "out"),
        Case("analyze level 1.5", lambda w: an(a, level=1.5), "level"),
        Case("analyze columns a list", lambda w: an(a, columns=["text"]), "columns"),
        Case("analyze seed negative", lambda w: an(a, seed=-1), "seed"),
        Case("analyze as another study", lambda w: an(a, study="narratives"), "narratives"),
        Case("compare a string", lambda w: co(str(a), out=w / "c"), "paths"),
        Case("compare one run", lambda w: co([a], out=w / "c"), "two"),
        Case("compare into a file", lambda w: co([a, b], out=file_at(w)), "out"),
        Case("compare level 0", lambda w: co([a, b], out=w / "c", level=0), "level"),
        Case("compare a missing run", lambda w: co([a, w / "missing"], out=w / "c"), "missing"),
        Case("compare labels a string", lambda w: co([a, b], out=w / "c", labels=3), "labels"),
        Case("audit unknown study", lambda w: au(two, "nope", out=w / "au"), "nope"),
        Case("audit level 2", lambda w: au(two, pp, out=w / "au", level=2), "level"),
        Case("audit seed text", lambda w: au(two, pp, out=w / "au", seed="x"), "seed"),
        Case("audit quick text", lambda w: au(two, pp, out=w / "au", quick="yes"), "quick"),
        Case("audit unknown keyword", lambda w: au(two, pp, out=w / "au", sead=3), "sead"),
        Case(
            "audit model_options a number",
            lambda w: au(two, pp, out=w / "au", model_options=5),
            "model_options",
        ),
        Case("audit unknown baseline", lambda w: au(two, pp, "c", out=w / "au"), "c"),
        Case(
            "audit unknown model",
            lambda w: au(["a=mock/personaz", "b=mock/personas"], pp, out=w / "au"),
            "personaz",
        ),
        Case(
            "plan unknown metric",
            lambda w: pl(two, "narratives", "a", out=w / "p", detect=["narratives:nope=0.1"]),
            "nope",
        ),
    ]


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root``: size and modification time."""
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


@dataclass(frozen=True)
class Outcome:
    """What one bad call did."""

    case: Case
    error: str
    gasp_error: bool
    one_line: bool
    names_it: bool
    wrote: list[str]

    @property
    def ok(self) -> bool:
        """A one-line GaspError naming what was wrong, and nothing written."""
        return self.gasp_error and self.one_line and self.names_it and not self.wrote


def check(case: Case, root: Path, work: Path) -> Outcome:
    """Make the call in ``work`` (the current folder meanwhile) and see what it did."""
    work.mkdir(parents=True)
    (work / "a-file").write_text("x", encoding="utf-8")
    before = _tree(root)
    message, kind, is_gasp = "", "none", False
    here = Path.cwd()
    os.chdir(work)
    try:
        with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
            case.call(work)
    except Exception as exc:  # every outcome is recorded, not raised
        message, kind, is_gasp = str(exc), type(exc).__name__, isinstance(exc, gasp.GaspError)
    finally:
        os.chdir(here)
    after = _tree(root)
    wrote = sorted(k for k in after if before.get(k) != after[k])
    return Outcome(case, f"{kind}: {message}", is_gasp, "\n" not in message and bool(message),
                   case.says in message, wrote)  # fmt: skip


def run_cases(root: Path) -> list[Outcome]:
    """Every case, each in a working folder of its own under ``root``."""
    a, b = _runs(root / "runs")
    return [check(c, root, root / f"w{i:02d}") for i, c in enumerate(cases(a, b))]


def main() -> int:
    """Print the table; exit 1 when a case fails."""
    with tempfile.TemporaryDirectory() as folder:
        outcomes = run_cases(Path(folder))
    print(f"{'case':34} {'GaspError':>9} {'1 line':>6} {'names':>5} {'wrote':>5}  error")
    for o in outcomes:
        print(f"{o.case.what:34} {o.gasp_error!s:>9} {o.one_line!s:>6} {o.names_it!s:>5} "
              f"{len(o.wrote):>5}  {o.error[:110]}")  # fmt: skip
    good = sum(o.ok for o in outcomes)
    print(f"{good} of {len(outcomes)} bad calls: one GaspError line naming it, nothing written")
    return 0 if good == len(outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
