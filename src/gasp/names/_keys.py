"""The look-up key of a first name: accents folded, lower case, letters only.

Name tables spell names in plain ASCII (the Social Security records) or mix spellings
(``José`` and ``Jose``); stories write ``Zoë``, ``Chloé``, ``Søren``. Every table is
indexed by, and every look-up goes through, :func:`name_key`: Unicode compatibility
decomposition with the combining marks dropped (``é`` to ``e``, ``ë`` to ``e``), the
letters that do not decompose spelled out (``ø`` to ``o``, ``æ`` to ``ae``, ``ß`` to
``ss``, ...), lower case, every non-letter removed and the parts of a name joined
(``Mary-Ann`` and ``Mary Ann``: ``maryann``). The original spelling is kept wherever a
name is reported; only the look-up folds it.
"""

from __future__ import annotations

import unicodedata

from gasp.text import normalize

_UNDECOMPOSED = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "þ": "th",
        "Þ": "Th",
        "æ": "ae",
        "Æ": "Ae",
        "œ": "oe",
        "Œ": "Oe",
        "ß": "ss",
        "ı": "i",
    }
)


def fold_accents(text: str) -> str:
    """``text`` with accents and other diacritics removed (``Zoë`` to ``Zoe``)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def name_key(name: object) -> str:
    """The table key of ``name`` (see the module); ``""`` for a non-string."""
    if not isinstance(name, str):
        return ""
    return "".join(normalize(fold_accents(name)).split())
