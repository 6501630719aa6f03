""":func:`list_studies` and :func:`describe_study`: the studies gasp can run;
:func:`render_report`: a run's report again from its saved results."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from gasp._api._keywords import in_python_words, require_int, require_path, require_text
from gasp.io import TableRole


@dataclasses.dataclass(frozen=True)
class StudyOptionInfo:
    """One of a study's own options (``--study-option NAME=VALUE``)."""

    name: str
    #: The kind in words (``integer``, ``number``, ``true/false``, ``text``).
    kind: str
    #: The value the study uses when none is given (None: the study's data decides).
    default: Any
    #: The value of ``--quick`` (None: the default).
    quick: Any
    #: The range or choices in a few characters (empty: any value of the kind).
    range: str
    help: str
    #: What the option sizes, when it sets the size of the study (else empty).
    size: str = ""
    #: The option's own flag on ``gasp run`` (``--min-share``; empty: none).
    flag: str = ""

    @property
    def what_it_sets(self) -> str:
        """The help line, with the size the option sets when it sets one."""
        return self.help + (f"; size: {self.size}" if self.size else "")


@dataclasses.dataclass(frozen=True)
class StudyInfo:
    """A study: what it measures, where it comes from, its options and the columns it
    reads from a table of texts (``gasp analyze TABLE --study NAME``)."""

    name: str
    description: str
    package: str
    version: str
    options: tuple[StudyOptionInfo, ...]
    #: The ``--max-tokens`` of ``--quick`` (None: the run's default).
    quick_max_tokens: int | None
    #: The columns of a table of texts (none: the study analyses its own runs only).
    table_roles: tuple[TableRole, ...]
    table_help: str


@dataclasses.dataclass(frozen=True)
class StudyListing:
    """Every study that loads, and one warning per study plugin that failed to load."""

    studies: tuple[StudyInfo, ...]
    warnings: tuple[str, ...]


def _info(study: Any) -> StudyInfo:
    from gasp.studies import StudyOption, study_origin

    options = []
    for name, option in study.study_options.items():
        if isinstance(option, StudyOption):
            shown = (option.kind_name, option.default, option.quick, option.range_text())
            flag = "--" + name.replace("_", "-") if option.flag else ""
            options.append(StudyOptionInfo(name, *shown, option.help, option.size, flag))
        else:
            options.append(StudyOptionInfo(name, "text", None, None, "", str(option)))
    package, version = study_origin(study.name)
    return StudyInfo(
        name=study.name,
        description=study.description,
        package=package,
        version=version,
        options=tuple(options),
        quick_max_tokens=study.quick_max_tokens,
        table_roles=tuple(study.table_roles),
        table_help=study.table_help or "",
    )


def list_studies() -> StudyListing:
    """Every study gasp can run (built-in and from installed plugins), as ``gasp
    studies`` lists them: name, package and version, description and own options.

    Example:
        >>> import gasp
        >>> listing = gasp.list_studies()
        >>> "pronoun-pairs" in [study.name for study in listing.studies]
        True
    """
    from gasp.studies import plugin_warnings, study_types

    found = tuple(_info(study) for study in study_types())
    return StudyListing(found, tuple(plugin_warnings()))


def describe_study(study: str) -> StudyInfo:
    """The study called ``study``: its options (kind, default, ``--quick`` value,
    range) and the columns it reads from a table of texts, as ``gasp studies STUDY``
    shows them. An unknown study is a :class:`~gasp.errors.GaspError`.

    Example:
        >>> import gasp
        >>> info = gasp.describe_study("narratives")
        >>> info.name, any(role.name == "text" for role in info.table_roles)
        ('narratives', True)
    """
    fn = "gasp.describe_study"
    require_text(fn, "study", study)
    from gasp.studies import get_study_type

    with in_python_words(fn):
        return _info(get_study_type(study))


def render_report(
    run: str | Path,
    out: str | Path | None = None,
    *,
    examples_per_word: int | None = None,
) -> Path:
    """Render the HTML report of ``run`` (a run folder, a run store or an audit's or a
    comparison's results folder) again from its saved results, as ``gasp report``
    does; no model is called. ``out`` is the report folder (default: the run's).
    Returns the path of the report.

    Example:
        >>> import gasp
        >>> run = gasp.run("pronoun-pairs", "mock/personas", out=folder / "run", quick=True)
        >>> gasp.render_report(run.folder, folder / "again").name
        'report.html'
    """
    fn = "gasp.render_report"
    source = require_path(fn, "run", run, optional=False, folder=False)
    target = require_path(fn, "out", out)
    if examples_per_word is not None:
        require_int(fn, "examples_per_word", examples_per_word, minimum=1)
    assert source is not None
    from gasp.pipeline import report_run

    with in_python_words(fn):
        return report_run(source, target, examples_per_word=examples_per_word)


__all__ = ["StudyInfo", "StudyListing", "StudyOptionInfo", "describe_study", "list_studies",
           "render_report"]  # fmt: skip
