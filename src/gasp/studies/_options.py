"""A study's own options: each declared once, typed, and resolved once.

A study type declares each of its options once, as a :class:`StudyOption`: its help
line, its kind (text, integer, number, true/false), its range or choices, its default,
its ``--quick`` value and, for the sizes an audit pairs over, what one unit of it is.
:func:`check_study_options` checks the values of a command line against those
declarations before anything runs; :func:`resolve_study_options` turns the values given
into a :class:`ResolvedOptions`: every declared option typed, the explicit value first,
then (with ``quick``) the ``--quick`` value, then the default. A declaration that is a
plain string is a help line only: its values are neither checked nor defaulted here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from gasp.errors import ConfigError

Kind = Literal["text", "int", "float", "bool"]
#: The step whose command also takes an option as a flag of its own: ``shape`` (``gasp
#: run`` and ``gasp generate``), ``analysis`` (``gasp run`` and ``gasp analyze``) or
#: ``probe`` (``gasp run``); empty: only ``--study-option KEY=VALUE``.
FlagStep = Literal["", "shape", "analysis", "probe"]

_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}
_KIND_NAMES = {"text": "text", "int": "integer", "float": "number", "bool": "true/false"}


@dataclasses.dataclass(frozen=True)
class StudyOption:
    """One study option: its help line, kind, range or choices, default and quick value.

    ``minimum`` and ``maximum`` bound a number (``exclusive_minimum`` and
    ``exclusive_maximum`` leave the bound out); ``choices`` are the values a text may
    take (compared case-sensitively, as the study reads them). ``default`` is the value
    the study uses when none is given (None: the study's data decides, as ``help``
    says); ``quick`` the value of ``--quick`` (None: the default). ``size``, when not
    empty, marks a size the study's comparisons pair over and names one unit of it
    (``stories per profession and opening``); an audit plans its power with these.
    ``overridden_by`` names options whose explicit value replaces this option's
    ``--quick`` value (``jobs`` gives way to ``occupations``: both choose the jobs).
    ``flag`` gives the option a flag of its own (``--min-share 0.2`` for
    ``--study-option min_share=0.2``) and a keyword of :func:`gasp.run`, on the commands
    of its step (:data:`FlagStep`); ``old_names`` are spellings still accepted there.
    """

    help: str
    kind: Kind = "text"
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] = ()
    default: Any = None
    quick: Any = None
    size: str = ""
    overridden_by: tuple[str, ...] = ()
    flag: FlagStep = ""
    old_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for what, value in (("default", self.default), ("quick value", self.quick)):
            if value is not None:
                try:
                    self.check("declared " + what, value)
                except ConfigError as exc:
                    raise ConfigError(f"a study option's {what} is invalid: {exc}") from None

    def __str__(self) -> str:
        return self.help

    @property
    def kind_name(self) -> str:
        """The kind in words for a listing (``integer``, ``number``, ``true/false``)."""
        return _KIND_NAMES[self.kind]

    def describe(self) -> str:
        """What a value must be, in words (``an integer from 0 to 4294967295``)."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        what = {"int": "an integer", "float": "a number", "bool": "true or false"}.get(
            self.kind, "a text"
        )
        low, high = self._limits()
        inclusive = not (self.exclusive_minimum or self.exclusive_maximum)
        if low is not None and low == high and inclusive:
            return low
        if low is not None and high is not None and inclusive:
            return f"{what} from {low} to {high}"
        words = []
        if low is not None:
            words.append(f"{'above' if self.exclusive_minimum else 'of at least'} {low}")
        if high is not None:
            at_most = "at most" if words else "of at most"
            words.append(f"{'below' if self.exclusive_maximum else at_most} {high}")
        return " ".join([what, " and ".join(words)]) if words else what

    def _limits(self) -> tuple[str | None, str | None]:
        """The minimum and the maximum as they are written (None: no such limit)."""
        low = None if self.minimum is None else _number(self.minimum)
        return low, None if self.maximum is None else _number(self.maximum)

    def range_text(self) -> str:
        """The range or choices in a few characters (``>= 1``, ``(0.5, 1]``, ``a|b``;
        empty when any value of the kind is taken)."""
        if self.choices:
            return "|".join(self.choices)
        low, high = self._limits()
        if low is not None and high is not None:
            left = "(" if self.exclusive_minimum else "["
            right = ")" if self.exclusive_maximum else "]"
            return f"{left}{low}, {high}{right}"
        if low is not None:
            return f"{'>' if self.exclusive_minimum else '>='} {low}"
        if high is not None:
            return f"{'<' if self.exclusive_maximum else '<='} {high}"
        return ""

    def check(self, name: str, value: Any) -> None:
        """Raise :class:`ConfigError` (one line naming the option) for a bad ``value``."""
        if self.kind == "bool":
            if isinstance(value, bool) or str(value).strip().lower() in _TRUE | _FALSE:
                return
            self._refuse(name, value)
        if self.kind in ("int", "float"):
            number = _as_number(value, integer=self.kind == "int")
            if number is None or not self._in_range(number):
                self._refuse(name, value)
            return
        if self.choices and str(value) not in self.choices:
            self._refuse(name, value)

    def value(self, name: str, raw: Any) -> Any:
        """``raw`` checked (:meth:`check`) and typed: an int, a float, a bool or a text."""
        self.check(name, raw)
        if self.kind == "bool":
            return raw if isinstance(raw, bool) else str(raw).strip().lower() in _TRUE
        if self.kind == "int":
            return int(raw)
        if self.kind == "float":
            return float(raw)
        return str(raw)

    def _in_range(self, number: float) -> bool:
        if self.minimum is not None and (
            number < self.minimum or (self.exclusive_minimum and number == self.minimum)
        ):
            return False
        return self.maximum is None or not (
            number > self.maximum or (self.exclusive_maximum and number == self.maximum)
        )

    def _refuse(self, name: str, value: Any) -> None:
        raise ConfigError(f"study option {name} must be {self.describe()}, got {value!r}")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _as_number(value: Any, *, integer: bool) -> float | None:
    """``value`` as a number (None when it is not one, or not an integer where one is due)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        if value != value or (integer and not value.is_integer()):  # NaN, or 2.5 for an int
            return None
        return value
    return None


def _study_names() -> tuple[str, ...]:
    from gasp.studies._registry import study_names

    return tuple(study_names())


def check_study_options(
    study: str, declared: Mapping[str, StudyOption | str], values: Mapping[str, Any]
) -> None:
    """Check ``values`` (option name -> value as the command line typed it) against the
    options study ``study`` declares: an undeclared name, a value of the wrong kind or
    out of range raises one :class:`ConfigError`. Checked in the order given."""
    for name, value in values.items():
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            scope = name.partition(":")[0] if ":" in name else ""
            if scope and scope != study and scope in _study_names():
                raise ConfigError(
                    f"option {name!r} is for study {scope!r}, which is not run here (this "
                    f"runs {study!r}; its options: {known})"
                )
            raise ConfigError(f"study {study!r} has no option {name!r} (its options: {known})")
        option = declared[name]
        if isinstance(option, StudyOption) and value is not None:
            option.check(name, value)


class ResolvedOptions(Mapping[str, Any]):
    """A study's options after resolution: every declared option typed and set (the
    value given, else the ``--quick`` value with quick, else the default), the other
    values given (the shared command-line options) as given. Read-only."""

    def __init__(self, values: Mapping[str, Any], explicit: frozenset[str] = frozenset()):
        self._values = dict(values)
        #: The names whose values were given (not a default or a quick value).
        self.explicit = explicit

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"ResolvedOptions({self._values!r})"

    def _given(self, name: str, default: float | None) -> Any:
        """The value of option ``name``, else ``default`` (a :class:`ConfigError` when
        both are None or absent)."""
        value = self._values.get(name)
        if value is None:
            if default is None:
                raise ConfigError(f"option {name} needs a value")
            return default
        return value

    def integer(self, name: str, default: int | None = None) -> int:
        """The integer option ``name`` (``default`` where it is None or absent)."""
        value = self._given(name, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name} must be an integer, got {value!r}")
        return value

    def number(self, name: str, default: float | None = None) -> float:
        """The number option ``name`` (``default`` where it is None or absent)."""
        value = self._given(name, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{name} must be a number, got {value!r}")
        return float(value)

    def plain(self) -> dict[str, Any]:
        """The values as JSON-ready data (paths as text), for the run manifest."""
        return {k: _plain(v) for k, v in self._values.items()}


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


def resolve_study_options(
    study: str, declared: Mapping[str, StudyOption | str], given: Mapping[str, Any]
) -> ResolvedOptions:
    """``given`` (name -> value; None: not given) resolved against the declarations of
    study ``study``: each declared option checked and typed once, and set from the value
    given, else its default. Undeclared names pass through as given (the study refuses
    those it does not read). ``--quick`` values are applied before, by
    :func:`with_quick`."""
    explicit = frozenset(k for k, v in given.items() if v is not None)
    values: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    for name, option in declared.items():
        if not isinstance(option, StudyOption):
            continue
        if name in explicit:
            values[name] = option.value(name, given[name])
        elif option.default is not None:
            values[name] = option.default
    return ResolvedOptions(values, explicit)


def with_quick(
    declared: Mapping[str, StudyOption | str],
    given: Mapping[str, Any],
    preset: Mapping[str, Any],
) -> dict[str, Any]:
    """``given`` with the ``--quick`` ``preset`` filling what it leaves unset: an option
    given explicitly (not None) keeps its value, and so does an option whose declared
    ``overridden_by`` options were given (``--occupations`` replaces the quick jobs)."""
    out = dict(given)
    for name, value in preset.items():
        option = declared.get(name)
        overriders = option.overridden_by if isinstance(option, StudyOption) else ()
        if out.get(name) is None and all(out.get(o) is None for o in overriders):
            out[name] = value
    return out


def quick_values(declared: Mapping[str, StudyOption | str]) -> dict[str, Any]:
    """The ``--quick`` value of every declared option that has one."""
    return {
        name: option.quick
        for name, option in declared.items()
        if isinstance(option, StudyOption) and option.quick is not None
    }


__all__ = [
    "FlagStep",
    "ResolvedOptions",
    "StudyOption",
    "check_study_options",
    "quick_values",
    "resolve_study_options",
    "with_quick",
]


#: The name of the prompt-form option (see :data:`PROMPT_FORM`).
PROMPT_FORM_OPTION = "prompt_form"


def _prompt_form() -> StudyOption:
    from gasp.runner import PROMPT_FORMS

    return StudyOption(
        "how generation prompts are sent: chat (the model's chat template), completion "
        "(text a base model continues, cut where the answer ends) or auto (completion for "
        "a model without a chat template, else chat)",
        choices=PROMPT_FORMS,
        default="auto",
    )


#: The prompt-form option every generating study declares (one declaration, one default);
#: the runner resolves ``auto`` for the model and records the form in the run manifest.
PROMPT_FORM = _prompt_form()
