"""The two studies as runner items: paired prompts and narrative openings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gasp.errors import ConfigError
from gasp.runner import Completion, FixedN, Item, StudyPlan
from gasp.studies.pronoun_pairs._professions import Profession
from gasp.studies.pronoun_pairs._templates import (
    NARRATIVE_STOP,
    NARRATIVE_TEMPLATES,
    PAIR_STOP,
    PAIR_TEMPLATES,
    PRONOUNS,
    STORYTELLER,
    narrative_prompt,
)

PAIRS_KIND = "pronoun-pairs"
NARRATIVES_KIND = "narratives"


def _templates(names: list[str] | None, known: dict[str, Any], what: str) -> tuple[str, ...]:
    if names is None:
        return tuple(known)
    unknown = [t for t in names if t not in known]
    if unknown:
        raise ConfigError(f"unknown {what} template {unknown[0]!r}; known: {', '.join(known)}")
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class PairsStudy:
    """Profession pairs x Table 1 templates x he/she/they, ``n`` answers per prompt.

    ``pairs`` are (A, B) with A != B, drawn once (``pair_seed``) from ``source``.
    """

    pairs: tuple[tuple[str, str], ...]
    templates: tuple[str, ...] = tuple(PAIR_TEMPLATES)
    n: int = 1
    pair_seed: int = 0
    source: str = "default"
    name: str = PAIRS_KIND

    def __post_init__(self) -> None:
        _templates(list(self.templates), dict(PAIR_TEMPLATES), "paired")
        if any(a == b for a, b in self.pairs):
            raise ConfigError("a profession pair needs two different professions")
        if len(set(self.pairs)) != len(self.pairs):
            raise ConfigError("profession pairs repeat")

    def items(self) -> tuple[Item, ...]:
        """One item per (template, pair, pronoun), in that order."""
        out = []
        for template in self.templates:
            spec = PAIR_TEMPLATES[template]
            for index, (a, b) in enumerate(self.pairs):
                for pronoun in PRONOUNS:
                    out.append(
                        Item(
                            key=(template, str(index), pronoun),
                            prompt=spec.prompt(a, b, pronoun),
                            attributes={
                                "template": template,
                                "pair_id": index,
                                "profession_a": a,
                                "profession_b": b,
                                "pronoun": pronoun,
                                "expected": spec.expected,
                            },
                            n=self.n,
                            completion=Completion(spec.completion(a, b, pronoun), PAIR_STOP),
                        )
                    )
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        """The study as plain data (recorded in the run manifest)."""
        return {
            "study": PAIRS_KIND,
            "templates": list(self.templates),
            "pairs": [list(p) for p in self.pairs],
            "pair_seed": self.pair_seed,
            "source": self.source,
            "n": self.n,
        }

    def to_plan(self) -> StudyPlan:
        """The runner's view: every item, ``n`` answers each."""
        return StudyPlan(
            kind=PAIRS_KIND,
            name=self.name,
            items=self.items(),
            spec=self.to_dict(),
            stopping=FixedN(),
        )


@dataclass(frozen=True)
class NarrativeStudy:
    """Professions x Table 2 openings, ``n`` stories each (k = 20 in Section 4.2.2), the
    storyteller instruction as the system message."""

    professions: tuple[Profession, ...]
    templates: tuple[str, ...] = tuple(NARRATIVE_TEMPLATES)
    n: int = 20
    source: str = "default"
    system_prompt: str = STORYTELLER
    name: str = NARRATIVES_KIND

    def __post_init__(self) -> None:
        _templates(list(self.templates), NARRATIVE_TEMPLATES, "narrative")
        if not self.professions:
            raise ConfigError("the narrative study needs at least one profession")

    def items(self) -> tuple[Item, ...]:
        """One item per (template, profession); the completion form is the opening
        itself, for a base model to continue (its first paragraph)."""
        return tuple(
            Item(
                key=(template, p.name),
                prompt=narrative_prompt(template, p.name, p.article),
                attributes={"template": template, "profession": p.name},
                n=self.n,
                completion=Completion(
                    narrative_prompt(template, p.name, p.article), NARRATIVE_STOP
                ),
            )
            for template in self.templates
            for p in self.professions
        )

    def to_dict(self) -> dict[str, Any]:
        """The study as plain data (recorded in the run manifest)."""
        return {
            "study": NARRATIVES_KIND,
            "templates": list(self.templates),
            "professions": [[p.name, p.article] for p in self.professions],
            "source": self.source,
            "n": self.n,
            "system_prompt": self.system_prompt,
        }

    def to_plan(self) -> StudyPlan:
        """The runner's view: every opening, ``n`` stories each, after the system message."""
        return StudyPlan(
            kind=NARRATIVES_KIND,
            name=self.name,
            items=self.items(),
            spec=self.to_dict(),
            stopping=FixedN(),
            system_prompt=self.system_prompt,
        )
