"""The paired pronoun test and the narrative test on texts a user already has: the
columns each reads, and the notes of everything derived or assumed."""

from __future__ import annotations

from typing import Any

import pandas as pd

from gasp.errors import DataError
from gasp.io import TableRole, TextTable
from gasp.studies.pronoun_pairs._templates import PAIR_TEMPLATES, PRONOUNS

#: The template of stories whose table has no template column.
CUSTOM_TEMPLATE = "custom"

PAIRS_ROLES = (
    TableRole("text", "the model's answer to the paired prompt"),
    TableRole("template", f"the paired template ({', '.join(PAIR_TEMPLATES)})"),
    TableRole("profession_a", "the first profession of the pair"),
    TableRole("profession_b", "the second profession of the pair"),
    TableRole("pronoun", f"the pronoun of the prompt ({', '.join(PRONOUNS)})"),
    TableRole("pair_id", "the pair's number (default: one per profession pair)", False),
    TableRole("expected", "the correct answer, A or B (default: the template's)", False),
    TableRole("sample_index", "the answer's number among repeats (default: 0, 1, ...)", False),
    TableRole("prompt", "the prompt sent (kept for the examples)", False),
)

NARRATIVE_ROLES = (
    TableRole("text", "the story"),
    TableRole("profession", "the profession of the story's opening"),
    TableRole(
        "template",
        "the opening's id (once, story, saturday, ...)",
        False,
        when_missing=f"no template column: every story is of template {CUSTOM_TEMPLATE!r}",
    ),
    TableRole("sample_index", "the story's number per cell (default: 0, 1, ...)", False),
    TableRole("prompt", "the opening sent (kept for the examples)", False),
)


def pairs_frame(texts: TextTable) -> tuple[pd.DataFrame, list[str]]:
    """The answers with every column the analysis reads; notes of what was derived."""
    frame = texts.frame.copy()
    notes: list[str] = []
    unknown = sorted(set(frame["pronoun"].astype(str)) - set(PRONOUNS))
    if unknown:
        raise DataError(
            f"{texts.source}: pronouns outside {', '.join(PRONOUNS)}: {', '.join(unknown)}"
        )
    if "expected" not in frame:
        stray = sorted(set(frame["template"].astype(str)) - set(PAIR_TEMPLATES))
        if stray:
            raise DataError(
                f"{texts.source}: templates {', '.join(stray)} are not the study's "
                f"({', '.join(PAIR_TEMPLATES)}); give their correct answers with an "
                f"expected column (A or B)"
            )
        frame["expected"] = [PAIR_TEMPLATES[str(t)].expected for t in frame["template"]]
        notes.append("no expected column: each template's correct answer taken from the study")
    if "pair_id" not in frame:
        keys = list(zip(frame["profession_a"], frame["profession_b"], strict=True))
        frame["pair_id"] = pd.factorize(pd.Series(keys, dtype=object))[0]
        count = frame["pair_id"].nunique()
        notes.append(f"no pair_id column: {count} pairs numbered by their professions")
    if "sample_index" not in frame:
        frame["sample_index"] = frame.groupby(["template", "pair_id", "pronoun"]).cumcount()
    return frame, notes


def narrative_frame(texts: TextTable) -> pd.DataFrame:
    """The stories with every column the analysis reads."""
    frame = texts.frame.copy()
    if "template" not in frame:
        frame["template"] = CUSTOM_TEMPLATE
    frame["template"] = frame["template"].astype(str)
    frame["profession"] = frame["profession"].astype(str)
    return frame


def record_input(meta: dict[str, Any], texts: TextTable, notes: list[str]) -> None:
    """Save what was read and every note in the results' settings."""
    texts.notes[:] = notes
    meta.setdefault("settings", {})["input"] = texts.record()
    meta["source_table"] = texts.source


def text_meta(texts: TextTable) -> dict[str, Any]:
    """The results' metadata of a user's texts (no manifest, no store)."""
    return {"manifest": None, "store": None, "model_id": texts.model()}
