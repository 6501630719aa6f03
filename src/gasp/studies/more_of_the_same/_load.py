"""Loading and validating studies: built-in names, TOML and YAML files, occupation CSVs.

A study file (TOML or YAML) has these keys; every mistake raises one
:class:`~gasp.errors.ConfigError` naming the file and the key::

    name = "nurses-and-pilots"         # required
    description = "..."                # optional
    n = 100                            # samples per named cell and per associated gender
    system_prompt = "..."              # optional
    subjects = ["nurse", "pilot"]      # names, or tables {name, article, <attributes>}
    subjects_file = "occupations.csv"  # or a CSV (relative to the study file)
    conditions = ["unspecified", "woman", "man", "nonbinary"]
                                       # or tables {name, named_gender, clause}

    [templates]                        # id -> text with [ARTICLE] and [OCCUPATION]
    persona = "Generate a persona of [ARTICLE] [OCCUPATION]"

    [stopping]                         # optional: adaptive, min_share, batch_size,
                                       # cap_factor, genders
    cap_factor = 20
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from gasp.errors import ConfigError
from gasp.files import read_text_file
from gasp.studies import STUDY_KIND_KEY, read_study_file
from gasp.studies.more_of_the_same._model import (
    STANDARD_CONDITIONS,
    STUDY_KIND,
    Condition,
    StoppingRule,
    Study,
    Subject,
)

_STUDY_KEYS = {
    "name",
    "description",
    "n",
    "system_prompt",
    "templates",
    "subjects",
    "subjects_file",
    "conditions",
    "stopping",
}
_STOPPING_KEYS = {"adaptive", "min_share", "batch_size", "cap_factor", "genders"}
_CONDITION_KEYS = {"name", "named_gender", "clause"}
_SUBJECT_NAME_COLUMNS = ("occupation", "name", "subject")


def default_article(name: str) -> str:
    """``an`` before a vowel letter, else ``a`` (override per subject where it is wrong)."""
    return "an" if name.strip()[:1].lower() in "aeiou" else "a"


def load_subjects_csv(path: str | Path) -> tuple[Subject, ...]:
    """Read subjects from a CSV file: a column ``occupation`` (or ``name``), optionally
    ``article``, and any other columns as attributes (numbers parsed). Lines starting
    with ``#`` are comments."""
    file = Path(path)
    raw = read_text_file(file, "occupations file", error=ConfigError)  # no device or huge file
    return _subjects_from_csv_text(raw, str(file))


