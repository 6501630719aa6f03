"""A study as data: templates, subjects, conditions, samples per cell, stopping rule.

A *cell* is one (template, subject, condition) triple. Named conditions insert a
clause naming the group right after the subject, as in seed ``000`` (Section 4):
``Generate a persona of a [OCCUPATION] who is a [woman/man/non-binary person]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gasp.errors import ConfigError

if TYPE_CHECKING:
    from gasp.runner import StudyPlan

#: Placeholders a template may contain. ``[OCCUPATION]`` is required; ``[ARTICLE]`` is
#: replaced by the subject's indefinite article; ``[GROUP]`` marks where the clause of a
#: named condition goes (right after ``[OCCUPATION]`` when absent).
SUBJECT_PLACEHOLDER = "[OCCUPATION]"
ARTICLE_PLACEHOLDER = "[ARTICLE]"
GROUP_PLACEHOLDER = "[GROUP]"

GENDER_CODES: tuple[str, ...] = ("F", "M", "N")

#: The registered name of this study type (recorded in every run manifest).
STUDY_KIND = "more-of-the-same"


@dataclass(frozen=True)
class Subject:
    """One subject of a study (an occupation) with its article and attributes.

    ``attributes`` holds facts about the subject, for example ``bls_pct_female`` and
    ``bls_year`` for the occupations of the More of the Same study.
    """

    name: str
    article: str = "a"
    attributes: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ConfigError("a subject name must not be empty")
        object.__setattr__(self, "attributes", dict(self.attributes))

    def to_dict(self) -> dict[str, Any]:
        """This subject as plain JSON-compatible data."""
        return {"name": self.name, "article": self.article, "attributes": dict(self.attributes)}


@dataclass(frozen=True)
class Condition:
    """A condition of a study: the group left unspecified or a named group.

    ``named_gender`` is ``None`` for the unspecified condition and ``F``, ``M`` or ``N``
    for a named one; ``clause`` is the text inserted after the subject (``who is a woman``).
    """

    name: str
    named_gender: str | None = None
    clause: str = ""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ConfigError("a condition name must not be empty")
        if self.named_gender is not None and self.named_gender not in GENDER_CODES:
            raise ConfigError(
                f"condition {self.name!r}: named_gender must be one of F, M, N or empty, "
                f"got {self.named_gender!r}"
            )
        if self.named_gender is not None and not self.clause.strip():
            raise ConfigError(f"condition {self.name!r} names a gender but has no clause")

    @property
    def is_named(self) -> bool:
        """True when the prompt names the group."""
        return self.named_gender is not None

    def to_dict(self) -> dict[str, Any]:
        """This condition as plain JSON-compatible data."""
        return {"name": self.name, "named_gender": self.named_gender, "clause": self.clause}


#: The four conditions of seed ``000`` (Section 4), by name.
STANDARD_CONDITIONS: Mapping[str, Condition] = MappingProxyType(
    {
        "unspecified": Condition("unspecified"),
        "woman": Condition("woman", "F", "who is a woman"),
        "man": Condition("man", "M", "who is a man"),
        "nonbinary": Condition("nonbinary", "N", "who is a non-binary person"),
    }
)


@dataclass(frozen=True)
class StoppingRule:
    """When an unspecified cell has enough samples (seed ``000``, Algorithm 5, Appendix A.3).

    With ``adaptive`` on, an unspecified cell is generated in batches of
    ``batch_size`` (``None``: the study's n) until at least n generations are
    associated with each of ``genders``; it is skipped when any of them is below
    ``min_share`` of the first batch, and it stops at ``cap_factor`` x n samples.
    With ``adaptive`` off every cell gets exactly n samples.
    """

    adaptive: bool = True
    min_share: float = 0.10
    batch_size: int | None = None
    cap_factor: int = 20
    genders: tuple[str, ...] = ("F", "M")

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_share < 1.0:
            raise ConfigError(f"stopping.min_share must be in [0, 1), got {self.min_share}")
        if self.batch_size is not None and self.batch_size < 1:
            raise ConfigError(f"stopping.batch_size must be at least 1, got {self.batch_size}")
        if self.cap_factor < 1:
            raise ConfigError(f"stopping.cap_factor must be at least 1, got {self.cap_factor}")
        if not self.genders or any(g not in GENDER_CODES for g in self.genders):
            raise ConfigError(
                f"stopping.genders must be a non-empty list of F, M, N, got {self.genders}"
            )

    def first_batch(self, n: int) -> int:
        """Size of each batch of an unspecified cell, the first included."""
        return min(self.batch_size or n, self.cap(n))

    def cap(self, n: int) -> int:
        """Most samples an unspecified cell may receive."""
        return self.cap_factor * n

    def to_dict(self) -> dict[str, Any]:
        """This rule as plain JSON-compatible data."""
        return {
            "adaptive": self.adaptive,
            "min_share": self.min_share,
            "batch_size": self.batch_size,
            "cap_factor": self.cap_factor,
            "genders": list(self.genders),
        }


@dataclass(frozen=True)
class Cell:
    """One (template, subject, condition) triple of a study with its rendered prompt."""

    template: str
    subject: Subject
    condition: Condition
    prompt: str

    @property
    def key(self) -> tuple[str, str, str]:
        """The identity of the cell in a run store."""
        return (self.template, self.subject.name, self.condition.name)


@dataclass(frozen=True)
class Study:
    """A generation study: what to ask, about whom, under which conditions and how often.

    ``templates`` maps a template id to its text (with ``[ARTICLE] [OCCUPATION]``);
    ``n`` is the number of samples per named cell and per associated gender of an
    unspecified cell.
    """

    name: str
    templates: Mapping[str, str]
    subjects: tuple[Subject, ...]
    conditions: tuple[Condition, ...]
    n: int = 100
    stopping: StoppingRule = field(default_factory=StoppingRule)
    description: str = ""
    system_prompt: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "templates", dict(self.templates))
        object.__setattr__(self, "subjects", tuple(self.subjects))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        if not self.name.strip():
            raise ConfigError("a study needs a name")
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ConfigError(f"n (samples per cell) must be a positive integer, got {self.n!r}")
        if not self.templates:
            raise ConfigError(f"study {self.name!r} has no templates")
        for tid, text in self.templates.items():
            if SUBJECT_PLACEHOLDER not in text:
                raise ConfigError(f"template {tid!r} lacks the placeholder {SUBJECT_PLACEHOLDER}")
        if not self.subjects:
            raise ConfigError(f"study {self.name!r} has no subjects")
        _no_duplicates("subject", [s.name for s in self.subjects])
        if not self.conditions:
            raise ConfigError(f"study {self.name!r} has no conditions")
        _no_duplicates("condition", [c.name for c in self.conditions])

    # -- derived views -------------------------------------------------------------

    def render(self, template: str, subject: Subject, condition: Condition) -> str:
        """The prompt of one cell."""
        text = self.templates[template]
        clause = f" {condition.clause}" if condition.clause else ""
        if GROUP_PLACEHOLDER in text:
            text = text.replace(" " + GROUP_PLACEHOLDER, clause).replace(GROUP_PLACEHOLDER, clause)
        else:
            text = text.replace(SUBJECT_PLACEHOLDER, SUBJECT_PLACEHOLDER + clause, 1)
        return text.replace(ARTICLE_PLACEHOLDER, subject.article).replace(
            SUBJECT_PLACEHOLDER, subject.name
        )

    def cells(self) -> Iterator[Cell]:
        """Every cell, subjects outermost, then templates, then conditions."""
        for subject in self.subjects:
            for template in self.templates:
                for condition in self.conditions:
                    yield Cell(
                        template, subject, condition, self.render(template, subject, condition)
                    )

    def is_adaptive(self, condition: Condition) -> bool:
        """True when cells of ``condition`` follow the adaptive stopping rule."""
        return self.stopping.adaptive and not condition.is_named

    def subject(self, name: str) -> Subject:
        """The subject called ``name``."""
        for s in self.subjects:
            if s.name == name:
                return s
        raise ConfigError(f"unknown subject {name!r} in study {self.name!r}")

    def condition(self, name: str) -> Condition:
        """The condition called ``name``."""
        for c in self.conditions:
            if c.name == name:
                return c
        raise ConfigError(f"unknown condition {name!r} in study {self.name!r}")

    # -- reductions ----------------------------------------------------------------

    def restrict(
        self,
        *,
        subjects: Sequence[str] | None = None,
        templates: Sequence[str] | None = None,
        conditions: Sequence[str] | None = None,
        n: int | None = None,
    ) -> Study:
        """A smaller study: only the named subjects, templates and conditions, or another n."""
        new_subjects = self.subjects
        if subjects is not None:
            new_subjects = tuple(self.subject(_clean(s)) for s in _dedupe(subjects))
        new_templates: Mapping[str, str] = self.templates
        if templates is not None:
            unknown = [t for t in templates if t not in self.templates]
            if unknown:
                raise ConfigError(
                    f"unknown template {unknown[0]!r}; this study has {', '.join(self.templates)}"
                )
            new_templates = {t: self.templates[t] for t in _dedupe(templates)}
        new_conditions = self.conditions
        if conditions is not None:
            new_conditions = tuple(self.condition(_clean(c)) for c in _dedupe(conditions))
        return replace(
            self,
            subjects=new_subjects,
            templates=new_templates,
            conditions=new_conditions,
            n=self.n if n is None else n,
        )

    def with_subjects(self, subjects: Iterable[Subject]) -> Study:
        """The same study over other subjects (for example a user's own occupations)."""
        return replace(self, subjects=tuple(subjects))

    # -- serialization -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The study as plain JSON-compatible data (what a run manifest stores)."""
        return {
            "name": self.name,
            "description": self.description,
            "n": self.n,
            "system_prompt": self.system_prompt,
            "templates": dict(self.templates),
            "conditions": [c.to_dict() for c in self.conditions],
            "stopping": self.stopping.to_dict(),
            "subjects": [s.to_dict() for s in self.subjects],
        }

    def to_json(self) -> str:
        """The study as canonical JSON (sorted keys), stable across runs."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Study:
        """Rebuild a study from :meth:`to_dict` output."""
        from gasp.studies.more_of_the_same._load import study_from_mapping

        return study_from_mapping(data, source="study")

    def to_plan(self) -> StudyPlan:
        """The runner's items of this study (one per cell) and its stopping rule."""
        from gasp.studies.more_of_the_same._items import study_plan

        return study_plan(self)


def _clean(name: str) -> str:
    return name.strip()


def _dedupe(items: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item.strip(), None)
    return list(seen)


def _no_duplicates(kind: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ConfigError(f"duplicate {kind} {name!r}")
        seen.add(name)
