"""Example texts behind every number of the report, chosen at analysis time.

The report's example browser (:mod:`gasp.report`) opens an entry of the saved index by
its key; here a key names a table cell ("late · incorrect", "nurse · once · female")
instead of a word. Each entry holds up to ``cap`` documents, shared among its groups
(pronouns, or the gender of a name) in a seeded random order, and the count of every
matching document. Documents are ``[text, subject, template, named, associated]`` as
the browser shows them: the answer or story, a line saying what it is, the template,
the pronoun of a paired prompt (shown as the named gender) and the gender of a
protagonist's name (shown as the associated gender).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gasp.results import split_cap


def cell_key(*parts: object) -> str:
    """The browser key of a table cell (lower case, parts joined by " · ")."""
    return " · ".join(str(p) for p in parts).lower()


class ExampleIndex:
    """Builds the saved index: documents once, cells referring to them by position."""

    def __init__(self, groups: Sequence[tuple[str, str]], cap: int = 50, seed: int = 0) -> None:
        self.groups = [list(g) for g in groups]
        self.cap = max(1, int(cap))
        self.seed = seed
        self.docs: list[list[Any]] = []
        self.ids: list[str] = []
        self.cells: dict[str, dict[str, list[int]]] = {}
        self._rank: np.ndarray | None = None

    def add_doc(self, doc: Sequence[Any], ident: str) -> int:
        """Add a document (``[text, subject, template, named, associated]``); its position."""
        self.docs.append(list(doc))
        self.ids.append(ident)
        return len(self.docs) - 1

    def add_cell(self, key: str, members: Mapping[str, Sequence[int]]) -> str:
        """Record the documents of cell ``key`` by group; returns the key."""
        cell = self.cells.setdefault(key, {})
        for group, docs in members.items():
            if len(docs):
                cell.setdefault(group, []).extend(int(d) for d in docs)
        return key

    def build(self) -> dict[str, Any]:
        """The JSON-ready index (the layout of :func:`gasp.results.build_example_index`)."""
        rank = np.random.default_rng(self.seed).permutation(len(self.docs))
        used: dict[int, int] = {}
        words: dict[str, Any] = {}
        for key, cell in self.cells.items():
            quota = split_cap(self.cap, {g: len(d) for g, d in cell.items()})
            kept: dict[str, list[Any]] = {}
            for group, docs in cell.items():
                chosen = sorted(dict.fromkeys(docs), key=lambda d: rank[d])[: quota[group]]
                kept[group] = [[used.setdefault(d, len(used)), []] for d in chosen]
            words[key] = {"g": kept, "n": {g: len(set(d)) for g, d in cell.items()}}
        order = sorted(used, key=used.__getitem__)
        return {
            "docs": [self.docs[d] for d in order],
            "sample_ids": [self.ids[d] for d in order],
            "words": words,
            "groups": self.groups,
            "cap": self.cap,
            "seed": self.seed,
            "per_page": 10,
        }
