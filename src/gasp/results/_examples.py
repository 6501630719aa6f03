"""The word -> example generations index of a report's word browser, chosen at analysis time.

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

The analysis saves the index with its results (``examples.json``); the report embeds
it, keeping at most its own ``examples_per_word`` per word with :func:`trim_examples`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.text import DocTermCounts, count_words, normalize

#: Example generations kept per significant word unless a run says otherwise.
EXAMPLES_PER_WORD = 50

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


def plain_text(value: object) -> str:
    """``value`` as text, with None and missing values (NaN, NA, NaT) blank."""
    if value is None:
        return ""
    try:
        if pd.isna(value):  # type: ignore[call-overload]
            return ""
    except (TypeError, ValueError):
        pass
    return str(value)


def sample_id(row: Mapping[str, Any]) -> str:
    """The id of a generation: its ``item_id`` and sample index when the row has an item id,
    else ``template/subject/condition/sample_index``."""
    index = plain_text(row.get("sample_index"))
    item = plain_text(row.get("item_id"))
    if item:
        return f"{item}#{index}" if index else item
    parts = [plain_text(row.get(k)) for k in ("template", "subject", "condition")]
    return "/".join([*parts, index])


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
    samples: pd.DataFrame | None,
    words: Iterable[str],
    cap: int = 50,
    seed: int = 0,
    per_page: int = 10,
    counts: DocTermCounts | None = None,
) -> dict[str, Any]:
    """The example index of ``words`` over ``samples`` (JSON-ready).

    ``samples`` needs a ``text`` column; ``subject``, ``template``, ``named_gender``
    and ``associated_gender`` are used when present (the association is computed
    with :func:`gasp.associate.associate_counts` over the counts built here when absent),
    and ``item_id``, ``condition`` and ``sample_index`` name each generation (see
    :func:`sample_id`). Returns ``{"docs": [[text, subject, template, named,
    associated], ...], "sample_ids": [id of each doc], "words": {word: {"g": {group:
    [[doc, spans], ...]}, "n": {group: total}}}, "groups": [...], "cap": cap, "seed":
    seed, "per_page": per_page}``. ``counts`` (one row per row of ``samples``, from
    :func:`gasp.text.count_words`) saves counting the texts again.
    """
    if cap < 1:
        raise DataError(f"the example cap must be at least 1, got {cap}")
    wanted = sorted({normalize(str(w)).strip() for w in words} - {""})
    base: dict[str, Any] = {
        "docs": [],
        "words": {},
        "groups": [list(g) for g in EXAMPLE_GROUPS],
        "sample_ids": [],
        "cap": cap,
        "seed": seed,
        "per_page": per_page,
    }
    if samples is None or samples.empty or not wanted or "text" not in samples:
        return base
    keep = samples["text"].notna() & (samples["text"].astype(str).str.strip() != "")
    frame = samples[keep].reset_index(drop=True)
    if frame.empty:
        return base
    texts = frame["text"].astype(str)
    if counts is not None and counts.n_documents != len(samples):
        raise DataError("the counts must have one row per sample")
    if counts is None:
        counts = count_words(texts)
    elif not bool(keep.all()):
        counts = DocTermCounts(
            matrix=counts.matrix[np.flatnonzero(keep.to_numpy())], vocabulary=counts.vocabulary
        )
    associated = None
    if "associated_gender" not in frame:
        # Reuse the counts: the association would otherwise count every text again.
        from gasp.associate import associate_counts

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
    ids: list[str] = []
    id_columns = {
        c: frame[c] for c in ("item_id", "template", "subject", "condition", "sample_index")
        if c in frame
    }  # fmt: skip
    spans_of: dict[int, dict[str, list[int]]] = {}

    def _field(column: str, row: int) -> str:
        return plain_text(frame[column].iat[row]) if column in frame else ""

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
            chosen = _first_ranked(in_group, rank, quota[key])
            items = []
            for r in chosen.tolist():
                if r not in doc_ids:
                    doc_ids[r] = len(docs)
                    text = str(texts.iat[r])
                    docs.append(
                        [
                            text,
                            _field("subject", r),
                            _field("template", r),
                            named[r] or "",
                            assoc[r] or "",
                        ]
                    )
                    ids.append(sample_id({c: col.iat[r] for c, col in id_columns.items()}))
                    spans_of[r] = _all_spans(text)
                items.append([doc_ids[r], spans_of[r].get(word, [])])
            entry_g[key] = items
        out_words[word] = {"g": entry_g, "n": {k: int(v.size) for k, v in members.items()}}
    base["docs"] = docs
    base["sample_ids"] = ids
    base["words"] = out_words
    return base


def _first_ranked(rows: np.ndarray, rank: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` rows of lowest ``rank`` (ranks are distinct), in rank order."""
    ranks = rank[rows]
    if count <= 0:
        return rows[:0]
    if count < rows.size:  # partial selection: linear in the rows, not n log n
        top = np.argpartition(ranks, count - 1)[:count]
        return rows[top[np.argsort(ranks[top])]]
    return rows[np.argsort(ranks)]


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


def trim_examples(
    examples: Mapping[str, Any], cap: int | None = None, per_page: int | None = None
) -> dict[str, Any]:
    """A copy of a saved index keeping at most ``cap`` examples per word (no recount).

    The kept examples are the first ones saved in each group (the saved order is the
    seeded random order), shared among groups by :func:`split_cap` as when the index
    was built; a ``cap`` above the saved one keeps everything saved. Docs no word
    refers to any more are dropped.
    """
    out = dict(examples)
    saved_cap = int(examples.get("cap") or 0)
    if per_page is not None:
        out["per_page"] = per_page
    if cap is None or (saved_cap and cap >= saved_cap):
        return out
    if cap < 1:
        raise DataError(f"the example cap must be at least 1, got {cap}")
    old_docs = list(examples.get("docs", []))
    old_ids = list(examples.get("sample_ids", []))
    new_index: dict[int, int] = {}
    words: dict[str, Any] = {}
    for word, entry in dict(examples.get("words", {})).items():
        groups = {k: list(v) for k, v in dict(entry.get("g", {})).items()}
        quota = split_cap(cap, {k: len(v) for k, v in groups.items()})
        kept: dict[str, list[Any]] = {}
        for key, items in groups.items():
            kept[key] = []
            for doc, spans in items[: quota[key]]:
                if doc not in new_index:
                    new_index[doc] = len(new_index)
                kept[key].append([new_index[doc], spans])
        words[word] = {"g": kept, "n": dict(entry.get("n", {}))}
    order = sorted(new_index, key=new_index.__getitem__)
    out["docs"] = [old_docs[d] for d in order]
    if old_ids:
        out["sample_ids"] = [old_ids[d] for d in order]
    out["words"] = words
    out["cap"] = cap
    return out


def _all_spans(text: str) -> dict[str, list[int]]:
    """Every normalized word of ``text`` with its flat UTF-16 spans."""
    out: dict[str, list[int]] = {}
    if text.isascii():  # one UTF-16 unit per character
        for m in _CHUNK.finditer(text):
            word = normalize(m.group())
            if word:
                out.setdefault(word, []).extend(m.span())
        return out
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
