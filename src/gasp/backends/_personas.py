"""Deterministic persona-like text for the mock backend and the fake server.

The text reads like a short persona: a name, an occupation, pronouns of the
persona's gender and a few describing words. ``bias`` controls how strongly the
describing words depend on gender: ``0`` gives gender-blind text (a null model,
where only names and pronouns differ), ``1`` draws every describing word from a
stereotyped pool of the persona's gender.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

from gasp.errors import ConfigError

_PRONOUNS = {
    "F": ("She", "her", "her"),
    "M": ("He", "him", "his"),
    "N": ("They", "them", "their"),
}
_NAMES = {
    "F": ("Maria", "Emily", "Sarah", "Linda", "Grace", "Hannah", "Olivia", "Rachel"),
    "M": ("James", "David", "Michael", "Robert", "Daniel", "Thomas", "Kevin", "Brian"),
    "N": ("Alex", "Jordan", "Taylor", "Riley", "Casey", "Morgan", "Quinn", "Avery"),
}
_SHARED_WORDS = (
    "thoughtful",
    "careful",
    "curious",
    "reliable",
    "patient",
    "organized",
    "friendly",
    "skilled",
    "honest",
    "creative",
)
_STEREOTYPED_WORDS = {
    "F": ("caring", "warm", "gentle", "nurturing", "supportive", "compassionate"),
    "M": ("ambitious", "strong", "confident", "analytical", "decisive", "assertive"),
    "N": _SHARED_WORDS,
}
_PLACES = ("Ohio", "Texas", "Oregon", "Maine", "Georgia", "Nevada", "Vermont", "Iowa")
_HOBBIES = ("hiking", "cooking", "reading", "gardening", "painting", "cycling", "playing chess")
_TEMPLATES = (
    "{Sub} grew up in {place} and worked hard to become a {occupation}.",
    "Colleagues described {obj} as {word} and {word2}.",
    "{Sub} spent {pos} weekends {hobby} with friends.",
    "Every morning {sub} planned {pos} day; friends called the habit {word}.",
    "People who met {obj} remembered how {word} {sub} seemed.",
)
_GROUP_PATTERNS = (
    ("N", re.compile(r"\b(non-?binary|genderqueer|enby)\b", re.IGNORECASE)),
    ("F", re.compile(r"\b(woman|women|female|she|her|girl|lady|mother)\b", re.IGNORECASE)),
    ("M", re.compile(r"\b(man|men|male|he|him|his|boy|gentleman|father)\b", re.IGNORECASE)),
)
_SUBJECT = re.compile(r"\b(?:an?|the)\s+([A-Za-z][A-Za-z-]*)", re.IGNORECASE)


def stable_int(*parts: object) -> int:
    """A 64-bit integer hash of ``parts`` that is the same in every process."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def stable_uniform(*parts: object) -> float:
    """A uniform number in [0, 1) determined by ``parts``."""
    return stable_int(*parts) / 2.0**64


@dataclass(frozen=True)
class PersonaMix:
    """How personas are drawn when the prompt names no group."""

    female_share: float = 0.5
    nonbinary_share: float = 0.0
    bias: float = 0.0
    sentences: int = 4

    def __post_init__(self) -> None:
        for name in ("female_share", "nonbinary_share", "bias"):
            value = getattr(self, name)
            if not (0.0 <= value <= 1.0):
                raise ConfigError(f"{name} must be between 0 and 1, got {value}")
        if self.female_share + self.nonbinary_share > 1.0:
            raise ConfigError("female_share + nonbinary_share must not exceed 1")
        if self.sentences < 1:
            raise ConfigError(f"sentences must be at least 1, got {self.sentences}")


def group_named_in(prompt: str) -> str | None:
    """The gender (``"F"``, ``"M"``, ``"N"``) a prompt names, or ``None``."""
    for gender, pattern in _GROUP_PATTERNS:
        if pattern.search(prompt):
            return gender
    return None


def persona_text(prompt: str, rng: np.random.Generator, mix: PersonaMix = PersonaMix()) -> str:
    """Persona-like text for ``prompt``; gender follows the prompt, else ``mix``."""
    gender = group_named_in(prompt)
    if gender is None:
        u = float(rng.random())
        if u < mix.female_share:
            gender = "F"
        elif u < mix.female_share + mix.nonbinary_share:
            gender = "N"
        else:
            gender = "M"
    subjects = [m.group(1).lower() for m in _SUBJECT.finditer(prompt)]
    occupation = subjects[-1] if subjects else "professional"
    sub, obj, pos = _PRONOUNS[gender]
    name = _NAMES[gender][int(rng.integers(len(_NAMES[gender])))]

    def word() -> str:
        pool = _STEREOTYPED_WORDS[gender] if rng.random() < mix.bias else _SHARED_WORDS
        return pool[int(rng.integers(len(pool)))]

    first = word()
    article = "an" if first[0] in "aeiou" else "a"
    parts = [f"{name} is {article} {first} {occupation}."]
    for _ in range(mix.sentences - 1):
        template = _TEMPLATES[int(rng.integers(len(_TEMPLATES)))]
        parts.append(
            template.format(
                Sub=sub,
                sub=sub.lower(),
                obj=obj,
                pos=pos,
                occupation=occupation,
                word=word(),
                word2=word(),
                place=_PLACES[int(rng.integers(len(_PLACES)))],
                hobby=_HOBBIES[int(rng.integers(len(_HOBBIES)))],
            )
        )
    return " ".join(parts)
