"""The word -> example generations index embedded in a report.

For each significant word the index keeps up to ``cap`` generations that contain
it, shared as evenly as possible among the groups (the gender named in the
prompt, or, where none was named, the gender the generation was associated
with), with the character spans of each occurrence and the number of matching
generations per group. A word occurs where a whitespace-separated chunk of the text
normalizes (:func:`gasp.text.normalize`) to exactly the word, the same rule the
tokenizer behind every statistic uses, so ``She's`` is highlighted for ``shes``.

Generations are chosen by a seeded random rank shared by all words, so the words
of one report tend to reuse the same generations and the embedded data stays small.
Spans are counted in UTF-16 code units, the unit of JavaScript strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from gasp.associate import associate_counts
from gasp.errors import DataError
from gasp.report._html import plain_text
from gasp.text import count_words, normalize

#: Example groups in display order: (key, label).
EXAMPLE_GROUPS: tuple[tuple[str, str], ...] = (
    ("assoc:F", "associated women"),
    ("assoc:M", "associated men"),
    ("assoc:N", "associated non-binary"),
    ("assoc:none", "not associated"),
    ("named:F", "named women"),
    ("named:M", "named men"),
    ("named:N", "named non-binary"),
)
_GENDERS = frozenset({"F", "M", "N"})
_CHUNK = re.compile(r"\S+")


def _clean_label(value: object) -> str | None:
    if value is None:
        return None
    try:
        if pd.isna(value):  # type: ignore[call-overload]
            return None
    except (TypeError, ValueError):
        return None
    text = str(value).strip()
    return text if text in _GENDERS else None


def sample_genders(
    samples: pd.DataFrame, associated: Iterable[object] | None = None
) -> tuple[list[str | None], list[str | None]]:
    """The named gender (``F``/``M``/``N`` or None) and associated gender of each sample.

    The association is read from ``associated`` or the ``associated_gender`` column,
    and computed with :func:`gasp.associate.associate_genders` when neither is given.
    """
    if "named_gender" in samples:
        named = [_clean_label(v) for v in samples["named_gender"]]
    else:
        named = [None] * len(samples)
    if associated is None and "associated_gender" in samples:
        associated = samples["associated_gender"]
    if associated is None:
        from gasp.associate import associate_genders

        associated = associate_genders(samples["text"].astype(str).tolist()).genders
    assoc = [_clean_label(v) for v in associated]
    if len(assoc) != len(named):
        raise DataError("one associated gender per sample is needed")
    return named, assoc


def group_key(named: str | None, associated: str | None) -> str:
    """The example group: ``named:<G>`` where a gender was named, else ``assoc:<G|none>``."""
    if named is not None:
        return f"named:{named}"
    return f"assoc:{associated if associated is not None else 'none'}"


def word_spans(text: str, word: str) -> list[int]:
    """Flat ``[start, end, start, end, ...]`` UTF-16 spans where ``word`` occurs in ``text``."""
    return _all_spans(text).get(word, [])


def build_example_index(
    samples: pd.DataFrame,
    words: Iterable[str],
    cap: int = 50,
    seed: int = 0,
    per_page: int = 10,
) -> dict[str, Any]:
    """The example index of ``words`` over ``samples`` (JSON-ready).

    ``samples`` needs a ``text`` column; ``subject``, ``template``, ``named_gender``
    and ``associated_gender`` are used when present (the association is computed
    with :func:`gasp.associate.associate_counts` over the counts built here when absent). Returns
    ``{"docs": [[text, subject, template, named, associated], ...], "words": {word:
    {"g": {group: [[doc, spans], ...]}, "n": {group: total}}}, "groups": [...],
    "cap": cap, "per_page": per_page}``.
    """
    if cap < 1:
        raise DataError(f"the example cap must be at least 1, got {cap}")
    wanted = sorted({normalize(str(w)).strip() for w in words} - {""})
    base: dict[str, Any] = {
        "docs": [],
        "words": {},
        "groups": [list(g) for g in EXAMPLE_GROUPS],
        "cap": cap,
        "per_page": per_page,
    }
    if samples is None or samples.empty or not wanted or "text" not in samples:
        return base
    frame = samples[samples["text"].notna()].reset_index(drop=True)
    frame = frame[frame["text"].astype(str).str.strip() != ""].reset_index(drop=True)
    if frame.empty:
        return base
    texts = frame["text"].astype(str).tolist()
    counts = count_words(texts)
    associated = None
    if "associated_gender" not in frame:
        # Reuse the counts: the association would otherwise count every text again.
        associated = associate_counts(texts, counts).genders
    named, assoc = sample_genders(frame, associated)
    groups = np.array([group_key(n, a) for n, a in zip(named, assoc, strict=True)], dtype=object)
    cols = counts.index_of(wanted)
    present = cols >= 0
    if not present.any():
        return base
    words_present = [w for w, ok in zip(wanted, present, strict=True) if ok]
    sub = counts.matrix[:, cols[present]].tocsc()
    rank = np.random.default_rng(seed).permutation(len(texts))

    doc_ids: dict[int, int] = {}
    docs: list[list[Any]] = []
    spans_of: dict[int, dict[str, list[int]]] = {}
    subjects = (
        [plain_text(v) for v in frame["subject"]] if "subject" in frame else [""] * len(texts)
    )
    templates = (
        [plain_text(v) for v in frame["template"]] if "template" in frame else [""] * len(texts)
    )
    out_words: dict[str, Any] = {}
    for j, word in enumerate(words_present):
        rows = sub.indices[sub.indptr[j] : sub.indptr[j + 1]]
        if rows.size == 0:
            continue
        row_groups = groups[rows]
        members = {key: rows[row_groups == key] for key, _ in EXAMPLE_GROUPS}
        members = {k: v for k, v in members.items() if v.size}
        quota = split_cap(cap, {k: int(v.size) for k, v in members.items()})
        entry_g: dict[str, list[Any]] = {}
        for key, in_group in members.items():
            chosen = in_group[np.argsort(rank[in_group], kind="stable")[: quota[key]]]
            items = []
            for r in chosen.tolist():
                if r not in doc_ids:
                    doc_ids[r] = len(docs)
                    docs.append(
                        [texts[r], subjects[r], templates[r], named[r] or "", assoc[r] or ""]
                    )
                    spans_of[r] = _all_spans(texts[r])
                items.append([doc_ids[r], spans_of[r].get(word, [])])
            entry_g[key] = items
        out_words[word] = {"g": entry_g, "n": {k: int(v.size) for k, v in members.items()}}
    base["docs"] = docs
    base["words"] = out_words
    return base


def split_cap(cap: int, sizes: dict[str, int]) -> dict[str, int]:
    """Share ``cap`` examples among groups of ``sizes`` as evenly as their sizes allow."""
    quota: dict[str, int] = {}
    remaining = cap
    order = sorted(sizes, key=lambda k: sizes[k])
    for i, key in enumerate(order):
        share = remaining // (len(order) - i)
        quota[key] = min(sizes[key], share)
        remaining -= quota[key]
    # Hand out what integer division left over, largest groups first.
    for key in reversed(order):
        extra = min(remaining, sizes[key] - quota[key])
        quota[key] += extra
        remaining -= extra
    return quota


def _all_spans(text: str) -> dict[str, list[int]]:
    """Every normalized word of ``text`` with its flat UTF-16 spans."""
    out: dict[str, list[int]] = {}
    offset_units = 0
    last = 0
    for m in _CHUNK.finditer(text):
        offset_units += len(text[last : m.start()].encode("utf-16-le")) // 2
        length = len(m.group().encode("utf-16-le")) // 2
        word = normalize(m.group())
        if word:
            out.setdefault(word, []).extend((offset_units, offset_units + length))
        offset_units += length
        last = m.end()
    return out
