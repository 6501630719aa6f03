"""The checks every public function makes of its keywords, in the caller's words.

A bad keyword is one :class:`~gasp.errors.GaspError` line naming the keyword, raised
before anything is written: a value of the wrong type is an
:class:`~gasp.errors.ArgumentTypeError` (also a ``TypeError``), a value out of range or
not among the choices, or an unknown keyword, an :class:`~gasp.errors.ArgumentError`
(also a ``ValueError``). The library's checks name command-line flags (``--max-tokens``);
:func:`in_python_words` turns them into the keywords of the function called
(``max_tokens``), since each flag is its keyword with dashes for underscores.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gasp.errors import ArgumentError, ArgumentTypeError, ConfigError, GaspError
from gasp.pipeline import study_flag_old_names

#: Old spellings accepted for one release, with a one-line deprecation warning.
RENAMED = {"fdr": "level", "alpha": "level", "fdr_alpha": "level", **study_flag_old_names()}
#: Old spellings of the audit's plan limits (``max_requests``/``max_cost`` stop a run).
RENAMED_IN_AUDIT = {"max_requests": "request_budget", "max_cost": "cost_budget"}

_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def _type_name(value: Any) -> str:
    return type(value).__name__


def require_bool(function: str, name: str, value: Any) -> bool:
    """``value`` when it is True or False; otherwise an :class:`ArgumentTypeError`."""
    if not isinstance(value, bool):
        raise ArgumentTypeError(
            f"{function}(): {name} must be True or False, got {value!r} ({_type_name(value)})"
        )
    return value


def require_int(
    function: str, name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` when it is an integer (not a bool) within the bounds given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(
            f"{function}(): {name} must be an integer, got {value!r} ({_type_name(value)})"
        )
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"
        raise ArgumentError(f"{function}(): {name} must be an integer {bounds}, got {value}")
    return value


def require_number(function: str, name: str, value: Any, *, minimum: float | None = None) -> float:
    """``value`` as a float when it is a number (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentTypeError(
            f"{function}(): {name} must be a number, got {value!r} ({_type_name(value)})"
        )
    if minimum is not None and value < minimum:
        raise ArgumentError(f"{function}(): {name} must be at least {minimum}, got {value}")
    return float(value)


def require_level(function: str, name: str, value: Any) -> float | None:
    """A false discovery rate in (0, 1), or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentTypeError(
            f"{function}(): {name} must be a number in (0, 1), got {value!r} ({_type_name(value)})"
        )
    if not 0.0 < float(value) < 1.0:
        raise ArgumentError(f"{function}(): {name} must lie in (0, 1), got {value}")
    return float(value)


def require_text(function: str, name: str, value: Any, *, optional: bool = False) -> str | None:
    """``value`` when it is a non-empty string (or None where ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ArgumentTypeError(
            f"{function}(): {name} must be a string, got {value!r} ({_type_name(value)})"
        )
    if not value.strip():
        raise ArgumentError(f"{function}(): {name} must not be empty")
    return value


def require_path(
    function: str, name: str, value: Any, *, optional: bool = True, folder: bool = True
) -> Path | None:
    """``value`` as a :class:`Path` (a string or path-like); with ``folder``, one that is
    not an existing file."""
    if value is None and optional:
        return None
    if not isinstance(value, str | os.PathLike) or (isinstance(value, str) and not value.strip()):
        raise ArgumentTypeError(
            f"{function}(): {name} must be a path (a string or pathlib.Path), got {value!r}"
        )
    path = Path(value)
    if folder and path.exists() and not path.is_dir():
        raise ArgumentError(f"{function}(): {name} {str(path)!r} exists and is not a folder")
    return path


def require_mapping(function: str, name: str, value: Any) -> dict[str, Any]:
    """``value`` as a dict with string keys (None: empty)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentTypeError(
            f"{function}(): {name} must be a mapping such as {{'n': 4}}, got {value!r} "
            f"({_type_name(value)})"
        )
    bad = [k for k in value if not isinstance(k, str) or not k.strip()]
    if bad:
        raise ArgumentTypeError(f"{function}(): {name} has a key that is not a name: {bad[0]!r}")
    return dict(value)


def require_texts(function: str, name: str, value: Any) -> list[str]:
    """A string or an iterable of strings, as a list (None: empty)."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if isinstance(items, Mapping) or not isinstance(items, Iterable):
        raise ArgumentTypeError(
            f"{function}(): {name} must be a string or a list of strings, got {value!r}"
        )
    items = list(items)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise ArgumentTypeError(
            f"{function}(): {name} holds a value that is not a string: {bad[0]!r}"
        )
    return items


def require_choices(
    function: str, name: str, values: Iterable[str], choices: Iterable[str]
) -> None:
    """Every one of ``values`` is one of ``choices``."""
    known = list(choices)
    for value in values:
        if value not in known:
            raise ArgumentError(f"{function}(): {name} {value!r} is not one of {', '.join(known)}")


def renamed(
    function: str,
    options: dict[str, Any],
    given: Mapping[str, Any] | None = None,
    names: Mapping[str, str] = RENAMED,
) -> dict[str, Any]:
    """``options`` with old spellings (``fdr``) under their names (``level``), each
    warned about once as deprecated; both spellings at once (in ``options`` or among the
    keywords ``given`` explicitly) is an :class:`ArgumentError`."""
    explicit = dict(given or {})
    for old, new in names.items():
        if old not in options:
            continue
        if options.get(new, explicit.get(new)) is not None:
            raise ArgumentError(f"{function}(): give {new}, not both {new} and {old}")
        warnings.warn(
            f"{function}(): {old} is deprecated; call it {new}", DeprecationWarning, stacklevel=3
        )
        options[new] = options.pop(old)
    return options


def refuse_unknown(function: str, given: Iterable[str], known: Iterable[str]) -> None:
    """An :class:`ArgumentError` naming the first of ``given`` not in ``known`` (with
    the nearest known name)."""
    names = sorted(set(known))
    for name in given:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(names)}"
            raise ArgumentError(f"{function}() got an unknown keyword {name!r}{hint}")


def python_words(message: str) -> str:
    """``message`` with each command-line flag as its keyword (``--max-tokens`` ->
    ``max_tokens``; ``--fdr`` -> ``level``)."""

    def keyword(match: re.Match[str]) -> str:
        name = match.group(1).replace("-", "_")
        return RENAMED.get(name, name)

    return _FLAG.sub(keyword, message)


@contextlib.contextmanager
def in_python_words(function: str) -> Iterator[None]:
    """Errors raised inside speak of keywords, not flags, and name ``function``; the
    message in flags stays on the error as ``command_line_message`` (the command line
    prints it)."""
    try:
        yield
    except GaspError as exc:
        text = str(exc)
        if text.startswith(f"{function}()"):
            raise
        worded = python_words(text)
        if worded == text or type(exc) not in (ConfigError, ArgumentError, ArgumentTypeError):
            raise
        kind = ArgumentTypeError if type(exc) is ArgumentTypeError else ArgumentError
        error = kind(f"{function}(): {worded}")
        error.command_line_message = text
        raise error from None


__all__ = [
    "RENAMED",
    "RENAMED_IN_AUDIT",
    "in_python_words",
    "python_words",
    "refuse_unknown",
    "renamed",
    "require_bool",
    "require_choices",
    "require_int",
    "require_level",
    "require_mapping",
    "require_number",
    "require_path",
    "require_text",
    "require_texts",
]
