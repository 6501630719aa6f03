"""The data of OccuGender: jobs with BLS figures, task templates, gender expressions and
debiasing prompts (package data, or a user's own files in the same format)."""

from __future__ import annotations

import csv
import io
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from gasp.errors import ConfigError
from gasp.files import check_yaml_aliases, read_text_file

STUDY_KIND = "occugender"
JOB_PLACEHOLDER = "[JOB]"
TASKS = ("explicit", "implicit")
GENDERS = ("male", "female", "diverse")
GROUPS = ("female-dominated", "male-dominated")
LEVELS = ("high", "medium", "low")
#: The condition without a debiasing prompt (the paper's "None" rows and Table 2).
NO_DEBIASING = "none"

JOBS_FILE = "occugender_jobs.csv"
PROMPTS_FILE = "occugender_prompts.toml"
_ARTICLE = re.compile(r"\b([Aa])n? \[JOB\]")


@dataclass(frozen=True)
class Job:
    """One occupation: its group and the BLS percentage of women (and its year)."""

    name: str
    group: str
    bls_pct_female: float
    bls_year: int | None = None


@dataclass(frozen=True)
class Template:
    """A task prompt: the question and the answer line (``[JOB]`` is the occupation)."""

    id: str
    task: str
    question: str
    answer: str


@dataclass(frozen=True)
class Debiasing:
    """A debiasing prompt of Table 5 and its level of abstraction."""

    id: str
    level: str
    text: str


def article_for(job: str) -> str:
    """``an`` before a vowel letter, else ``a``."""
    return "an" if job.strip()[:1].lower() in "aeiou" else "a"


def fill(text: str, job: str, article: str = "auto") -> str:
    """``text`` with ``[JOB]`` replaced by ``job``; ``a [JOB]`` takes a/an (``auto``) or
    stays as written (``a``)."""
    if article == "auto":
        text = _ARTICLE.sub(
            lambda m: (
                (article_for(job).capitalize() if m.group(1) == "A" else article_for(job))
                + " "
                + JOB_PLACEHOLDER
            ),
            text,
        )
    return text.replace(JOB_PLACEHOLDER, job)


def _package_text(name: str) -> str:
    return (resources.files("gasp.studies.occugender") / "data" / name).read_text("utf-8")


def _read_user_file(path: str | Path, what: str) -> str:
    return read_text_file(path, what, error=ConfigError)  # no device, no huge file


def parse_jobs_csv(text: str, where: str) -> tuple[Job, ...]:
    """Jobs from CSV text with columns ``job`` (or ``occupation``), ``group``,
    ``bls_pct_female`` and optionally ``bls_year``; ``#`` lines are comments."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    if not rows:
        raise ConfigError(f"{where}: no jobs (expected columns job,group,bls_pct_female)")
    jobs: list[Job] = []
    for number, row in enumerate(rows, start=2):
        name = (row.get("job") or row.get("occupation") or "").strip()
        group = (row.get("group") or "").strip()
        if not name:
            raise ConfigError(f"{where}: row {number} has no job")
        if group not in GROUPS:
            raise ConfigError(f"{where}: job {name!r}: group must be one of {', '.join(GROUPS)}")
        try:
            pct = float(row.get("bls_pct_female") or "nan")
        except ValueError:
            pct = float("nan")
        if not 0.0 <= pct <= 100.0:
            raise ConfigError(f"{where}: job {name!r}: bls_pct_female must be in [0, 100]")
        year_text = (row.get("bls_year") or "").strip()
        if year_text and not year_text.isdigit():
            raise ConfigError(f"{where}: job {name!r}: bls_year must be a year")
        jobs.append(Job(name, group, pct, int(year_text) if year_text else None))
    names = [j.name for j in jobs]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: a job is listed twice")
    return tuple(jobs)


def default_jobs() -> tuple[Job, ...]:
    """The 40 jobs of Table 4 with their BLS 2021 percentages of women."""
    return parse_jobs_csv(_package_text(JOBS_FILE), JOBS_FILE)


def load_jobs(path: str | Path) -> tuple[Job, ...]:
    """A user's jobs file (same columns as the package's)."""
    return parse_jobs_csv(_read_user_file(path, "jobs file"), str(path))


def _read_mapping(path: str | Path, what: str) -> dict[str, Any]:
    text = _read_user_file(path, what)
    try:
        if not str(path).endswith(".toml"):
            check_yaml_aliases(text, str(path), error=ConfigError)
        data = tomllib.loads(text) if str(path).endswith(".toml") else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: invalid {what}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: a {what} must be a table of keys")
    return dict(data)


def _templates(entries: Any, where: str) -> tuple[Template, ...]:
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where}: 'templates' must be a non-empty list")
    out = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: each template is a table of id, task, question, answer")
        values = {k: str(entry.get(k) or "").strip() for k in ("id", "task", "question", "answer")}
        if values["task"] not in TASKS:
            raise ConfigError(
                f"{where}: template {values['id']!r}: task must be explicit or implicit"
            )
        if not values["id"] or JOB_PLACEHOLDER not in values["question"]:
            raise ConfigError(f"{where}: every template needs an id and [JOB] in its question")
        if not values["answer"]:
            raise ConfigError(f"{where}: template {values['id']!r} needs an answer line ('A:')")
        out.append(Template(**values))
    if len({t.id for t in out}) != len(out):
        raise ConfigError(f"{where}: two templates share an id")
    return tuple(out)


def _prompts() -> dict[str, Any]:
    return tomllib.loads(_package_text(PROMPTS_FILE))


def default_templates() -> tuple[Template, ...]:
    """The two example templates of Table 3."""
    return _templates(_prompts()["templates"], PROMPTS_FILE)


def load_templates(path: str | Path) -> tuple[Template, ...]:
    """A user's templates file (TOML or YAML: ``templates = [{id, task, question, answer}]``)."""
    return _templates(_read_mapping(path, "templates file").get("templates"), str(path))


def default_debiasing() -> tuple[Debiasing, ...]:
    """The six debiasing prompts of Table 5."""
    return tuple(Debiasing(str(d["id"]), d["level"], d["text"]) for d in _prompts()["debiasing"])


def _expression_sets(data: Any, where: str) -> dict[str, dict[str, tuple[str, ...]]]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: 'expressions' must map explicit/implicit to gender sets")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for task in TASKS:
        sets = data.get(task)
        if not isinstance(sets, Mapping) or set(sets) != set(GENDERS):
            raise ConfigError(f"{where}: expressions.{task} needs male, female and diverse lists")
        out[task] = {}
        for gender in GENDERS:
            words = sets[gender]
            if isinstance(words, str) or not isinstance(words, Sequence) or not words:
                raise ConfigError(f"{where}: expressions.{task}.{gender} must be a list of words")
            out[task][gender] = tuple(str(w).strip() for w in words if str(w).strip())
    return out


def default_expressions() -> dict[str, dict[str, tuple[str, ...]]]:
    """The gender expressions of Appendix A (explicit) and Table 3 (implicit)."""
    return _expression_sets(_prompts()["expressions"], PROMPTS_FILE)


def load_expressions(path: str | Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """A user's expressions file (TOML or YAML, the package's ``[expressions]`` layout)."""
    data = _read_mapping(path, "expressions file")
    return _expression_sets(data.get("expressions", data), str(path))


def case_variants(words: Sequence[str]) -> tuple[str, ...]:
    """Each word as written, capitalised and in lower case, without repeats."""
    out: dict[str, None] = {}
    for word in words:
        for form in (word, word[:1].upper() + word[1:], word.lower()):
            out.setdefault(form, None)
    return tuple(out)
