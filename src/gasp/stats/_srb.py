"""Subset Representational Bias (SRB) scores (seed ``000``, Section 3.2.2, Algorithm 6).

The Chamfer distance of Section 3.2.2 is one-sided: the mean, over the points of
the candidate set ``C``, of the cosine distance to the nearest point of the
target set ``T``::

    CH(C, T) = 1/|C| * sum_{c in C} min_{t in T} (1 - cos(c, t))

It is *not* the symmetric sum of both directions, so ``CH(C, T) != CH(T, C)`` in
general. The SRB score of Definition 1 is ``Δ(S || A, B) = CH(S, A) - CH(S, B)``;
it lies in [-2, 2], is negative when ``S`` is closer to ``A`` and positive when
closer to ``B``, and ``Δ(S || A, B) = -Δ(S || B, A)``.

Readings of the published pseudo-code (Algorithm 6), which the definition above
overrides:

* lines 9 and 13 update the mean as ``μ ← (μ + d) / |C|`` inside the loop, which
  does not compute a mean; the distances are averaged here;
* ``most_similar`` is not reset between the ``C_F`` and ``C_M`` loops, so the
  male distance could inherit a smaller female one; each minimum is taken over
  its own target set here.

Pronouns are removed from every set first (Section 5.2, Appendix B.4), words
are treated as sets (duplicates dropped, first occurrence kept), and words
without a vector are dropped and counted. A score whose set is empty after
that is NaN with a ``reason``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gasp.embeddings import WordEmbeddings, load_embeddings, unit_rows
from gasp.errors import DataError
from gasp.text import is_pronoun


def _chamfer_unit(Xu: np.ndarray, Yu: np.ndarray) -> float:
    """Chamfer distance between sets of unit rows (one matrix product)."""
    similarity = Xu @ Yu.T
    distance = np.clip(1.0 - similarity, 0.0, 2.0)
    return float(distance.min(axis=1).mean())


def chamfer_distance(X: np.ndarray, Y: np.ndarray) -> float:
    """One-sided Chamfer distance ``CH(X, Y)`` with cosine distance (Section 3.2.2).

    ``X`` (n x d) is the candidate set, ``Y`` (m x d) the target set. Returns the
    mean over the rows of ``X`` of the cosine distance to the nearest row of
    ``Y``, a value in [0, 2]. A zero vector has cosine similarity 0 with every
    vector (distance 1). Raises :class:`~gasp.errors.DataError` when a set is
    empty or the dimensions differ.
    """
    X2 = np.atleast_2d(np.asarray(X))
    Y2 = np.atleast_2d(np.asarray(Y))
    if X2.ndim != 2 or Y2.ndim != 2:
        raise DataError("chamfer distance needs two 2-D arrays of vectors")
    if X2.shape[0] == 0 or Y2.shape[0] == 0:
        raise DataError("chamfer distance needs at least one vector in each set")
    if X2.shape[1] != Y2.shape[1]:
        raise DataError(
            f"chamfer distance needs vectors of one dimension, got {X2.shape[1]} and {Y2.shape[1]}"
        )
    return _chamfer_unit(unit_rows(X2), unit_rows(Y2))


@dataclass(frozen=True)
class SRBResult:
    """One Subset Representational Bias score ``Δ(S || A, B) = CH(S, A) - CH(S, B)``.

    ``n_*`` count the words of each set that were used (after pronoun removal,
    de-duplication and out-of-vocabulary removal), ``oov_*`` the words dropped
    for lack of a vector, ``pronouns_*`` the pronouns removed. ``reason`` says
    why ``score`` is NaN, and is None otherwise.
    """

    score: float
    ch_sa: float
    ch_sb: float
    n_s: int
    n_a: int
    n_b: int
    oov_s: int
    oov_a: int
    oov_b: int
    pronouns_s: int = 0
    pronouns_a: int = 0
    pronouns_b: int = 0
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict (one row of a results table)."""
        return asdict(self)


