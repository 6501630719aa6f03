"""Professions and profession pairs.

The default list lives in ``data/professions.csv`` (with its sources); a user's list is
any CSV with a column ``Occupations`` (Kazemi's corpus, as the paper used), ``occupation``
or ``profession`` (or a single column). Pairs (A, B), A != B, are drawn once with a
recorded seed and used for every template, pronoun and model, so two runs on the same
pairs can be compared pair by pair.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from gasp.errors import ConfigError, DataError
from gasp.studies.pronoun_pairs._templates import indefinite_article

#: Source tag of the professions of Table 4 (the narrative study's defaults).
NARRATIVE_SOURCE = "marin-eger-table4"
_COLUMNS = ("occupations", "occupation", "professions", "profession")


@dataclass(frozen=True)
class Profession:
    """A profession as it appears in prompts (lower case) with its article and sources."""

    name: str
    article: str
    sources: tuple[str, ...] = ()


def _rows(text: str) -> list[dict[str, str]]:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


@functools.cache
def default_professions() -> tuple[Profession, ...]:
    """The package's default professions (see ``data/professions.csv`` for sources)."""
    text = (
        resources.files("gasp.studies.pronoun_pairs")
        .joinpath("data/professions.csv")
        .read_text(encoding="utf-8")
    )
    return tuple(
        Profession(r["profession"], r["article"], tuple(r["sources"].split(";")))
        for r in _rows(text)
    )


def narrative_professions() -> tuple[Profession, ...]:
    """The professions of Table 4 (the narrative study's default)."""
    return tuple(p for p in default_professions() if NARRATIVE_SOURCE in p.sources)


def _prompt_case(name: str) -> str:
    """``name`` as used inside a sentence: lower case, except all-capital words (``DJ``)."""
    words = " ".join(name.split()).split(" ")
    return " ".join(w if len(w) > 1 and w.isupper() else w.lower() for w in words)


def load_professions(path: str | Path) -> tuple[Profession, ...]:
    """Professions from a CSV file (column ``Occupations``/``occupation``/``profession``, or
    its only column; ``article`` column optional), de-duplicated, in file order."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read professions file {file}: {exc}") from None
    rows = _rows(text)
    if not rows:
        raise DataError(f"{file}: no professions found")
    columns = {c.strip().lower(): c for c in rows[0] if c is not None}
    name_col = next((columns[c] for c in _COLUMNS if c in columns), None)
    if name_col is None and len(columns) == 1:
        name_col = next(iter(columns.values()))
    if name_col is None:
        raise DataError(
            f"{file}: needs a column Occupations, occupation or profession "
            f"(columns: {', '.join(columns.values())})"
        )
    art_col = columns.get("article")
    seen: dict[str, Profession] = {}
    for row in rows:
        raw = (row.get(name_col) or "").strip()
        if not raw:
            continue
        name = _prompt_case(raw)
        article = (row.get(art_col) or "").strip().lower() if art_col else ""
        if article not in ("a", "an"):
            article = indefinite_article(name)
        seen.setdefault(name.lower(), Profession(name, article, (file.name,)))
    if len(seen) < 2:
        raise DataError(f"{file}: at least two different professions are needed")
    return tuple(seen.values())


def select_professions(
    professions: tuple[Profession, ...], names: list[str] | None
) -> tuple[Profession, ...]:
    """``professions`` restricted to ``names`` (in the order given); None keeps all."""
    if names is None:
        return professions
    by_name = {p.name.lower(): p for p in professions}
    chosen = []
    for name in names:
        key = _prompt_case(name).lower()
        if key not in by_name:
            raise ConfigError(
                f"profession {name!r} is not in the list; pass your own with --occupations-file"
            )
        chosen.append(by_name[key])
    return tuple(dict.fromkeys(chosen))


def draw_pairs(
    names: list[str] | tuple[str, ...], n_pairs: int, seed: int
) -> list[tuple[str, str]]:
    """``n_pairs`` distinct ordered pairs (A, B) with A != B, drawn without replacement from
    every ordered pair of ``names`` with ``numpy.random.default_rng(seed)``."""
    unique = list(dict.fromkeys(names))
    k = len(unique)
    if k < 2:
        raise ConfigError("profession pairs need at least two professions")
    total = k * (k - 1)
    if n_pairs < 1:
        raise ConfigError(f"the number of pairs must be at least 1, got {n_pairs}")
    if n_pairs > total:
        raise ConfigError(f"{k} professions make only {total} ordered pairs; asked for {n_pairs}")
    rng = np.random.default_rng(seed)
    picks = rng.choice(total, size=n_pairs, replace=False)
    pairs = []
    for index in picks.tolist():
        i, j = divmod(int(index), k - 1)
        pairs.append((unique[i], unique[j + 1 if j >= i else j]))
    return pairs
