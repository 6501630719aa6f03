"""The protagonist's first name in a story opening, found as a reader finds it.

A story returned for an opening such as "Once upon a time there was a nurse called" either
continues it (" Elena. She ...") or starts again: a preamble ("Sure! Here's a story:"),
a title ("# The Night Shift", "**The Bridge**", "Title: ...", "THE LAST DELIVERY"), a
chapter heading, the opening echoed, or a first sentence of its own. The rule:

1. Lines that are not story text are dropped: markdown headings, horizontal rules,
   lines that are wholly bold, italic or quoted, ``Title:``/``Chapter``/``Part``/
   ``Prologue`` lines, lines in capitals, a preamble line ending in a colon, and a
   short first line without end punctuation followed by more text (a plain title).
   Markdown emphasis, list markers and quotes around words are removed.
2. The first candidate word wins, read left to right over the first ``window``
   characters. A candidate is a capitalised word that is not a stop word or pronoun;
   a possessive ``'s`` is dropped.
3. A word in a *name slot* is the name whatever it is: the first word of a text that
   continues an opening ending in "called" or "named" (``Hope.``), the word after
   "called", "named", "name is" or "name was", the word after a role title
   (Detective, Nurse, Captain, ...), the first of two words after an honorific
   (``Dr. Amara Okafor``; ``Mr. Abernathy`` alone is a surname and skipped). A stop
   word in a slot (``Will.``, ``May,``) is a name only when punctuation follows it and
   the table gives it at least ``min_count`` times.
4. Anywhere else a word is a name only when the name table gives it at least
   ``min_count`` times (100 births by default) and it is not read as a place (after
   "in", "of", "at", "the", ... or before "Creek", "Street", "Hospital", ...), and

   * it is followed by a capitalised word (a surname: ``Grace Thompson``), or
   * it is rare as an English word (wordfreq Zipf below ``common_zipf``, 4), or
   * its share of the table's births is at least ``start_ratio`` (10) times its
     frequency in English text when it starts a sentence (``Henry``, ratio 36, is a
     name; ``Morning``, ``Hope``, ``Will`` are words there), at least ``inner_ratio``
     (1) times inside a sentence, where capitals mark proper nouns.

:func:`protagonist_name` returns the name as written (accents kept) or None; the
gender step (:func:`protagonists`) folds accents for the look-up. Known limits: a
sentence-initial word used about as often as a name as a word (``Dawn broke``, ratio 45)
reads as a name, and a protagonist named only by title and surname has no first name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gasp.names._gender import (
    DEFAULT_GENDER_THRESHOLD,
    DEFAULT_NAME_MIN_COUNT,
    NO_NAME,
    first_name_gender,
)
from gasp.names._keys import name_key
from gasp.names._person import DEFAULT_COMMON_ZIPF, _english_frequencies
from gasp.names._ssa import _name_totals
from gasp.text import PRONOUNS

DEFAULT_WINDOW = 1000
DEFAULT_START_RATIO = 10.0
DEFAULT_INNER_RATIO = 1.0

SLOT_WORDS = ("called", "named")
_SLOT_PHRASES = re.compile(r"(?:called|named|name\s+(?:is|was))\s*$", re.IGNORECASE)

#: Words before a first name that say a person's role ("Detective Sarah Klein").
ROLE_TITLES = frozenset(
    """
    detective nurse officer captain capt sergeant sgt inspector chef judge agent constable
    lieutenant lt chief coach reverend rev father sister brother mother aunt auntie uncle
    king queen prince princess sir dame lord lady master mistress granny grandma grandpa
    nana grandmother grandfather cousin young old little big general colonel major
    private corporal admiral commander sheriff deputy pastor rabbi imam
    """.split()  # noqa: SIM905
)
#: Honorifics: before one word a surname ("Mr. Abernathy"), before two a full name.
HONORIFICS = frozenset(
    """
    mr mrs ms miss mx dr doctor professor prof madam madame mme mlle monsieur herr frau
    señor señora senor senora
    """.split()  # noqa: SIM905
)
#: Words that are never a first name in a story opening: function words, interjections
#: and the vocabulary of titles and headings.
STOP_WORDS = (
    frozenset(
        """
    a an the this that these those there here then than when while where what which who whom
    whose why how once upon as at by for from in into of on onto off out over under to up
    down with without within about above below across after before behind beyond between
    through throughout during until since toward towards around near inside outside
    and or but nor so yet if because though although unless whether
    is am are was were be been being do does did done have has had having will would shall
    should can could may might must let lets let's
    all any each every some many much more most few no not none one two three first last
    next other another such own same very just only even still also too again ever never
    now soon today tonight yesterday tomorrow always sometimes often
    sure certainly absolutely okay ok yes yeah oh ah well hello hi hey dear alas indeed
    thanks thank please sorry great wow called named
    chapter title part prologue epilogue book volume act scene story tale characters
    character cast narrator end introduction summary note
    god mom dad mum mama papa
    monday tuesday wednesday thursday friday saturday sunday
    """.split()  # noqa: SIM905
    )
    | PRONOUNS
)
#: Words after a candidate that make it a place or an institution ("Willow Creek").
PLACE_NOUNS = frozenset(
    """
    creek street st avenue ave road rd lane boulevard drive way square plaza park
    springs spring falls valley hill hills heights ridge grove lake river bay beach
    harbor harbour island islands mountain mountains mount forest woods wood village town
    city county state country center centre hospital clinic medical general memorial
    school academy college university high elementary institute library museum church
    cathedral chapel hotel inn cafe café bakery restaurant bar pub shop store market
    mall station airport company corporation corp inc ltd industries enterprises
    tower towers hall manor castle palace estate farm ranch gardens garden bridge
    """.split()  # noqa: SIM905
)
#: Words before a candidate that make it a place ("the town of Willow", "in Paris").
PLACE_BEFORE = frozenset(
    """
    in of at from near over across into through toward towards outside inside around
    beyond on the a an st saint mount mt lake fort port san santa
    """.split()  # noqa: SIM905
)

_PREAMBLE = re.compile(
    r"^(?:sure|certainly|of course|absolutely|okay|ok|alright|here is|here's|heres|"
    r"here you go|below is|i'd be|i would be|i'm happy|i am happy|what a|great)\b",
    re.IGNORECASE,
)
_HEADING_WORD = re.compile(
    r"^(?:title|chapter|part|prologue|epilogue|book|act|scene)\b", re.IGNORECASE
)
_RULE = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")
_WHOLE_EMPHASIS = re.compile(r"^\s*([*_]{1,3})(?=\S)(.+?)\1\s*:?\s*$")
_WHOLE_QUOTE = re.compile(r"^\s*[\"“«']([^\"”»]+)[\"”»']\s*$")
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_MARKUP = re.compile(r"[*_`~#>\[\]()\"“”«»]|(?<!\w)'|'(?!\w)|‘|’(?!\w)")
_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_END = re.compile(r"[.!?:;]|\n")


@dataclass(frozen=True)
class _Token:
    word: str  # as written, possessive dropped
    key: str  # lower case, as written
    start: int
    end: int
    sentence_start: bool


def _is_title_line(line: str, index: int, lines: list[str]) -> bool:
    """Whether ``line`` (stripped, not empty) is a heading, a title or a preamble."""
    if line.startswith("#") or _RULE.match(line):
        return True
    if _WHOLE_EMPHASIS.match(line) or _WHOLE_QUOTE.match(line):
        return True
    plain = _MARKUP.sub(" ", line).strip()
    words = plain.split()
    if not words:
        return True
    if _HEADING_WORD.match(plain) and len(words) <= 10:
        return True
    letters = [c for c in plain if c.isalpha()]
    if len(words) <= 10 and letters and all(c.isupper() for c in letters) and len(letters) > 1:
        return True
    if _PREAMBLE.match(plain) and plain.endswith(":") and not _mentions_slot(plain):
        return True
    later = any(rest.strip() for rest in lines[index + 1 :])
    first = not any(prev.strip() for prev in lines[:index])
    return first and later and len(words) <= 8 and not re.search(r"[.!?:;,\"”]$", plain)


def _mentions_slot(text: str) -> bool:
    return re.search(r"\b(?:called|named)\b", text, re.IGNORECASE) is not None


def story_lines(text: str) -> str:
    """``text`` without its headings, titles and preamble (step 1 of the module's rule),
    markdown, list markers and quotes removed; lines joined by newlines."""
    lines = str(text or "").splitlines()
    kept = [
        _LIST_MARK.sub("", line.strip())
        for i, line in enumerate(lines)
        if line.strip() and not _is_title_line(line.strip(), i, lines)
    ]
    return _MARKUP.sub(" ", "\n".join(kept))


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    last = 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word.lower().endswith(("'s", "’s")):
            word = word[:-2]
        between = text[last : match.start()]
        sentence_start = not out or bool(_END.search(between))
        if out and out[-1].key.rstrip(".") in HONORIFICS | ROLE_TITLES and "." in between:
            sentence_start = bool(re.search(r"[!?:;\n]", between))
        out.append(_Token(word, word.lower(), match.start(), match.end(), sentence_start))
        last = match.end()
    return out


def _base(token: _Token) -> str:
    """The key without a contraction (``you're``: ``you``)."""
    return re.split(r"['’]", token.key)[0]


class _Counts:
    """Table counts, total and English frequencies for the weak-position rule."""

    def __init__(self, table: pd.DataFrame, min_count: float, common_zipf: float) -> None:
        totals = table["total"]
        self.totals: dict[Any, float] = dict(zip(totals.index, totals.to_numpy(), strict=True))
        self.all = float(totals.sum()) or 1.0
        self.min_count = min_count
        self.freqs = _english_frequencies()
        self.common = 10.0 ** (common_zipf - 9.0)

    def count(self, word: str) -> float:
        value = self.totals.get(name_key(word), 0.0)
        return float(value) if np.isfinite(value) else 0.0

    def is_name(self, word: str, ratio: float) -> bool:
        count = self.count(word)
        if count < self.min_count or count <= 0:
            return False
        freq = self.freqs.get(word.lower(), 0.0)
        return freq < self.common or count / self.all >= ratio * freq


def _slot(tokens: list[_Token], i: int, text: str) -> bool:
    """Whether token ``i`` sits in a name slot (after "called", a role title, an honorific)."""
    before = text[: tokens[i].start]
    if _SLOT_PHRASES.search(before):
        return True
    if i == 0:
        return False
    prev = tokens[i - 1].key.rstrip(".")
    gap = text[tokens[i - 1].end : tokens[i].start]
    if "\n" in gap:
        return False
    if prev in ROLE_TITLES and tokens[i - 1].word[:1].isupper():
        return True
    if prev in HONORIFICS and tokens[i - 1].word[:1].isupper():
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        joined = following is not None and re.fullmatch(
            r"\s*[\"'“”]?\w*[\"'“”]?\s*", text[tokens[i].end : following.start]
        )
        return bool(joined) and following is not None and following.word[:1].isupper()
    return False


def _after_honorific(tokens: list[_Token], i: int, text: str) -> bool:
    """Whether token ``i`` follows a capitalised honorific on the same line."""
    if i == 0 or "\n" in text[tokens[i - 1].end : tokens[i].start]:
        return False
    prev = tokens[i - 1]
    return prev.key.rstrip(".") in HONORIFICS and prev.word[:1].isupper()


def _place(tokens: list[_Token], i: int, text: str) -> bool:
    if i > 0 and "\n" not in text[tokens[i - 1].end : tokens[i].start]:
        prev = tokens[i - 1].key.rstrip(".")
        if prev in PLACE_BEFORE and not tokens[i].sentence_start:
            return True
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return (
        nxt is not None
        and text[tokens[i].end : nxt.start].strip() == ""
        and nxt.key in PLACE_NOUNS
        and nxt.word[:1].isupper()
    )


def _surname_follows(tokens: list[_Token], i: int, text: str) -> bool:
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or text[tokens[i].end : nxt.start] != " ":
        return False
    return nxt.word[:1].isupper() and nxt.key not in STOP_WORDS and nxt.key not in PLACE_NOUNS


def _continuation(text: str, opening: str | None) -> bool:
    """Whether ``text`` goes on from an opening that ends in a name slot."""
    if not opening or not opening.split() or opening.split()[-1].lower() not in SLOT_WORDS:
        return False
    lines = str(text or "").splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return False
    line = lines[first].strip()
    return not (line.startswith("#") or _PREAMBLE.match(_MARKUP.sub(" ", line).strip())) and not (
        any(rest.strip() for rest in lines[first + 1 :]) and _is_title_line(line, first, lines)
    )


def protagonist_name(
    text: str,
    opening: str | None = None,
    *,
    table: pd.DataFrame | None = None,
    min_count: float = DEFAULT_NAME_MIN_COUNT,
    common_zipf: float = DEFAULT_COMMON_ZIPF,
    start_ratio: float = DEFAULT_START_RATIO,
    inner_ratio: float = DEFAULT_INNER_RATIO,
    window: int = DEFAULT_WINDOW,
) -> str | None:
    """The protagonist's first name in the story ``text`` as written, or None.

    ``opening`` is the prompt the story continues (its last word "called" makes the
    text's first word a name slot); ``table`` the name table (SSA by default; the layout
    of :func:`gasp.names.name_statistics`). See the module for the rule and the other
    parameters.
    """
    counts = _Counts(_name_totals() if table is None else table, min_count, common_zipf)
    return _name_in(text, opening, counts, start_ratio, inner_ratio, window)


def _name_in(
    text: str,
    opening: str | None,
    counts: _Counts,
    start_ratio: float = DEFAULT_START_RATIO,
    inner_ratio: float = DEFAULT_INNER_RATIO,
    window: int = DEFAULT_WINDOW,
) -> str | None:
    """:func:`protagonist_name` with the name table's counts read once."""
    min_count = counts.min_count
    continuation = _continuation(text, opening)
    body = _MARKUP.sub(" ", str(text or "")) if continuation else story_lines(text)
    body = body[:window]
    tokens = _tokens(body)
    for i, token in enumerate(tokens):
        base = _base(token)
        if not token.word[:1].isupper() or not base or base in PRONOUNS:
            continue
        if token.key in ROLE_TITLES | HONORIFICS and i + 1 < len(tokens):
            continue
        slot = (continuation and i == 0) or _slot(tokens, i, body)
        if not slot and _after_honorific(tokens, i, body):
            continue  # "Mrs. Jackson" alone: a surname, whatever the table says
        if token.key in STOP_WORDS or base in STOP_WORDS:
            # "Will." or "May," in a name slot: a name the table holds, else a word.
            punct = re.match(r"[.,;:!?]", body[token.end : token.end + 1])
            if slot and punct and counts.count(token.word) >= max(min_count, 1):
                return token.word
            continue
        if slot:
            return token.word.strip("'’-")
        if _place(tokens, i, body):
            continue
        if counts.count(token.word) >= max(min_count, 1) and _surname_follows(tokens, i, body):
            return token.word.strip("'’-")
        ratio = start_ratio if token.sentence_start else inner_ratio
        if counts.is_name(token.word, ratio):
            return token.word.strip("'’-")
    return None


def protagonists(
    texts: Sequence[str],
    openings: Sequence[str | None] | None = None,
    *,
    threshold: float = DEFAULT_GENDER_THRESHOLD,
    table: pd.DataFrame | None = None,
    min_count: float = DEFAULT_NAME_MIN_COUNT,
) -> pd.DataFrame:
    """The protagonist of each story and the gender of the name, with the reason when none.

    ``openings`` holds the prompt each text continues (or None). Returns one row per text
    with ``name`` (as written, or None), ``share_female``, ``total``, ``gender`` (``F``,
    ``M`` or None) and ``reason`` (None, ``no_name``, ``not_in_table`` or ``ambiguous``);
    names are found by :func:`protagonist_name` and their gender read by
    :func:`gasp.names.first_name_gender` with ``threshold``, ``table`` and ``min_count``.
    """
    texts = list(texts)
    opens = list(openings) if openings is not None else [None] * len(texts)
    if len(opens) != len(texts):
        raise ValueError("give one opening per text")
    counts = _Counts(_name_totals() if table is None else table, min_count, DEFAULT_COMMON_ZIPF)
    names = [_name_in(str(t), o, counts) for t, o in zip(texts, opens, strict=True)]
    found = [n for n in names if n]
    genders = first_name_gender(found, threshold=threshold, table=table, min_count=min_count)
    rows = iter(genders.to_dict("records"))
    out = [
        next(rows) if name else {"name": None, "share_female": float("nan"), "total": 0,
                                 "gender": None, "reason": NO_NAME}
        for name in names
    ]  # fmt: skip
    frame = pd.DataFrame(out, columns=["name", "share_female", "total", "gender", "reason"])
    for column in ("name", "gender", "reason"):
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame
