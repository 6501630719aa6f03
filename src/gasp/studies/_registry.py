"""Studies by name: the :class:`StudyType` contract, the registry, and study files.

A study type is a package under ``gasp.studies`` (or a user's own) that turns a
study source (its registered name or a study file) into runner items, analyses a
run store into results, and renders its report section from those results. The
registry maps names to types; built-in types are imported only when asked for, so
study packages never import each other.
"""

from __future__ import annotations

import abc
import dataclasses
import importlib
import tomllib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from gasp.errors import ConfigError
from gasp.files import check_yaml_aliases, read_text_file
from gasp.io import TableRole, TextTable
from gasp.results import HeadlineMetric
from gasp.runner import Plannable, RequestKind, StudyPlan, as_plan
from gasp.studies._options import (
    PROMPT_FORM_OPTION,
    ResolvedOptions,
    StudyOption,
    check_study_options,
    quick_values,
    resolve_study_options,
    with_quick,
)
from gasp.studies._plugins import StudyPlugin, study_plugins
from gasp.studies._sizes import DECODING_KEYS, PlanSize

#: Built-in study types: registered name -> module exposing ``STUDY_TYPE``.
BUILTIN_STUDY_MODULES: Mapping[str, str] = {
    "more-of-the-same": "gasp.studies.more_of_the_same",
    "marked-personas": "gasp.studies.marked_personas",
    "occugender": "gasp.studies.occugender",
    "pronoun-pairs": "gasp.studies.pronoun_pairs",
    "narratives": "gasp.studies.pronoun_pairs.narratives",
}

#: The key of a study file naming its study type (default: more-of-the-same).
STUDY_KIND_KEY = "study"
DEFAULT_STUDY_KIND = "more-of-the-same"


