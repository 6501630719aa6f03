"""One setting of a run, declared once: its name, kind, default, range and help."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from gasp.errors import ArgumentError, ArgumentTypeError

Kind = Literal["bool", "int", "float", "text", "path", "texts"]
Group = Literal["shape", "decoding", "runner", "analysis", "probe"]

#: The help panel of the command line for settings only some studies read.
SOME_STUDIES = "Some studies"


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting of a run, declared once.

    ``minimum``/``maximum`` bound a number (``exclusive_*`` leave the bound out);
    ``choices`` are the values a text may take. ``flag`` is the command-line spelling
    when it is not the name with dashes (``--base-url`` for ``base_urls``, repeatable);
    ``old_flags`` are spellings still accepted. ``panel`` groups the flag in ``--help``.
    ``study_option``: the setting is a flag of studies' own options (their studies
    check the value's range, and the value goes to the study's options).
    """

    name: str
    help: str
    group: Group
    kind: Kind = "text"
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] = ()
    flag: str = ""
    old_flags: tuple[str, ...] = ()
    panel: str = ""
    study_option: bool = False

    @property
    def flags(self) -> tuple[str, ...]:
        """The command-line spellings: the flag, then the old ones."""
        return (self.flag or "--" + self.name.replace("_", "-"), *self.old_flags)

    def _range(self) -> str:
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            left = "(" if self.exclusive_minimum else "["
            right = ")" if self.exclusive_maximum else "]"
            return f"must lie in {left}{_number(low)}, {_number(high)}{right}"
        if low == 0 and not self.exclusive_minimum:
            return "must not be negative"
        if low is not None:
            return f"must be {'above' if self.exclusive_minimum else 'at least'} {_number(low)}"
        return f"must be {'below' if self.exclusive_maximum else 'at most'} {_number(high or 0)}"

    def check(self, value: Any) -> Any:
        """``value`` when it is of this setting's kind and range (None: not given);
        otherwise one error line naming the flag."""
        if value is None:
            return None
        flag = self.flags[0]
        if self.kind == "bool" and not isinstance(value, bool):
            raise ArgumentTypeError(f"{flag} must be True or False, got {value!r}")
        if self.kind in ("int", "float"):
            integer = self.kind == "int"
            kinds = int if integer else int | float
            if isinstance(value, bool) or not isinstance(value, kinds):
                what = "an integer" if integer else "a number"
                raise ArgumentTypeError(f"{flag} must be {what}, got {value!r}")
            if not math.isfinite(value) or not self._inside(float(value)):
                raise ArgumentError(f"{flag} {self._range()}, got {value}")
        if self.choices and value not in self.choices:
            raise ArgumentError(f"{flag} must be one of {', '.join(self.choices)}, got {value!r}")
        return value

    def _inside(self, number: float) -> bool:
        low, high = self.minimum, self.maximum
        if low is not None and (number <= low if self.exclusive_minimum else number < low):
            return False
        if high is None:
            return True
        return number < high if self.exclusive_maximum else number <= high


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


__all__ = ["SOME_STUDIES", "Group", "Kind", "Setting"]
