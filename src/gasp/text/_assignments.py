"""The package's one reader of ``KEY=VALUE`` texts (``--model-option``, ``--study-option``,
``--where``, ``--column``, group selectors ``column=value``)."""

from __future__ import annotations

from collections.abc import Iterable

from gasp.errors import ConfigError, GaspError


def parse_assignments(
    values: Iterable[str], flag: str, *, error: type[GaspError] = ConfigError
) -> dict[str, list[str]]:
    """``KEY=VALUE`` texts as KEY -> its values in order (a key may repeat), spaces
    around keys and values left out. A text without ``=`` or with an empty key raises
    ``error`` in one line: ``{flag} must be KEY=VALUE, got '...'``."""
    out: dict[str, list[str]] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise error(f"{flag} must be KEY=VALUE, got {value!r}")
        out.setdefault(key.strip(), []).append(rest.strip())
    return out


__all__ = ["parse_assignments"]