class StudyType(abc.ABC):
    """One kind of study: its items, its analysis and its report section.

    ``options`` passed to :meth:`build`, :meth:`analyze` and :meth:`report` are the
    command line's values by name (None for an option not given), the study's own
    options (``--study-option KEY=VALUE``, declared in :attr:`study_options`) among
    them; a study type raises :class:`ConfigError` for a given option it does not use
    (:func:`reject_options`).

    Options are declared once, in :attr:`study_options`: each a :class:`StudyOption`
    with its kind, range, default, ``--quick`` value and help. :meth:`resolve_options`
    checks and types the values given and fills in the defaults (the study reads that
    result); :meth:`quick_options` derives ``--quick`` from the declarations;
    :meth:`plan` builds the study and records the resolved values in the plan (the run
    manifest stores them).

    Sizes for an audit: the options declared with ``size`` are the sizes the study's
    comparisons pair over (:meth:`size_options`); :meth:`plan_size` builds the plan of
    some options (no model is called) and counts its paired units, requests and most
    tokens per request. An audit planner sets the sizes and asks::

        study = get_study_type("narratives")
        study.size_options()            # {"n": StudyOption(..., size="stories ...")}
        study.plan_size({"n": 24})      # PlanSize(units=..., requests=..., ...)
    """

    #: Registered name (``gasp run NAME``), recorded in every run manifest.
    name: str
    #: One line for ``gasp studies``.
    description: str
    #: The study's own options (``--study-option KEY=VALUE``): name -> its declaration
    #: (a :class:`StudyOption`: help line, kind, range or choices, default, quick value,
    #: size; a plain string is a help line whose values are not checked up front).
    study_options: Mapping[str, StudyOption | str] = {}
    #: The columns ``gasp analyze TABLE`` reads (``text`` first); empty: no tables.
    table_roles: Sequence[TableRole] = ()
    #: One line on the analysis of a table (for ``gasp studies NAME``), if any.
    table_help: str = ""
    #: The options :meth:`analyze` reads besides the study's own (:attr:`study_options`);
    #: None: not declared, so not checked before a run starts.
    analysis_options: frozenset[str] | None = None
    #: Most tokens per answer under ``--quick`` (None: the study's decoding default).
    quick_max_tokens: int | None = None

    def decoding_defaults(self) -> dict[str, Any]:
        """Decoding settings this study uses unless the command line gives others
        (``temperature``, ``top_p``, ``max_tokens``); gasp's defaults fill the rest."""
        return {}

    def decoding_settings(
        self, given: Mapping[str, Any] | None = None, *, quick: bool = False
    ) -> dict[str, Any]:
        """``temperature``, ``top_p`` and ``max_tokens``: those ``given`` (not None),
        else (with ``quick``) :attr:`quick_max_tokens`, else :meth:`decoding_defaults`,
        else :class:`~gasp.backends.DecodingConfig`'s defaults."""
        from gasp.backends import DecodingConfig

        defaults = DecodingConfig()
        values: dict[str, Any] = {k: getattr(defaults, k) for k in DECODING_KEYS}
        values.update(self.decoding_defaults())
        if quick and self.quick_max_tokens is not None:
            values["max_tokens"] = self.quick_max_tokens
        values.update({k: v for k, v in (given or {}).items() if k in values and v is not None})
        return values

    @abc.abstractmethod
    def build(self, source: str | Path, options: Mapping[str, Any]) -> Plannable:
        """The study to run: ``source`` is this type's name or a study file."""

    def quick_options(self) -> dict[str, Any]:
        """Option values of ``gasp run --quick`` (explicit options override them): the
        declared ``quick`` values and :attr:`quick_max_tokens`."""
        values = quick_values(self.study_options)
        if self.quick_max_tokens is not None:
            values["max_tokens"] = self.quick_max_tokens
        return values

    def with_quick(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """``given`` with :meth:`quick_options` filling what it leaves unset (an option
        given explicitly, or one that overrides the quick value, wins; ``max_tokens``
        is a decoding setting, left out)."""
        preset = {k: v for k, v in self.quick_options().items() if k != "max_tokens"}
        return with_quick(self.study_options, given, preset)

    def resolve_options(self, given: Mapping[str, Any], *, quick: bool = False) -> ResolvedOptions:
        """The options to read: each declared option checked, typed and defaulted once
        (with ``quick``, its ``--quick`` value first where none was given)."""
        values = self.with_quick(given) if quick else given
        return resolve_study_options(self.name, self.study_options, values)

    def plan(
        self, source: str | Path, options: Mapping[str, Any], *, quick: bool = False
    ) -> StudyPlan:
        """The study's plan under the resolved ``options``, which it records (the run
        manifest stores them)."""
        resolved = self.resolve_options(options, quick=quick)
        form = resolved.get(PROMPT_FORM_OPTION)
        given = resolved
        if PROMPT_FORM_OPTION in resolved:  # the runner's, not the study's to build
            values = {k: v for k, v in resolved.items() if k != PROMPT_FORM_OPTION}
            given = ResolvedOptions(values, resolved.explicit - {PROMPT_FORM_OPTION})
        plan = as_plan(self.build(source, given))
        plan = dataclasses.replace(plan, options=resolved.plain())
        return dataclasses.replace(plan, prompt_form=form) if form else plan

    def size_options(self) -> dict[str, StudyOption]:
        """The declared options that are sizes of the study's comparisons."""
        return {
            name: option
            for name, option in self.study_options.items()
            if isinstance(option, StudyOption) and option.size
        }

    def size_units(self, plan: StudyPlan) -> int:
        """The paired units of ``plan`` that the comparisons pair over (default: the
        answers asked for, one per request)."""
        return sum(item.n for item in plan.items)

    def plan_size(
        self,
        options: Mapping[str, Any] | None = None,
        *,
        quick: bool = False,
        source: str | Path | None = None,
    ) -> PlanSize:
        """Units, requests and most tokens per request of the plan that ``options``
        (sizes among them; decoding settings such as ``max_tokens`` too) make, counted
        from the built plan: no model is called."""
        given = dict(options or {})
        decoding = self.decoding_settings(given, quick=quick)
        for key in DECODING_KEYS:
            given.pop(key, None)
        plan = self.plan(self.name if source is None else source, given, quick=quick)
        low = high = 0
        scoring = True
        for item in plan.items:
            bounds = plan.stopping.start(item).bounds()
            low, high = low + bounds[0], high + bounds[1]
            scoring = scoring and item.kind is RequestKind.SCORE
        return PlanSize(
            units=self.size_units(plan),
            requests=low,
            requests_max=high,
            max_tokens=1 if scoring else int(decoding["max_tokens"]),
        )

    @abc.abstractmethod
    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Analyse the run store into the results folder; return a short summary."""

    def check_analysis_options(self, options: Mapping[str, Any]) -> None:
        """Raise :class:`ConfigError` for a given option :meth:`analyze` does not read
        (checked by ``gasp run`` before its banner, so a run does not generate first and
        fail at its analysis; nothing is checked where :attr:`analysis_options` is None)."""
        if self.analysis_options is not None:
            reject_options(self.name, options, {*self.analysis_options, *self.study_options})
        declared = {k: v for k, v in options.items() if k in self.study_options}
        check_study_options(self.name, self.study_options, declared)

    def table_roles_for(self, options: Mapping[str, Any]) -> Sequence[TableRole]:
        """The columns a table of texts needs under ``options`` (default:
        :attr:`table_roles`; a study whose columns depend on a study file overrides)."""
        return self.table_roles

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Analyse texts the user already has (a table or another tool's log, read with
        :attr:`table_roles`; no run store) into the results folder, recording
        ``texts.record()`` in the results' settings; return a short summary whose
        ``lines`` include ``texts.notes`` (default: not supported)."""
        raise ConfigError(f"study {self.name!r} cannot analyse a table of generations")

    def probe(self, results: Path, options: Mapping[str, Any]) -> str:
        """An optional step after the analysis (default: none); a one-line summary."""
        return f"study {self.name!r} has no probe step"

    @abc.abstractmethod
    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """Render the report from saved results only; return the HTML file."""

    def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
        """The study's headline metrics (declared once in its package), read from its saved
        results by the audit (default: none)."""
        return ()

    def with_headline(self, results: Path, summary: Mapping[str, Any]) -> Mapping[str, Any]:
        """Save the headline metrics of the results in ``results`` (each value with its
        interval from the run's own units, or why it has none) in their ``results.json``;
        return ``summary`` (an analysis ends with it)."""
        from gasp.results import INDEX_FILE, record_headline

        if (Path(results) / INDEX_FILE).is_file():
            record_headline(results, self.headline_metrics())
        return summary

    def compare(
        self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Compare several analysed runs of this study into ``out``; a short summary
        (default: not supported)."""
        raise ConfigError(f"study {self.name!r} has no comparison across runs")


#: Options every study accepts (it may ignore them): the run seed, samples per item,
#: example texts kept per word.
COMMON_OPTIONS = frozenset({"seed", "n", "examples_per_word"})


def reject_options(study: str, options: Mapping[str, Any], allowed: Collection[str]) -> None:
    """Raise :class:`ConfigError` when an option outside ``allowed`` (and
    :data:`COMMON_OPTIONS`) was given (None and False count as not given)."""
    given = sorted(
        k
        for k, v in options.items()
        if v is not None and v is not False and k not in allowed and k not in COMMON_OPTIONS
    )
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise ConfigError(f"option {flag} does not apply to study {study!r}")


_REGISTRY: dict[str, StudyType] = {}
#: One line per plugin that failed to load (by plugin name).
_BROKEN: dict[str, str] = {}


def register_study(study_type: StudyType) -> None:
    """Make ``study_type`` available by its name (replacing one of the same name)."""
    if not study_type.name.strip():
        raise ConfigError("a study type needs a name")
    _REGISTRY[study_type.name] = study_type


def _plugins() -> dict[str, StudyPlugin]:
    return {k: v for k, v in study_plugins().items() if k not in BUILTIN_STUDY_MODULES}


def study_names() -> tuple[str, ...]:
    """Names of every known study type: built-in first, then plugins, then registered."""
    return tuple(dict.fromkeys([*BUILTIN_STUDY_MODULES, *_plugins(), *_REGISTRY]))


def study_origin(name: str) -> tuple[str, str]:
    """The package providing study ``name`` and its version (``gasp`` for built-ins and
    types registered in-process)."""
    plugin = _plugins().get(name)
    if plugin is not None and name not in BUILTIN_STUDY_MODULES:
        return plugin.package, plugin.version
    from importlib import metadata

    try:
        return "gasp", metadata.version("gasp")
    except metadata.PackageNotFoundError:
        return "gasp", "?"


def _load_plugin(plugin: StudyPlugin) -> None:
    try:
        study_type = plugin.load()
    except Exception as exc:  # a third-party module may raise anything on import
        reason = " ".join(str(exc).split()) or type(exc).__name__
        _BROKEN[plugin.name] = (
            f"study plugin {plugin.name!r} of {plugin.package} {plugin.version} "
            f"cannot be loaded ({type(exc).__name__}: {reason})"
        )
        return
    _BROKEN.pop(plugin.name, None)
    register_study(study_type)


def get_study_type(name: str) -> StudyType:
    """The study type called ``name`` (built-in and plugin types are imported on first
    use; a plugin that fails to load is a :class:`ConfigError`)."""
    if name not in _REGISTRY and name in BUILTIN_STUDY_MODULES:
        module = importlib.import_module(BUILTIN_STUDY_MODULES[name])
        register_study(module.STUDY_TYPE)
    plugin = _plugins().get(name)
    if name not in _REGISTRY and plugin is not None:
        _load_plugin(plugin)
        if name in _BROKEN:
            raise ConfigError(_BROKEN[name])
    if name not in _REGISTRY:
        raise ConfigError(f"unknown study {name!r}; known: {', '.join(study_names())}")
    return _REGISTRY[name]


def study_types() -> list[StudyType]:
    """Every study type that loads; plugins that fail are left out and named by
    :func:`plugin_warnings`."""
    loaded = []
    for name in study_names():
        try:
            loaded.append(get_study_type(name))
        except ConfigError:
            if name not in _BROKEN:
                raise
    return loaded


def forget_plugins() -> None:
    """Forget the plugins read and loaded so far: the entry points are read again on
    the next call (after installing or removing a plugin)."""
    for name in _plugins():
        _REGISTRY.pop(name, None)
    _BROKEN.clear()
    study_plugins.cache_clear()


def plugin_warnings() -> list[str]:
    """One line per study plugin that failed to load so far."""
    return [_BROKEN[name] for name in sorted(_BROKEN)]


#: The largest study file read (one holds kilobytes).
MAX_STUDY_FILE_BYTES = 16 * 1024**2


def read_study_file(path: str | Path) -> dict[str, Any]:
    """The keys of a study file (TOML or YAML); every problem is one :class:`ConfigError`."""
    file = Path(path)
    if file.is_dir():
        raise ConfigError(f"{file} is a directory, not a study file")
    text = read_text_file(file, "study file", MAX_STUDY_FILE_BYTES, ConfigError)
    suffix = file.suffix.lower()
    data: Any
    if suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file}: invalid TOML: {exc}") from None
    elif suffix in (".yaml", ".yml"):
        check_yaml_aliases(text, str(file), error=ConfigError)  # an alias bomb
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            msg = " ".join(str(exc).split())
            raise ConfigError(f"{file}: invalid YAML: {msg}") from None
    else:
        raise ConfigError(f"{file}: a study file must end in .toml, .yaml or .yml")
    if not isinstance(data, Mapping):
        raise ConfigError(f"{file}: a study file must be a table of keys")
    return dict(data)


def study_type_for(source: str | Path) -> StudyType:
    """The study type of ``source``: a registered name, or a study file whose ``study``
    key names its type (more-of-the-same when absent)."""
    text = str(source)
    if text in study_names():
        return get_study_type(text)
    path = Path(source)
    if not path.exists():
        raise ConfigError(
            f"no study or study file called {text!r} (studies: {', '.join(study_names())})"
        )
    kind = read_study_file(path).get(STUDY_KIND_KEY, DEFAULT_STUDY_KIND)
    if not isinstance(kind, str):
        raise ConfigError(f"{path}: {STUDY_KIND_KEY} must be a study name, got {kind!r}")
    return get_study_type(kind)


def study_type_of_manifest(manifest: Mapping[str, Any]) -> StudyType:
    """The study type recorded in a run manifest."""
    kind = manifest.get("study_kind") or DEFAULT_STUDY_KIND
    return get_study_type(str(kind))
