"""Protagonist names in real base-model continuations: 25 story openings Gemma 3 270M
wrote in the narratives' completion form (``_gemma_openings``), read as a reader labels
them, titles with surnames alone ("Mrs. Jackson") included."""

from __future__ import annotations

from _gemma_openings import GEMMA_OPENINGS
from gasp.names import protagonists
from gasp.studies.pronoun_pairs import narrative_prompt


def test_every_gemma_opening_as_a_reader_labels_it() -> None:
    texts = [text for _, _, text, *_ in GEMMA_OPENINGS]
    openings = [narrative_prompt(t, p) for t, p, *_ in GEMMA_OPENINGS]
    found = protagonists(texts, openings)
    got = [
        (row.name if isinstance(row.name, str) else None, row.gender or "U", row.reason)
        for row in found.itertuples()
    ]
    want = [(name, gender, reason) for *_, name, gender, reason in GEMMA_OPENINGS]
    wrong = [(t[:40], g, w) for t, g, w in zip(texts, got, want, strict=True) if g != w]
    assert not wrong, wrong
    assert sum(name is not None for name, _, _ in want) == 7
