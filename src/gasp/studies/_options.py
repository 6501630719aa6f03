"""A study's own options (``--study-option KEY=VALUE``): their declaration and one check.

A study type declares each of its options once, as a :class:`StudyOption` (its help
line, its kind, and its range or choices); :func:`check_study_options` checks the
values of a command line against those declarations before anything runs, for every
command (``gasp run``, ``gasp generate``, ``gasp analyze``). A declaration that is a
plain string is a help line only: its values are not checked here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from gasp.errors import ConfigError

Kind = Literal["text", "int", "float", "bool"]

_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


@dataclasses.dataclass(frozen=True)
class StudyOption:
    """One study option: its help line, the kind of its value, and its range or choices.

    ``minimum`` and ``maximum`` bound a number (``exclusive_minimum`` and
    ``exclusive_maximum`` leave the bound out); ``choices`` are the values a text may
    take (compared case-sensitively, as the study reads them).
    """

    help: str
    kind: Kind = "text"
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.help

    def describe(self) -> str:
        """What a value must be, in words (``an integer from 0 to 4294967295``)."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        what = {"int": "an integer", "float": "a number", "bool": "true or false"}.get(
            self.kind, "a text"
        )
        low = None if self.minimum is None else _number(self.minimum)
        high = None if self.maximum is None else _number(self.maximum)
        if low is not None and high is not None:
            if not (self.exclusive_minimum or self.exclusive_maximum):
                return f"{what} from {low} to {high}"
            left = "above" if self.exclusive_minimum else "of at least"
            right = "below" if self.exclusive_maximum else "at most"
            return f"{what} {left} {low} and {right} {high}"
        if low is not None:
            return f"{what} {'above' if self.exclusive_minimum else 'of at least'} {low}"
        if high is not None:
            return f"{what} {'below' if self.exclusive_maximum else 'of at most'} {high}"
        return what

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


def check_study_options(
    study: str, declared: Mapping[str, StudyOption | str], values: Mapping[str, Any]
) -> None:
    """Check ``values`` (option name -> value as the command line typed it) against the
    options study ``study`` declares: an undeclared name, a value of the wrong kind or
    out of range raises one :class:`ConfigError`. Checked in the order given."""
    for name, value in values.items():
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise ConfigError(f"study {study!r} has no option {name!r} (its options: {known})")
        option = declared[name]
        if isinstance(option, StudyOption) and value is not None:
            option.check(name, value)


__all__ = ["StudyOption", "check_study_options"]
