"""Explicit gender terms: words that name a gender outright.

The Subset Representational Bias score compares the words that mark generations of
one gender. Pronouns are removed from those words in seed ``000`` (Section 5.2);
words that *name* a gender (``woman``, ``father``, ``mrs``) say as little about how
a group is described as pronouns do, so the name-free SRB variant removes them too.
:data:`GENDER_TERMS` holds them in the form the package tokenizer produces (lower
case, apostrophes stripped), singular and plural:

* people by gender: woman, man, female, male, girl, boy, lady, gentleman, gal, guy,
  lad, lass, dame, sir, madam, maam, feminine, masculine, womanhood, manhood,
  girlhood, boyhood;
* family and partners: mother, father, mom, dad, mum, mommy, daddy, mama, papa,
  wife, husband, daughter, son, sister, brother, aunt, uncle, niece, nephew,
  grandmother, grandfather, grandma, grandpa, granddaughter, grandson, bride,
  groom, girlfriend, boyfriend, fiancee, fiance, widow, widower, stepmother,
  stepfather, motherhood, fatherhood, maternal, paternal;
* titles: mr, mrs, ms, miss, mister, missus;
* gendered role nouns: actress, waitress, hostess, heroine (``hero`` is not in the
  list: it is used for every gender), businesswoman, businessman, spokeswoman,
  spokesman, chairwoman, chairman, policewoman, policeman, congresswoman,
  congressman, sportswoman, sportsman, craftswoman, craftsman, salesman,
  saleswoman, fireman, firewoman, mailman, queen, king, princess, prince;
* the adjectives womens and mens (``women's`` without its apostrophe).

The list is deliberately about *explicit* naming of a gender; words that are only
stereotypically gendered (``nurturing``, ``assertive``) are describing words and
stay. :func:`is_gender_term` takes ``extra`` words to extend it per analysis (the
More of the Same analysis passes its ``extra_gender_terms`` setting).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

_PAIRS: tuple[tuple[str, str], ...] = (
    ("woman", "women"), ("man", "men"), ("female", "females"), ("male", "males"),
    ("girl", "girls"), ("boy", "boys"), ("lady", "ladies"), ("gentleman", "gentlemen"),
    ("gal", "gals"), ("guy", "guys"), ("lad", "lads"), ("lass", "lasses"),
    ("dame", "dames"), ("sir", "sirs"), ("madam", "madams"), ("maam", "maams"),
    ("mother", "mothers"), ("father", "fathers"), ("mom", "moms"), ("dad", "dads"),
    ("mum", "mums"), ("mommy", "mommies"), ("daddy", "daddies"), ("mama", "mamas"),
    ("papa", "papas"), ("wife", "wives"), ("husband", "husbands"),
    ("daughter", "daughters"), ("son", "sons"), ("sister", "sisters"),
    ("brother", "brothers"), ("aunt", "aunts"), ("uncle", "uncles"),
    ("niece", "nieces"), ("nephew", "nephews"), ("grandmother", "grandmothers"),
    ("grandfather", "grandfathers"), ("grandma", "grandmas"), ("grandpa", "grandpas"),
    ("granddaughter", "granddaughters"), ("grandson", "grandsons"), ("bride", "brides"),
    ("groom", "grooms"), ("girlfriend", "girlfriends"), ("boyfriend", "boyfriends"),
    ("fiancee", "fiancees"), ("fiance", "fiances"), ("widow", "widows"),
    ("widower", "widowers"), ("stepmother", "stepmothers"), ("stepfather", "stepfathers"),
    ("actress", "actresses"), ("waitress", "waitresses"), ("hostess", "hostesses"),
    ("heroine", "heroines"), ("businesswoman", "businesswomen"),
    ("businessman", "businessmen"), ("spokeswoman", "spokeswomen"),
    ("spokesman", "spokesmen"), ("chairwoman", "chairwomen"), ("chairman", "chairmen"),
    ("policewoman", "policewomen"), ("policeman", "policemen"),
    ("congresswoman", "congresswomen"), ("congressman", "congressmen"),
    ("sportswoman", "sportswomen"), ("sportsman", "sportsmen"),
    ("craftswoman", "craftswomen"), ("craftsman", "craftsmen"),
    ("saleswoman", "saleswomen"), ("salesman", "salesmen"), ("firewoman", "firewomen"),
    ("fireman", "firemen"), ("mailman", "mailmen"), ("queen", "queens"),
    ("king", "kings"), ("princess", "princesses"), ("prince", "princes"),
)  # fmt: skip
_SINGLE: tuple[str, ...] = (
    "mr", "mrs", "ms", "miss", "mister", "missus", "womens", "mens", "feminine",
    "masculine", "womanhood", "manhood", "girlhood", "boyhood", "motherhood",
    "fatherhood", "maternal", "paternal",
)  # fmt: skip

GENDER_TERMS: frozenset[str] = frozenset(w for pair in _PAIRS for w in pair) | frozenset(_SINGLE)
"""Words that name a gender outright (lower case, apostrophes stripped; see the module)."""


def _key(word: str) -> str:
    return word.lower().strip().replace("'", "").replace("’", "")


def gender_terms(extra: Iterable[str] = ()) -> frozenset[str]:
    """:data:`GENDER_TERMS` with the ``extra`` words added (normalised like the tokenizer)."""
    return GENDER_TERMS | frozenset(_key(w) for w in extra if _key(w))


def is_gender_term(words: Sequence[str], extra: Iterable[str] = ()) -> np.ndarray:
    """Boolean mask: which ``words`` are explicit gender terms (case-insensitive)."""
    terms = gender_terms(extra)
    return np.fromiter((_key(w) in terms for w in words), dtype=bool, count=len(words))
