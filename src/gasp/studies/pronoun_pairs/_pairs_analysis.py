"""The analysis of a paired-prompt run: answers, triples, Table 3, professions, examples."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError
from gasp.results import AuditResults
from gasp.studies.pronoun_pairs._examples import ExampleIndex, cell_key
from gasp.studies.pronoun_pairs._metrics import (
    OVERALL,
    IntervalSettings,
    parse_answers,
    profession_table,
    summary_table,
    triples,
)
from gasp.studies.pronoun_pairs._parse import UNPARSED
from gasp.studies.pronoun_pairs._study import PAIRS_KIND
from gasp.studies.pronoun_pairs._templates import PRONOUNS

ANSWERS = "pairs_answers"  # one row per answer: A/B/U, expected, correct
TRIPLES = "pairs_triples"  # one row per (template, pair, sample): he/she/they answers
TABLE3 = "pairs_table3"  # Table 3: incorrect / inconsistent / binary per template + overall
PROFESSIONS = "pairs_professions"  # per profession: inconsistent triples and direction
MODELS = "pairs_models"  # comparison: Table 3 of every run, with a model column
MCNEMAR = "pairs_mcnemar"  # comparison: McNemar's test between runs on the same pairs

ANSWER_COLUMNS = [
    "template",
    "pair_id",
    "profession_a",
    "profession_b",
    "pronoun",
    "sample_index",
    "expected",
    "answer",
    "correct",
    "text",
]
PRONOUN_GROUPS = (
    ("he", "answers with he"),
    ("she", "answers with she"),
    ("they", "answers with they"),
    ("triple", "triples (he | she | they)"),
)
TRIPLE_CELLS = ("triples", "inconsistent", "binary_inconsistent", "triples_with_u")
ANSWER_CELLS = ("answers", "incorrect", "unparsed")
PROFESSION_CELLS = (
    "triples",
    "inconsistent",
    "binary_inconsistent",
    "chosen_under_he",
    "chosen_under_she",
    "chosen_under_they",
)


def _who(answer: str, a: str, b: str) -> str:
    return {"A": f"A ({a})", "B": f"B ({b})"}.get(answer, "U (unparsed)")


def _answer_masks(answers: pd.DataFrame) -> dict[str, pd.Series]:
    return {
        "answers": pd.Series(True, index=answers.index),
        "incorrect": ~answers["correct"].astype(bool),
        "unparsed": answers["answer"] == UNPARSED,
    }


def _triple_masks(trip: pd.DataFrame) -> dict[str, pd.Series]:
    full = trip["complete"]
    return {
        "triples": full,
        "inconsistent": trip["inconsistent"],
        "binary_inconsistent": trip["binary_inconsistent"],
        "triples_with_u": full & trip["has_u"],
    }


def build_examples(answers: pd.DataFrame, trip: pd.DataFrame, cap: int, seed: int) -> dict:
    """The example index behind every number of Table 3 and the profession table."""
    index = ExampleIndex(PRONOUN_GROUPS, cap=cap, seed=seed)
    answer_doc = {}
    for pos, r in enumerate(answers.itertuples(index=False)):
        subject = (
            f"A = {r.profession_a}, B = {r.profession_b} · answer "
            f"{_who(str(r.answer), str(r.profession_a), str(r.profession_b))} · "
            f"expected {r.expected}"
        )
        ident = f"{r.template}/{r.pair_id}/{r.pronoun}#{r.sample_index}"
        answer_doc[pos] = index.add_doc([str(r.text), subject, r.template, r.pronoun, None], ident)
    texts = answers.set_index(["template", "pair_id", "sample_index", "pronoun"])["text"]
    triple_doc = {}
    for pos, t in enumerate(trip.itertuples(index=False)):
        parts = []
        for p in PRONOUNS:
            key = (t.template, t.pair_id, t.sample_index, p)
            text = texts.get(key, "(no answer)")
            parts.append(
                f"[{p} → {getattr(t, p) if isinstance(getattr(t, p), str) else '-'}] {text}"
            )
        subject = (
            f"A = {t.profession_a}, B = {t.profession_b} · he {t.he}, she {t.she}, "
            f"they {t.they} · expected {t.expected}"
        )
        ident = f"{t.template}/{t.pair_id}#{t.sample_index}"
        triple_doc[pos] = index.add_doc(
            ["  |  ".join(parts), subject, t.template, None, None], ident
        )
    apos = pd.Series(range(len(answers)), index=answers.index)
    tpos = pd.Series(range(len(trip)), index=trip.index)
    for template in [*dict.fromkeys(answers["template"]), OVERALL]:
        in_a = (
            answers["template"] == template if template != OVERALL else answers["template"].notna()
        )
        in_t = trip["template"] == template if template != OVERALL else trip["template"].notna()
        for name, mask in _answer_masks(answers).items():
            chosen = answers[in_a & mask]
            groups = {
                p: [answer_doc[i] for i in apos[chosen.index[chosen["pronoun"] == p]]]
                for p in PRONOUNS
            }
            index.add_cell(cell_key("template", template, name), groups)
        for name, mask in _triple_masks(trip).items():
            docs = [triple_doc[i] for i in tpos[trip.index[in_t & mask]]]
            index.add_cell(cell_key("template", template, name), {"triple": docs})
    masks = _triple_masks(trip)
    for side in ("a", "b"):
        letter = side.upper()
        extra = {
            "chosen_under_he": trip["binary_inconsistent"] & (trip["he"] == letter),
            "chosen_under_she": trip["binary_inconsistent"] & (trip["she"] == letter),
            "chosen_under_they": trip["inconsistent"] & (trip["they"] == letter),
        }
        for name in PROFESSION_CELLS:
            mask = masks[name] if name in masks else extra[name]
            chosen = trip[mask & trip["complete"]]
            for profession, part in chosen.groupby(f"profession_{side}"):
                docs = [triple_doc[i] for i in tpos[part.index]]
                index.add_cell(cell_key("profession", profession, name), {"triple": docs})
    return index.build()


def analyze_pairs_frame(
    samples: pd.DataFrame,
    *,
    intervals: IntervalSettings,
    examples_cap: int = 50,
    meta: Mapping[str, Any] | None = None,
) -> AuditResults:
    """Answers, triples, Table 3 and the profession table of ``samples`` (the store's
    samples: template, pair_id, profession_a, profession_b, pronoun, expected,
    sample_index, text)."""
    needed = {"template", "pair_id", "profession_a", "profession_b", "pronoun", "expected", "text"}
    missing = sorted(needed - set(samples.columns))
    if missing:
        raise DataError(f"these samples are not a paired-prompt run (no column {missing[0]!r})")
    if samples.empty:
        raise DataError("the run has no answers to analyse")
    frame = samples.copy()
    if "sample_index" not in frame:
        frame["sample_index"] = 0
    answers = parse_answers(frame)
    trip = triples(answers)
    results = AuditResults(
        tables={
            TABLE3: summary_table(answers, trip, intervals),
            PROFESSIONS: profession_table(trip),
            TRIPLES: trip,
            ANSWERS: answers[ANSWER_COLUMNS].reset_index(drop=True),
        },
        meta=dict(meta or {}),
        examples=build_examples(answers, trip, examples_cap, intervals.seed),
    )
    results.meta["study_kind"] = PAIRS_KIND
    results.meta["kind"] = "run"
    results.meta["settings"] = {
        "bootstrap_resamples": intervals.n_resamples,
        "confidence": intervals.confidence,
        "seed": intervals.seed,
        "interval": intervals.scheme().record(),
        "unparsed_counts_as_incorrect": True,
        "unparsed_is_an_answer_in_consistency": True,
        "examples_per_cell": examples_cap,
        **dict(results.meta.get("settings", {})),
    }
    return results


def summary_lines(results: AuditResults) -> list[str]:
    """Short lines for the terminal: overall shares and the U share."""
    table = results[TABLE3]
    row = table[table["template"] == OVERALL].iloc[0]
    lines = [
        f"{int(row['answers'])} answers, {int(row['triples'])} triples "
        f"({len(table) - 1} templates)",
        f"incorrect {row['incorrect']:.1%}, inconsistent {row['inconsistent']:.1%}, "
        f"binary inconsistent {row['binary_inconsistent']:.1%}",
        f"unparsed (U) share: {row['unparsed']:.1%}",
    ]
    short = cut_short_line(results[TRIPLES]) if TRIPLES in results.tables else None
    return [*lines, short] if short else lines


def cut_short_line(trip: pd.DataFrame) -> str | None:
    """A warning counting the triples cut short (one of their he, she, they answers is
    missing), which the inconsistency shares leave out; None when every one is whole."""
    short = int((~trip["complete"].astype(bool)).sum())
    if short == 0:
        return None
    return (
        f"warning: {short} of {len(trip)} triples cut short (the answer to he, she or they "
        "is missing: a sample limit such as Inspect's --limit, or failed requests) are "
        "left out of the inconsistency shares"
    )


def model_of(manifest: Mapping[str, Any]) -> str:
    """The model name recorded in a manifest ("" when none)."""
    model = manifest.get("model")
    if isinstance(model, Mapping):
        return str(model.get("model_id") or model.get("spec") or model.get("name") or "")
    return str(model or "")


def read_samples(store: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The successful samples and the manifest of a run store."""
    from gasp.store import RunStore

    with RunStore.open(store) as run:
        manifest = run.manifest() if run.has_manifest() else {}
        return run.samples(), manifest
