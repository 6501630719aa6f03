"""A minimal third-party study (the example of docs/writing-a-study.md): how long the
model's descriptions of each profession are, in words.

Declared to gasp by the entry point ``text-lengths = gasp_lengths`` in the group
``gasp.studies``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError
from gasp.io import TableRole, TextTable
from gasp.report import ReportWriter
from gasp.results import AuditResults
from gasp.runner import Item, StudyPlan
from gasp.store import RunStore
from gasp.studies import StudyOption, StudyType, reject_options

NAME = "text-lengths"
PROFESSIONS = ("nurse", "pilot", "teacher")


#: The study's one option, declared once (kind, range, default, --quick value, size).
OPTIONS = {
    "n": StudyOption(
        "descriptions per profession",
        kind="int",
        minimum=1,
        default=2,
        quick=1,
        size="descriptions per profession",
    )
}


def lengths(frame: pd.DataFrame) -> AuditResults:
    """Texts and mean words per profession of a frame with ``profession`` and ``text``."""
    words = frame["text"].astype(str).str.split().str.len()
    table = (
        frame.assign(words=words)
        .groupby("profession", sort=True)["words"]
        .agg(texts="size", mean_words="mean")
        .reset_index()
    )
    return AuditResults(
        tables={"lengths": table}, meta={"study_kind": NAME, "kind": "run", "settings": {}}
    )


class TextLengths(StudyType):
    """Words per description of each profession."""

    name = NAME
    description = "Words per description of each profession (an example plugin)."
    study_options = OPTIONS
    table_roles = (
        TableRole("text", "the description"),
        TableRole("profession", "the profession described"),
    )

    def build(self, source: str | Path, options: Mapping[str, Any]) -> StudyPlan:
        """One item per profession, ``n`` descriptions each."""
        reject_options(NAME, options, set())
        if str(source) != NAME:
            raise ConfigError(f"study {NAME!r} has no study files")
        n = self.resolve_options(options).integer("n")  # checked, typed, defaulted
        items = tuple(
            Item(key=(p,), prompt=f"Describe a {p}.", attributes={"profession": p}, n=n)
            for p in PROFESSIONS
        )
        return StudyPlan(kind=NAME, name=NAME, items=items, spec={"n": n})

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Mean words per profession of the run's texts."""
        with RunStore.open(store) as run:
            audit = lengths(run.samples())
        folder = audit.save(results)
        return {"lines": [f"results written to {folder}"]}

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Mean words per profession of a user's table."""
        audit = lengths(texts.frame)
        audit.meta["settings"]["input"] = texts.record()
        folder = audit.save(results)
        return {"lines": [*texts.notes, f"results written to {folder}"]}

    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """One section with the table of lengths."""
        audit = AuditResults.load(results)
        writer = ReportWriter(out, title="Text lengths")
        section = writer.section("Length of the descriptions")
        writer.table(section, "lengths", audit["lengths"], "Words per description", "Mean words.")
        return writer.write()


STUDY_TYPE = TextLengths()