def _subjects_from_csv_text(raw: str, source: str) -> tuple[Subject, ...]:
    lines = [
        line for line in raw.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        raise ConfigError(f"{source}: no rows")
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    fields = [f.strip() for f in (reader.fieldnames or [])]
    name_col = next((c for c in _SUBJECT_NAME_COLUMNS if c in fields), None)
    if name_col is None:
        raise ConfigError(f"{source}: needs a column named 'occupation' (or 'name'), got {fields}")
    subjects: list[Subject] = []
    seen: set[str] = set()
    for lineno, row in enumerate(reader, start=2):
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
        name = row.pop(name_col, "")
        if not name:
            raise ConfigError(f"{source}: empty occupation on data row {lineno - 1}")
        if name in seen:
            raise ConfigError(f"{source}: duplicate occupation {name!r}")
        seen.add(name)
        article = row.pop("article", "") or default_article(name)
        attributes = {k: _parse_scalar(v) for k, v in row.items() if k}
        subjects.append(Subject(name=name, article=article, attributes=attributes))
    if not subjects:
        raise ConfigError(f"{source}: no occupations")
    return tuple(subjects)


def _parse_scalar(value: str) -> Any:
    if value == "":
        return None
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return value


def builtin_study_names() -> tuple[str, ...]:
    """Names of the studies shipped with gasp."""
    from gasp.studies.more_of_the_same._study import BUILTIN_STUDIES

    return tuple(BUILTIN_STUDIES)


def load_study(name_or_path: str | Path) -> Study:
    """A built-in study by name (``more-of-the-same``) or a study file (TOML or YAML)."""
    from gasp.studies.more_of_the_same._study import BUILTIN_STUDIES

    if isinstance(name_or_path, str) and name_or_path in BUILTIN_STUDIES:
        return BUILTIN_STUDIES[name_or_path]()
    path = Path(name_or_path)
    if not path.exists():
        known = ", ".join(BUILTIN_STUDIES)
        raise ConfigError(
            f"no built-in study or study file called {str(name_or_path)!r} (built-in: {known})"
        )
    data = read_study_file(path)
    kind = data.pop(STUDY_KIND_KEY, STUDY_KIND)
    if kind != STUDY_KIND:
        raise ConfigError(f"{path}: a {kind!r} study file, not a {STUDY_KIND!r} one")
    return study_from_mapping(data, source=str(path), base_dir=path.parent)


def study_from_mapping(
    data: Mapping[str, Any], *, source: str, base_dir: Path | None = None
) -> Study:
    """Validate a parsed study file (or :meth:`Study.to_dict` output) and build the study."""
    unknown = sorted(set(data) - _STUDY_KEYS)
    if unknown:
        raise ConfigError(
            f"{source}: unknown key {unknown[0]!r} (expected {', '.join(sorted(_STUDY_KEYS))})"
        )
    name = _require(data, "name", str, source)
    templates = _templates(data.get("templates"), source)
    subjects = _subjects(data, source, base_dir)
    conditions = _conditions(data.get("conditions", list(STANDARD_CONDITIONS)), source)
    n = data.get("n", 100)
    if isinstance(n, bool) or not isinstance(n, int):
        raise ConfigError(f"{source}: n must be an integer, got {n!r}")
    stopping = _stopping(data.get("stopping", {}), source)
    description = data.get("description", "") or ""
    if not isinstance(description, str):
        raise ConfigError(f"{source}: description must be a string")
    system_prompt = data.get("system_prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise ConfigError(f"{source}: system_prompt must be a string")
    try:
        return Study(
            name=name,
            templates=templates,
            subjects=subjects,
            conditions=conditions,
            n=n,
            stopping=stopping,
            description=description,
            system_prompt=system_prompt,
        )
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _require(data: Mapping[str, Any], key: str, kind: type, source: str) -> Any:
    if key not in data:
        raise ConfigError(f"{source}: missing required key {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise ConfigError(f"{source}: {key} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _templates(value: Any, source: str) -> dict[str, str]:
    if value is None:
        raise ConfigError(f"{source}: missing required key 'templates'")
    if not isinstance(value, Mapping) or not value:
        raise ConfigError(f"{source}: templates must be a non-empty table of id = text")
    out: dict[str, str] = {}
    for tid, text in value.items():
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{source}: template {tid!r} must be a non-empty string")
        out[str(tid)] = text
    return out


def _subjects(data: Mapping[str, Any], source: str, base_dir: Path | None) -> tuple[Subject, ...]:
    has_list = "subjects" in data
    has_file = "subjects_file" in data
    if has_list == has_file:
        raise ConfigError(f"{source}: give exactly one of 'subjects' or 'subjects_file'")
    if has_file:
        file = data["subjects_file"]
        if not isinstance(file, str):
            raise ConfigError(f"{source}: subjects_file must be a path string")
        path = Path(file)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        return load_subjects_csv(path)
    value = data["subjects"]
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        raise ConfigError(f"{source}: subjects must be a non-empty list")
    subjects: list[Subject] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            subjects.append(Subject(item.strip(), default_article(item)))
        elif isinstance(item, Mapping):
            entry = dict(item)
            name = entry.pop("name", None)
            if not isinstance(name, str) or not name.strip():
                raise ConfigError(f"{source}: subjects[{i}] needs a string 'name'")
            article = entry.pop("article", None) or default_article(name)
            if not isinstance(article, str):
                raise ConfigError(f"{source}: subjects[{i}].article must be a string")
            attrs = entry.pop("attributes", None) or {}
            if not isinstance(attrs, Mapping):
                raise ConfigError(f"{source}: subjects[{i}].attributes must be a table")
            subjects.append(Subject(name.strip(), article, {**attrs, **entry}))
        else:
            raise ConfigError(f"{source}: subjects[{i}] must be a name or a table")
    return tuple(subjects)


def _conditions(value: Any, source: str) -> tuple[Condition, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        raise ConfigError(f"{source}: conditions must be a non-empty list")
    out: list[Condition] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            if item not in STANDARD_CONDITIONS:
                raise ConfigError(
                    f"{source}: unknown condition {item!r} "
                    f"(standard: {', '.join(STANDARD_CONDITIONS)}; or give a table)"
                )
            out.append(STANDARD_CONDITIONS[item])
        elif isinstance(item, Mapping):
            unknown = sorted(set(item) - _CONDITION_KEYS)
            if unknown:
                raise ConfigError(f"{source}: conditions[{i}]: unknown key {unknown[0]!r}")
            name = item.get("name")
            if not isinstance(name, str):
                raise ConfigError(f"{source}: conditions[{i}] needs a string 'name'")
            gender = item.get("named_gender") or None
            clause = item.get("clause", "") or ""
            if not isinstance(clause, str) or (gender is not None and not isinstance(gender, str)):
                raise ConfigError(
                    f"{source}: conditions[{i}]: clause and named_gender must be strings"
                )
            try:
                out.append(Condition(name, gender, clause))
            except ConfigError as exc:
                raise ConfigError(f"{source}: {exc}") from None
        else:
            raise ConfigError(f"{source}: conditions[{i}] must be a name or a table")
    return tuple(out)


def _stopping(value: Any, source: str) -> StoppingRule:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: stopping must be a table")
    unknown = sorted(set(value) - _STOPPING_KEYS)
    if unknown:
        raise ConfigError(
            f"{source}: stopping: unknown key {unknown[0]!r} "
            f"(expected {', '.join(sorted(_STOPPING_KEYS))})"
        )
    kwargs: dict[str, Any] = {}
    if "adaptive" in value:
        if not isinstance(value["adaptive"], bool):
            raise ConfigError(f"{source}: stopping.adaptive must be true or false")
        kwargs["adaptive"] = value["adaptive"]
    if "min_share" in value:
        share = value["min_share"]
        if isinstance(share, bool) or not isinstance(share, int | float):
            raise ConfigError(f"{source}: stopping.min_share must be a number")
        kwargs["min_share"] = float(share)
    for key in ("batch_size", "cap_factor"):
        if key in value and value[key] is not None:
            v = value[key]
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"{source}: stopping.{key} must be an integer")
            kwargs[key] = v
    if "genders" in value:
        genders = value["genders"]
        if not isinstance(genders, Sequence) or isinstance(genders, str):
            raise ConfigError(f"{source}: stopping.genders must be a list such as ['F', 'M']")
        kwargs["genders"] = tuple(str(g) for g in genders)
    try:
        return StoppingRule(**kwargs)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def read_packaged_text(filename: str) -> str:
    """The text of a data file shipped in ``gasp/studies/more_of_the_same/data``."""
    return (
        resources.files("gasp.studies.more_of_the_same")
        .joinpath("data", filename)
        .read_text(encoding="utf-8")
    )
