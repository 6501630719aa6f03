"""Flags generated from the declared settings of a run (``gasp.declared_settings``).

:func:`with_settings` adds one option per declared setting of the groups named to a
command: its flag(s), type, default, help and help panel all come from the declaration,
so no setting is declared twice. The command receives them as keyword arguments.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

F = TypeVar("F", bound=Callable[..., Any])

#: The Python type of each declared kind on the command line.
_TYPES: dict[str, Any] = {
    "bool": bool,
    "int": int,
    "float": float,
    "text": str,
    "path": Path,
    "texts": list[str],
}


def _parameter(setting: Any) -> inspect.Parameter:
    """One Typer option for one declared setting."""
    kind = _TYPES[setting.kind]
    default = setting.default
    if setting.kind == "texts":
        default = None
    given = kind if (setting.kind == "bool" or default is not None) else kind | None
    option = typer.Option(*setting.flags, help=setting.help, rich_help_panel=setting.panel or None)
    return inspect.Parameter(
        setting.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=Annotated[given, option],
    )


def with_settings(*groups: str, leave_out: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Add the declared settings of ``groups`` (but ``leave_out``) as options of the
    decorated command, which takes them as keyword arguments (``**settings``)."""

    def decorate(command: F) -> F:
        import gasp

        found: Any = gasp.declared_settings(*groups)  # type: ignore[arg-type]
        declared = [s for s in found if s.name not in leave_out]
        signature = inspect.signature(command, eval_str=True)
        fixed = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        parameters = [*fixed, *(_parameter(s) for s in declared)]

        @functools.wraps(command)
        def generated(**values: Any) -> Any:
            return command(**values)

        generated.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        generated.__annotations__ = {p.name: p.annotation for p in parameters}
        del generated.__wrapped__  # Typer reads the generated signature, not the command's
        return generated  # type: ignore[return-value]

    return decorate


__all__ = ["with_settings"]