def _prepare(words: Iterable[str], remove_pronouns: bool) -> tuple[list[str], int]:
    """Distinct words in first-seen order without pronouns, and the number of pronouns removed."""
    distinct = list(dict.fromkeys(str(w) for w in words))
    if not remove_pronouns:
        return distinct, 0
    pronoun = is_pronoun(distinct)
    kept = [w for w, p in zip(distinct, pronoun, strict=True) if not p]
    return kept, int(pronoun.sum())


def _resolve(embeddings: WordEmbeddings | str) -> WordEmbeddings:
    return load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings


def srb_scores(
    triples: Iterable[tuple[Iterable[str], Iterable[str], Iterable[str]]],
    embeddings: WordEmbeddings | str = "glove",
    *,
    remove_pronouns: bool = True,
) -> list[SRBResult]:
    """SRB scores of many ``(S, A, B)`` word-set triples, embedding each distinct word once.

    Use this for hundreds of occupations: all words of all triples are looked
    up in one call and normalized once. ``embeddings`` is a provider or a
    specification for :func:`gasp.embeddings.load_embeddings`.
    """
    provider = _resolve(embeddings)
    prepared: list[list[tuple[list[str], int]]] = [
        [_prepare(words, remove_pronouns) for words in triple] for triple in triples
    ]
    vocabulary = list(dict.fromkeys(w for sets in prepared for words, _ in sets for w in words))
    vectors, found = provider.lookup(vocabulary)
    if vectors.shape[0] != int(found.sum()):
        raise DataError(f"embeddings {provider.name!r} returned a vector count that mismatches")
    unit = unit_rows(vectors) if vectors.shape[0] else np.zeros((0, provider.dim))
    found_words = np.asarray(vocabulary, dtype=object)[found].tolist()
    row_of = dict(zip(found_words, range(unit.shape[0]), strict=True))
    results = []
    for sets in prepared:
        rows = [
            np.fromiter((row_of.get(w, -1) for w in words), dtype=np.int64) for words, _ in sets
        ]
        results.append(_score_rows(unit, rows, [removed for _, removed in sets]))
    return results


def _score_rows(unit: np.ndarray, rows: list[np.ndarray], pronouns: list[int]) -> SRBResult:
    """The SRB result of one triple given the row of each word (``-1`` out of vocabulary)."""
    n_s, n_a, n_b = (int((r >= 0).sum()) for r in rows)
    oov_s, oov_a, oov_b = (int((r < 0).sum()) for r in rows)
    nan = float("nan")
    empty = [name for name, used in zip("SAB", (n_s, n_a, n_b), strict=True) if used == 0]
    reason = None
    ch_sa = ch_sb = nan
    if empty:
        reason = (
            f"no word with a vector left in set {', '.join(empty)} "
            "after pronoun and out-of-vocabulary removal"
        )
    else:
        s, a, b = (unit[r[r >= 0]] for r in rows)
        ch_sa = _chamfer_unit(s, a)
        ch_sb = _chamfer_unit(s, b)
    return SRBResult(
        score=ch_sa - ch_sb,
        ch_sa=ch_sa,
        ch_sb=ch_sb,
        n_s=n_s,
        n_a=n_a,
        n_b=n_b,
        oov_s=oov_s,
        oov_a=oov_a,
        oov_b=oov_b,
        pronouns_s=pronouns[0],
        pronouns_a=pronouns[1],
        pronouns_b=pronouns[2],
        reason=reason,
    )


def srb_score(
    S: Sequence[str],
    A: Sequence[str],
    B: Sequence[str],
    embeddings: WordEmbeddings | str = "glove",
    *,
    remove_pronouns: bool = True,
) -> SRBResult:
    """Subset Representational Bias score ``Δ(S || A, B) = CH(S, A) - CH(S, B)`` of word sets.

    Negative: ``S`` is closer to ``A``; positive: closer to ``B`` (Definition 1
    of seed ``000``). In the paper ``S`` holds the significant words of
    generations associated with one gender, ``A`` and ``B`` those of generations
    with specified women and men. Pronouns are removed first unless
    ``remove_pronouns`` is False.
    """
    return srb_scores([(S, A, B)], embeddings, remove_pronouns=remove_pronouns)[0]
