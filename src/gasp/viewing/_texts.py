"""The texts behind a number, one page at a time, read from run stores and saved tables.

Every query asks SQLite for one page (``LIMIT`` one row more than shown, so the page
knows whether another follows) and never counts the whole run, so the first page of a
run of 100,000 generations comes back at once. A word occurs in a text where a
whitespace-separated chunk normalizes to it, the rule of every word statistic
(:func:`gasp.text.normalize`).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError
from gasp.text import normalize
from gasp.viewing._store import read_only

#: Texts per page.
PAGE_SIZE = 25
_CHUNK = re.compile(r"\S+")


@dataclass(frozen=True)
class Text:
    """One text shown: what it answers (labels), the text, the spans to highlight."""

    labels: dict[str, Any]
    text: str
    marks: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Page:
    """One page of rows (texts, or plain rows of values) and whether another follows."""

    number: int
    rows: list[Any] = field(default_factory=list)
    has_next: bool = False


def word_marks(text: str, word: str) -> tuple[tuple[int, int], ...]:
    """Spans of the whitespace-separated chunks of ``text`` that normalize to ``word``."""
    return tuple(
        (m.start(), m.end()) for m in _CHUNK.finditer(text) if normalize(m.group()) == word
    )


def name_marks(text: str, name: str) -> tuple[tuple[int, int], ...]:
    """Spans where the name ``name`` occurs in ``text`` as a whole word."""
    if not name:
        return ()
    pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    return tuple((m.start(), m.end()) for m in pattern.finditer(text))


def _has_word(text: str | None, word: str) -> int:
    """1 where a whitespace-separated chunk of ``text`` normalizes to ``word``
    (normalizing the whole text keeps its whitespace, so its chunks are the chunks')."""
    return int(bool(text) and word in normalize(text or "").split())


def _prefilter(word: str) -> str:
    """A ``LIKE`` pattern every text using ``word`` matches (its letters in order, anything
    between them), which SQLite checks before the exact test; ``%`` for a word with letters
    beyond ASCII, whose case ``LIKE`` does not fold."""
    if not word.isascii():
        return "%"
    return "%" + "%".join(word) + "%"


def _labels(attributes: str | None, sample_index: int) -> dict[str, Any]:
    try:
        labels = json.loads(attributes) if attributes else {}
    except json.JSONDecodeError:
        labels = {}
    if not isinstance(labels, dict):
        labels = {}
    return {**labels, "sample": sample_index}


def word_page(store: Path, word: str, number: int = 1, size: int = PAGE_SIZE) -> Page:
    """Page ``number`` (from 1) of the generations of ``store`` that use ``word``."""
    word = normalize(word)
    if not word:
        raise DataError("a word needs letters")
    offset = (max(number, 1) - 1) * size
    with read_only(store) as conn:
        conn.create_function("gasp_has_word", 2, _has_word, deterministic=True)
        rows = conn.execute(
            "SELECT s.text, i.attributes, s.sample_index FROM samples s "
            "JOIN items i ON i.item_id = s.item_id "
            "WHERE s.stop_reason != 'error' AND s.text LIKE ? AND gasp_has_word(s.text, ?) "
            "ORDER BY s.id LIMIT ? OFFSET ?",
            (_prefilter(word), word, size + 1, offset),
        ).fetchall()
    texts = [Text(_labels(a, i), t, word_marks(t, word)) for t, a, i in rows[:size]]
    return Page(number, texts, len(rows) > size)


@functools.lru_cache(maxsize=32)
def _protagonists(results: Path, mtime_ns: int) -> dict[tuple[str, str, int], tuple[str, str]]:
    """(template, profession, sample index) -> (name, gender) from the saved stories."""
    del mtime_ns  # part of the cache key only
    frame = pd.read_csv(
        results / "narrative_stories.csv",
        usecols=["template", "profession", "sample_index", "name", "gender"],
        keep_default_na=False,
    )
    return {
        (str(t), str(p), int(i)): (str(n), str(g))
        for t, p, i, n, g in frame.itertuples(index=False, name=None)
    }


def stories_page(
    store: Path, results: Path, gender: str | None = None, number: int = 1, size: int = PAGE_SIZE
) -> Page:
    """Page ``number`` of a narratives run's stories, the protagonist's name marked;
    ``gender`` (``F``, ``M``, ``unknown``) keeps the stories whose protagonist has it."""
    table = results / "narrative_stories.csv"
    if not table.is_file():
        raise DataError("this run saved no narrative_stories table")
    names = _protagonists(results, table.stat().st_mtime_ns)
    offset = (max(number, 1) - 1) * size
    with read_only(store) as conn:
        items = {
            item: json.loads(attrs or "{}")
            for item, attrs in conn.execute("SELECT item_id, attributes FROM items")
        }
        if gender:
            keys = [k for k, (_, g) in names.items() if g == gender]
            by_item: dict[tuple[str, str], str] = {
                (str(a.get("template")), str(a.get("profession"))): i for i, a in items.items()
            }
            wanted = [(by_item.get(k[:2]), k[2]) for k in keys]
            wanted = [w for w in wanted if w[0] is not None]
            chosen = wanted[offset : offset + size + 1]
            rows = []
            for item_id, index in chosen[:size]:
                found = conn.execute(
                    "SELECT text, sample_index, item_id FROM samples "
                    "WHERE item_id = ? AND sample_index = ? AND stop_reason != 'error'",
                    (item_id, index),
                ).fetchone()
                if found is not None:
                    rows.append(found)
            more = len(chosen) > size
        else:
            rows = conn.execute(
                "SELECT s.text, s.sample_index, s.item_id FROM samples s "
                "JOIN items i ON i.item_id = s.item_id WHERE s.stop_reason != 'error' "
                "ORDER BY i.ordinal, s.sample_index LIMIT ? OFFSET ?",
                (size + 1, offset),
            ).fetchall()
            more = len(rows) > size
            rows = rows[:size]
    texts = []
    for text, index, item_id in rows:
        attrs = items.get(item_id, {})
        key = (str(attrs.get("template")), str(attrs.get("profession")), int(index))
        name, who = names.get(key, ("", "not analysed"))
        labels = {**attrs, "sample": index, "protagonist": name or "(none)", "gender": who}
        texts.append(Text(labels, text or "", name_marks(text or "", name)))
    return Page(number, texts, more)


def job_page(store: Path, job: str, number: int = 1, size: int = 100) -> Page:
    """Page ``number`` of the scored expressions after an OccuGender job's prompts: one
    row per (prompt, candidate) with its log-probability and probability."""
    offset = (max(number, 1) - 1) * size
    with read_only(store) as conn:
        rows = conn.execute(
            "SELECT i.prompt, json_extract(i.attributes, '$.task'), "
            "json_extract(i.attributes, '$.template'), json_extract(i.attributes, '$.condition'),"
            " c.sample_index, c.candidate, c.logprob, c.status FROM scores c "
            "JOIN items i ON i.item_id = c.item_id "
            "WHERE json_extract(i.attributes, '$.job') = ? "
            "ORDER BY i.ordinal, c.sample_index, c.id LIMIT ? OFFSET ?",
            (job, size + 1, offset),
        ).fetchall()
    out = []
    for prompt, task, template, condition, index, candidate, logprob, status in rows[:size]:
        prob = math.exp(logprob) if isinstance(logprob, float) else None
        out.append(
            {
                "task": task,
                "template": template,
                "condition": condition,
                "prompt": prompt,
                "sample": index,
                "expression": candidate,
                "logprob": logprob,
                "probability": prob,
                "status": status,
            }
        )
    return Page(number, out, len(rows) > size)


_PAIR_KEYS = ["template", "pair_id", "pronoun", "sample_index"]


@functools.lru_cache(maxsize=16)
def _answers(results: Path, mtime_ns: int) -> pd.DataFrame:
    del mtime_ns  # part of the cache key only
    return pd.read_csv(results / "pairs_answers.csv", keep_default_na=False)


def pairs_page(
    left: Path, right: Path, number: int = 1, size: int = PAGE_SIZE, *, differ: bool = False
) -> Page:
    """Page ``number`` of two pronoun-pairs runs' answers to the same prompts, side by
    side (``left`` and ``right`` are their results folders); ``differ`` keeps the prompts
    the two answered differently."""
    frames = []
    for results in (left, right):
        table = results / "pairs_answers.csv"
        if not table.is_file():
            raise DataError(f"{results} saved no pairs_answers table")
        frames.append(_answers(results, table.stat().st_mtime_ns))
    a, b = frames
    keep = ["expected", "answer", "correct", "text"]
    joined = a[[*_PAIR_KEYS, "profession_a", "profession_b", *keep]].merge(
        b[[*_PAIR_KEYS, *keep]], on=_PAIR_KEYS, suffixes=("_left", "_right")
    )
    if differ:
        joined = joined[joined["answer_left"].astype(str) != joined["answer_right"].astype(str)]
    offset = (max(number, 1) - 1) * size
    part = joined.iloc[offset : offset + size + 1]
    return Page(number, part.iloc[:size].to_dict(orient="records"), len(part) > size)


def significant_words(results: Path) -> list[str]:
    """The words of a run's word browser (its ``examples.json``), in its order (keys that
    are not single words, such as the narratives' groups of stories, are left out)."""
    path = results / "examples.json"
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return []
    words = data.get("words") if isinstance(data, dict) else None
    if not isinstance(words, dict):
        return []
    return [str(w) for w in words if str(w) and normalize(str(w)) == str(w)]


def jobs(results: Path) -> pd.DataFrame:
    """An OccuGender run's ``jobs`` table (empty where it saved none)."""
    path = results / "jobs.csv"
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


__all__ = [
    "PAGE_SIZE",
    "Page",
    "Text",
    "job_page",
    "jobs",
    "name_marks",
    "pairs_page",
    "significant_words",
    "stories_page",
    "word_marks",
    "word_page",
]
