"""The name-free SRB variant: word sets without person names and explicit gender terms.

The paper's SRB (seed ``000``, Section 5.2) removes pronouns from the marked words
before comparing them. First names and words such as ``woman`` or ``mrs`` also mark
a gender without describing anyone: a model whose texts differ by gender only in
pronouns and first names gets a strong SRB difference from the names alone. The
``names_removed`` variant also removes, from ``S``, ``A`` and ``B`` alike,

* person first names by the rule of :func:`gasp.names.is_person_name` (US Social
  Security birth records), as the probe's word filter does, with its ``name_ratio``
  from the analysis setting ``name_ratio`` (default :data:`SRB_NAME_RATIO`, 25,
  half the probe's 50): for SRB a first name left in makes a difference of its own
  while a word taken out only narrows the set, so names that are also words but
  mostly names (``grace`` 39, ``mark`` 35, ``jack`` 30) go too; ``hope`` (0.9) and
  ``will`` (0.05) stay. Pronouns are never names;
* explicit gender terms, :data:`gasp.text.GENDER_TERMS` plus the analysis setting
  ``extra_gender_terms``.

:meth:`NameFilter.kinds` labels a word ``name``, ``gender term``, ``pronoun`` or
``word`` for the word tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gasp.names import is_person_name
from gasp.text import gender_terms, is_pronoun

PAPER = "paper"
"""The ``variant`` of the paper's SRB (pronouns removed)."""
NAMES_REMOVED = "names_removed"
"""The ``variant`` of the SRB that also removes person names and gender terms."""
VARIANTS: tuple[str, ...] = (PAPER, NAMES_REMOVED)

SRB_NAME_RATIO = 25.0
"""Default ``name_ratio`` of :func:`gasp.names.is_person_name` for the name-free variant."""

NAME = "name"
GENDER_TERM = "gender term"
PRONOUN = "pronoun"
WORD = "word"


@dataclass
class NameFilter:
    """Classifies words as name, gender term or word (cached over a whole analysis)."""

    extra_gender_terms: Iterable[str] = ()
    name_ratio: float = SRB_NAME_RATIO
    _terms: frozenset[str] = field(init=False)
    _kind: dict[str, str] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._terms = gender_terms(self.extra_gender_terms)

    def kinds(self, words: Sequence[str]) -> list[str]:
        """The kind of each of ``words`` (``name``, ``gender term``, ``pronoun`` or ``word``)."""
        unknown = [w for w in dict.fromkeys(words) if w not in self._kind]
        if unknown:
            term = [w.lower().replace("'", "").replace("’", "") in self._terms for w in unknown]
            pronoun = is_pronoun(unknown)
            name = is_person_name(unknown, name_ratio=self.name_ratio)
            for w, t, p, n in zip(unknown, term, pronoun, name, strict=True):
                self._kind[w] = GENDER_TERM if t else PRONOUN if p else NAME if n else WORD
        return [self._kind[w] for w in words]

    def split(self, words: Iterable[str]) -> tuple[list[str], int, int]:
        """The distinct ``words`` left, and how many names and gender terms were removed.

        Pronouns stay: the SRB function removes and counts them, as for the paper's SRB.
        """
        distinct = list(dict.fromkeys(str(w) for w in words))
        kinds = self.kinds(distinct)
        kept = [w for w, k in zip(distinct, kinds, strict=True) if k in (WORD, PRONOUN)]
        return kept, kinds.count(NAME), kinds.count(GENDER_TERM)

    def keep(self, words: Iterable[str]) -> list[str]:
        """The distinct ``words`` that are neither names nor gender terms."""
        return self.split(words)[0]
