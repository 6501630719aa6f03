"""Validated reading of the free-form ``options`` mapping a backend accepts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from gasp.errors import ConfigError


class Options:
    """Reads typed options one by one and rejects the names nobody read."""

    def __init__(self, options: Mapping[str, Any] | None, *, provider: str) -> None:
        self._values = dict(options or {})
        self._read: set[str] = set()
        self._provider = provider

    def _get(self, name: str) -> Any:
        self._read.add(name)
        return self._values.get(name)

    def _bad(self, name: str, expected: str, value: Any) -> ConfigError:
        return ConfigError(f"option {name!r} of {self._provider} must be {expected}, got {value!r}")

    def get_float(
        self,
        name: str,
        default: float,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> float:
        """A finite number within [minimum, maximum]."""
        value = self._get(name)
        if value is None:
            return default
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise self._bad(name, "a number", value) from None
        if isinstance(value, bool) or not math.isfinite(number):
            raise self._bad(name, "a number", value)
        if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
            raise self._bad(name, f"between {minimum} and {maximum}", value)
        return number

    def get_int(
        self, name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        """An integer of at least ``minimum`` and at most ``maximum``."""
        value = self._get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            raise self._bad(name, "an integer", value)
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise self._bad(name, "an integer", value) from None
        if number != value and not (isinstance(value, str) and value.strip().isdigit()):
            raise self._bad(name, "an integer", value)
        if minimum is not None and number < minimum:
            raise self._bad(name, f"at least {minimum}", value)
        if maximum is not None and number > maximum:
            raise self._bad(name, f"at most {maximum}", value)
        return number

    def get_int_or_auto(self, name: str, *, minimum: int | None = None) -> int | None:
        """An integer of at least ``minimum``, or ``None`` when absent or ``auto``."""
        value = self._get(name)
        if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
            return None
        try:
            return self.get_int(name, 0, minimum=minimum)
        except ConfigError:
            wanted = "an integer" if minimum is None else f"an integer of at least {minimum}"
            raise self._bad(name, f"{wanted} or 'auto'", value) from None

    def get_bool(self, name: str, default: bool) -> bool:
        """A boolean (``true``/``false``, ``1``/``0`` and ``yes``/``no`` strings accepted)."""
        value = self._get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in {"true", "1", "yes", "on"}:
            return True
        if text in {"false", "0", "no", "off"}:
            return False
        raise self._bad(name, "true or false", value)

    def get_str(self, name: str, default: str) -> str:
        """A string."""
        value = self._get(name)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self._bad(name, "a string", value)
        return value

    def optional_str(self, name: str) -> str | None:
        """A string, or ``None`` when absent."""
        value = self._get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._bad(name, "a string", value)
        return value

    def get_raw(self, name: str) -> Any:
        """The value as given (``None`` when absent), for a reader that checks it itself."""
        return self._get(name)

    def reject_unknown(self) -> None:
        """Raise :class:`ConfigError` naming any option that was never read."""
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            known = ", ".join(sorted(self._read)) or "none"
            raise ConfigError(
                f"unknown option(s) for {self._provider}: {', '.join(unknown)} (known: {known})"
            )


def _typed(text: str) -> Any:
    """``text`` as an int, else a float, else a bool (``true``/``false``), else itself."""
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        if convert is int or math.isfinite(value):
            return value
    lowered = text.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    return text


def parse_model_options(pairs: Sequence[str], *, flag: str = "--model-option") -> dict[str, Any]:
    """Turn ``--model-option KEY=VALUE`` strings into typed backend options.

    Each value becomes an int, else a float, else a bool (``true``/``false``),
    else stays a string: ``["device=cpu", "batch_size=8", "timeout_s=30",
    "dtype=float16"]`` gives ``{"device": "cpu", "batch_size": 8, "timeout_s":
    30, "dtype": "float16"}``. The backend's own option reader then validates
    them (unknown names are rejected there), as for the Python API. A later pair
    overrides an earlier one of the same key. ``flag`` names the option in errors
    (the command line's ``--study-option`` is read the same way).

    Raises:
        ConfigError: a pair without ``=`` or with an empty key.
    """
    from gasp.text import parse_assignments

    values = parse_assignments(pairs, flag)
    return {key: _typed(given[-1]) for key, given in values.items()}
