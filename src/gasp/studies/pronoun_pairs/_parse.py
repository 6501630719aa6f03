"""Answers to A, B or U (Section 3.3), and protagonists' first names (Section 3.4).

An answer is ``A`` when profession A occurs in it and B does not, ``B`` the other way
round, and ``U`` (unparsed) when both or neither occur. Matching is case-insensitive on
whole words, the longer profession first (its matches are removed before the shorter
one is looked for, so "software engineer" is not also an "engineer"). An echoed prompt,
its instruction, sentence or question is removed first.
"""

from __future__ import annotations

import re

from gasp.studies.pronoun_pairs._templates import PairTemplate

ANSWER_A, ANSWER_B, UNPARSED = "A", "B", "U"


def _pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w-])" + r"\s+".join(words) + r"(?![\w-])", re.IGNORECASE)


def _remove(text: str, phrase: str) -> str:
    if not phrase.strip():
        return text
    return _pattern(phrase).sub(" ", text)


def strip_echo(text: str, echoes: list[str]) -> str:
    """``text`` without any occurrence of the ``echoes`` (longest first, case-insensitive)."""
    for echo in sorted(echoes, key=len, reverse=True):
        text = _remove(text, echo)
    return text


def parse_answer(text: str, a: str, b: str, echoes: list[str] | None = None) -> str:
    """``A``, ``B`` or ``U`` for the answer ``text`` about professions ``a`` and ``b``.

    ``echoes`` are texts to ignore (the prompt, its instruction, sentence and question).
    """
    rest = strip_echo(str(text or ""), list(echoes or []))
    first, second = (a, b) if len(a) >= len(b) else (b, a)
    found = {}
    for name in (first, second):
        pattern = _pattern(name)
        found[name] = bool(pattern.search(rest))
        rest = pattern.sub(" ", rest)
    if found[a] and not found[b]:
        return ANSWER_A
    if found[b] and not found[a]:
        return ANSWER_B
    return UNPARSED


def prompt_echoes(template: PairTemplate, a: str, b: str, pronoun: str) -> list[str]:
    """The parts of a paired prompt a model may repeat: the whole prompt, the instruction,
    the sentence and the question."""
    return [
        template.prompt(a, b, pronoun),
        template.instruction(),
        template.scenario(a, b, pronoun),
        template.question,
    ]


#: Titles and roles skipped before a first name ("Dr. Sarah Lee", "Detective Jane Doe").
TITLES = frozenset(
    """
    dr doctor detective mr mrs ms miss mx sir dame lady lord professor prof captain capt
    sergeant sgt inspector officer nurse chef judge madam madame agent constable lieutenant
    lt father sister brother mother aunt uncle chief coach reverend rev saint st king queen
    prince princess mister mistress master young old little big auntie granny grandpa
    grandma
    """.split()  # noqa: SIM905
)
_MARKUP = re.compile(r"[*_#`~>\[\]()\"“”‘’«»]")
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'\-]*\.?")


def first_name(text: str, opening: str | None = None) -> str | None:
    """The first name right after the story opening in ``text`` (None when there is none).

    An echoed ``opening`` (the prompt, up to "called") is skipped; markdown, quotes and
    titles such as Dr. or Detective are skipped; the name is the first remaining word if
    it starts with a capital letter.
    """
    clean = _MARKUP.sub(" ", str(text or ""))
    if opening:
        tail = " ".join(opening.split()[-3:])  # "a nurse called"
        match = _pattern(tail).search(clean)
        if match is not None and match.start() <= len(opening) + 40:
            clean = clean[match.end() :]
    for match in _WORD.finditer(clean[:200]):
        word = match.group(0).rstrip(".")
        if word.lower().rstrip(".") in TITLES:
            continue
        if word.lower().endswith("'s"):
            word = word[:-2]
        word = word.strip("'-")
        if not word or not word[0].isupper():
            return None
        return word
    return None
