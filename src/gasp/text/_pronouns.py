"""English pronouns, to remove from significant-word lists before comparing them.

Seed ``000`` (Section 5.2, Appendix B.4) removes pronouns from the statistically
significant words before computing Subset Representational Bias scores, "as
differences in pronouns are expected". :data:`PRONOUNS` holds, in the form the
package tokenizer produces (lower case, apostrophes stripped):

* personal pronouns of every person and number, subject and object forms
  (``i me you he him she her it we us they them``);
* possessive determiners and pronouns (``my mine your yours his her hers its
  our ours their theirs``);
* reflexive pronouns (``myself yourself yourselves himself herself itself
  oneself ourselves themselves themself``);
* common neopronouns and their case forms (``xe xem xyr xyrs xemself``,
  ``ze zir zirs zirself hir hirs hirself``, ``ey em eir eirs emself``,
  ``fae faer faers faerself``, ``ve ver vis verself``);
* contractions of a pronoun with a verb once the apostrophe is stripped
  (``shes hes theyre theyve theyll theyd im ive youre youve youll youd weve
  itll`` ...).

Contractions whose stripped form is an ordinary English word are left out, so
that real words are never removed: ``shed`` (she'd), ``hell`` (he'll),
``shell`` (she'll), ``well`` (we'll), ``were`` (we're), ``wed`` (we'd), ``ill``
(I'll), ``id`` (I'd). Indefinite and demonstrative pronouns (``someone``,
``this``) are not included: they carry no gender and are ordinary content words
for these comparisons.

Subsets for rules that need them: :data:`FEMININE_PRONOUNS`,
:data:`MASCULINE_PRONOUNS`, :data:`THEY_PRONOUNS` and
:data:`THIRD_PERSON_PRONOUNS` (every gender's third-person forms). This module is
the package's only list of pronouns: every other module imports from
:mod:`gasp.text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

PERSONAL_PRONOUNS: frozenset[str] = frozenset(
    ["i", "me", "you", "he", "him", "she", "her", "it", "we", "us", "they", "them"]
)
POSSESSIVE_PRONOUNS: frozenset[str] = frozenset(
    ["my", "mine", "your", "yours", "his", "hers", "its", "our", "ours", "their", "theirs"]
)
REFLEXIVE_PRONOUNS: frozenset[str] = frozenset(
    [
        "myself",
        "yourself",
        "yourselves",
        "himself",
        "herself",
        "itself",
        "oneself",
        "ourselves",
        "themselves",
        "themself",
    ]
)
NEOPRONOUNS: frozenset[str] = frozenset(
    [
        "xe",
        "xem",
        "xyr",
        "xyrs",
        "xemself",
        "xeself",
        "ze",
        "zir",
        "zirs",
        "zirself",
        "zie",
        "hir",
        "hirs",
        "hirself",
        "ey",
        "em",
        "eir",
        "eirs",
        "emself",
        "fae",
        "faer",
        "faers",
        "faerself",
        "ve",
        "ver",
        "vis",
        "verself",
    ]
)
CONTRACTIONS: frozenset[str] = frozenset(
    [
        "im",
        "ive",
        "youre",
        "youve",
        "youll",
        "youd",
        "hes",
        "shes",
        "its",
        "itll",
        "itd",
        "weve",
        "theyre",
        "theyve",
        "theyll",
        "theyd",
        "hed",
    ]
)
PRONOUNS: frozenset[str] = (
    PERSONAL_PRONOUNS | POSSESSIVE_PRONOUNS | REFLEXIVE_PRONOUNS | NEOPRONOUNS | CONTRACTIONS
)

#: The feminine third-person pronouns (subject, object and possessive, reflexive).
FEMININE_PRONOUNS: tuple[str, ...] = ("she", "her", "hers", "herself")
#: The masculine third-person pronouns (subject, possessive, object, reflexive).
MASCULINE_PRONOUNS: tuple[str, ...] = ("he", "his", "him", "himself")
#: Singular-or-plural "they" and its case forms.
THEY_PRONOUNS: tuple[str, ...] = ("they", "them", "their", "theirs", "themselves", "themself")
#: The subject pronoun of each gender code (F, M, and N for singular "they").
SUBJECT_PRONOUNS: dict[str, str] = {
    "M": MASCULINE_PRONOUNS[0],
    "F": FEMININE_PRONOUNS[0],
    "N": THEY_PRONOUNS[0],
}
#: The possessive determiner of each gender code ("his", "her", "their").
POSSESSIVE_DETERMINERS: dict[str, str] = {
    "M": MASCULINE_PRONOUNS[1],
    "F": FEMININE_PRONOUNS[1],
    "N": THEY_PRONOUNS[2],
}
#: Third-person pronouns of every gender (feminine, masculine, they, neopronouns):
#: the pronouns that differ between gender groups by construction.
THIRD_PERSON_PRONOUNS: frozenset[str] = frozenset(
    (*FEMININE_PRONOUNS, *MASCULINE_PRONOUNS, *THEY_PRONOUNS, *NEOPRONOUNS)
)


def is_pronoun(words: Sequence[str]) -> np.ndarray:
    """Boolean mask: which ``words`` are pronouns (case-insensitive, apostrophes ignored)."""
    return np.fromiter(
        (w.lower().replace("'", "").replace("’", "") in PRONOUNS for w in words),
        dtype=bool,
        count=len(words),
    )


def remove_pronouns(words: Iterable[str]) -> list[str]:
    """The ``words`` that are not pronouns, in their original order."""
    words_list = list(words)
    keep = ~is_pronoun(words_list)
    return [w for w, k in zip(words_list, keep, strict=True) if k]
