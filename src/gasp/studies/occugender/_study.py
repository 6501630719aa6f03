"""OccuGender as runner items: one score item per (template, job, debiasing condition).

Raw mode (the paper's): the context is the Q/A text (a debiasing prompt, when any, is a
line before ``Q:``) and every candidate is an expression with a leading space. Chat mode:
the question (with the debiasing line) is the user message and the expressions are
scored as the start of the assistant's answer; where the answer line holds text after
``A:`` (the implicit template's "I recently met a [JOB].") that text is scored too, alone
and followed by each expression, so the analysis reads every expression's probability
given it (the chain rule: the difference of the two log-probabilities).

Scoring is deterministic, so every item has ``n = 1``. With ``expressions =
single-token`` the candidates an approximate (first-token) backend would refuse are
dropped up front, by the rule of :func:`gasp.backends.multi_token_reason`, and recorded
in the spec as not scorable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gasp.backends import DEFAULT_MAX_CANDIDATE_CHARS, multi_token_reason
from gasp.errors import ConfigError
from gasp.runner import FixedN, Item, RequestKind, StudyPlan
from gasp.studies.occugender._data import (
    GENDERS,
    NO_DEBIASING,
    STUDY_KIND,
    Debiasing,
    Job,
    Template,
    case_variants,
    fill,
)

MODES = ("raw", "chat")
EXPRESSION_MODES = ("all", "single-token")
ARTICLES = ("auto", "a")


def answer_prefix(template: Template) -> str:
    """The text of the answer line after ``A:`` (empty for the explicit template)."""
    text = template.answer.strip()
    return text[2:].strip() if text[:2].upper() == "A:" else text


@dataclass(frozen=True)
class OccuGenderStudy:
    """A configured OccuGender study (see the module docstring)."""

    jobs: tuple[Job, ...]
    templates: tuple[Template, ...]
    expressions: Mapping[str, Mapping[str, tuple[str, ...]]]
    debiasing: tuple[Debiasing, ...]
    include_none: bool = True
    mode: str = "raw"
    article: str = "auto"
    case_variants: bool = True
    expression_mode: str = "all"
    max_candidate_chars: int = DEFAULT_MAX_CANDIDATE_CHARS
    name: str = STUDY_KIND
    sources: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"mode must be raw or chat, got {self.mode!r}")
        if self.expression_mode not in EXPRESSION_MODES:
            raise ConfigError(
                f"expressions must be all or single-token, got {self.expression_mode!r}"
            )
        if self.article not in ARTICLES:
            raise ConfigError(f"article must be auto or a, got {self.article!r}")
        if not self.jobs or not self.templates:
            raise ConfigError("an OccuGender study needs at least one job and one template")
        if not self.include_none and not self.debiasing:
            raise ConfigError("no debiasing condition selected")
        for task, sets in self.expressions.items():
            seen: dict[str, str] = {}
            for gender in GENDERS:
                for form in self.forms(sets[gender]):
                    if seen.setdefault(form, gender) != gender:
                        raise ConfigError(
                            f"{task} expression {form!r} belongs to {seen[form]} and {gender}"
                        )

    def forms(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """The surface forms scored for ``words`` (with case variants where chosen)."""
        return case_variants(words) if self.case_variants else tuple(dict.fromkeys(words))

    def conditions(self) -> list[tuple[str, str, str]]:
        """(condition id, level, debiasing text) in order, "none" first when included."""
        out = [(NO_DEBIASING, "none", "")] if self.include_none else []
        return out + [(d.id, d.level, d.text) for d in self.debiasing]

    def expression_genders(self, task: str) -> dict[str, str]:
        """Surface form -> gender for ``task``."""
        return {
            form: gender
            for gender in GENDERS
            for form in self.forms(tuple(self.expressions[task][gender]))
        }

    def _candidate(self, prefix: str, form: str) -> str:
        if self.mode == "raw":
            return " " + form
        return f"{prefix} {form}" if prefix else form

    def refusal(self, template: Template, form: str) -> str | None:
        """Why ``form`` is dropped under ``expressions = single-token`` (None: kept)."""
        if self.expression_mode != "single-token":
            return None
        prefix = answer_prefix(template) if self.mode == "chat" else ""
        if prefix:
            return (
                "in chat mode it follows the answer prefix "
                f"{prefix!r}, which first-token scoring cannot condition on"
            )
        reason = multi_token_reason(self._candidate("", form), "", self.max_candidate_chars)
        return None if reason is None else f"an approximate backend would refuse it: {reason}"

    def not_scorable(self) -> list[dict[str, str]]:
        """The expressions dropped per template, with the reason."""
        rows = []
        for template in self.templates:
            for form, gender in self.expression_genders(template.task).items():
                reason = self.refusal(template, form)
                if reason is not None:
                    rows.append(
                        {
                            "task": template.task,
                            "template": template.id,
                            "gender": gender,
                            "expression": form,
                            "reason": reason,
                        }
                    )
        return rows

    def item(self, template: Template, job: Job, condition: tuple[str, str, str]) -> Item | None:
        """The score item of one cell (None when every expression was dropped)."""
        cond_id, level, debias = condition
        question = fill(template.question, job.name, self.article)
        answer = fill(template.answer, job.name, self.article)
        lead = f"{debias}\n" if debias else ""
        prefix = ""
        if self.mode == "raw":
            prompt = f"{lead}{question}\n{answer}"
        else:
            prompt = f"{lead}{question}"
            prefix = answer_prefix(Template(template.id, template.task, "", answer))
        forms = [
            f for f in self.expression_genders(template.task) if self.refusal(template, f) is None
        ]
        if not forms:
            return None
        candidates = [self._candidate(prefix, f) for f in forms]
        if prefix:
            candidates.insert(0, prefix)
        return Item(
            key=(template.id, job.name, cond_id),
            prompt=prompt,
            attributes={
                "task": template.task,
                "template": template.id,
                "job": job.name,
                "group": job.group,
                "bls_pct_female": job.bls_pct_female,
                "bls_year": job.bls_year,
                "condition": cond_id,
                "level": level,
                "answer_prefix": prefix,
            },
            kind=RequestKind.SCORE,
            n=1,
            candidates=tuple(candidates),
            chat=self.mode == "chat",
        )

    def items(self) -> tuple[Item, ...]:
        """Every cell's item, by condition, template and job."""
        out = []
        for condition in self.conditions():
            for template in self.templates:
                for job in self.jobs:
                    item = self.item(template, job, condition)
                    if item is not None:
                        out.append(item)
        if not out:
            raise ConfigError(
                "every expression was dropped as not scorable: nothing to score "
                "(chat mode with expressions=single-token leaves only templates without an "
                "answer prefix)"
            )
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        """The study as plain data (the run manifest's ``spec``; the analysis reads it)."""
        return {
            "name": self.name,
            "mode": self.mode,
            "article": self.article,
            "case_variants": self.case_variants,
            "expressions_mode": self.expression_mode,
            "max_candidate_chars": self.max_candidate_chars,
            "jobs": [
                {
                    "job": j.name,
                    "group": j.group,
                    "bls_pct_female": j.bls_pct_female,
                    "bls_year": j.bls_year,
                }
                for j in self.jobs
            ],
            "templates": [
                {"id": t.id, "task": t.task, "question": t.question, "answer": t.answer}
                for t in self.templates
            ],
            "expressions": {
                task: {g: list(words) for g, words in sets.items()}
                for task, sets in self.expressions.items()
            },
            "expression_genders": {
                task: self.expression_genders(task) for task in self.expressions
            },
            "conditions": [
                {"id": c, "level": level, "text": text} for c, level, text in self.conditions()
            ],
            "not_scorable": self.not_scorable(),
            "sources": dict(self.sources),
        }

    def to_plan(self) -> StudyPlan:
        """The runner's view: the score items, n = 1 each."""
        return StudyPlan(
            kind=STUDY_KIND,
            name=self.name,
            items=self.items(),
            spec=self.to_dict(),
            stopping=FixedN(),
        )
