"""Answers to A, B or U (Section 3.3); protagonists' first names (Section 3.4) are found by
:func:`gasp.names.protagonist_name`.

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
