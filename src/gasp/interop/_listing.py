"""Where Inspect AI's ``inspect list tasks`` finds gasp's tasks.

``inspect list tasks`` lists the ``@task`` functions of the Python files under the
folders or files it is given (the current folder by default), parsed without importing
them; it never consults the tasks registered through package entry points. Given the
path of gasp's task module it lists every generation study. It takes paths as
patterns relative to the current folder (an absolute one is refused), hence the
relative path here.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from gasp.errors import ConfigError

#: The module holding gasp's Inspect tasks (the ``inspect_ai`` entry point's target).
TASKS_MODULE = "gasp.interop.inspect_tasks"


def inspect_tasks_path(start: str | Path | None = None) -> str:
    """The path of gasp's Inspect task module, relative to ``start`` (the current
    folder by default), for ``inspect list tasks PATH``.

    Raises :class:`~gasp.errors.ConfigError` when Inspect AI is not installed.
    """
    if importlib.util.find_spec("inspect_ai") is None:
        raise ConfigError("Inspect AI is not installed: pip install 'gasp[inspect]'")
    spec = importlib.util.find_spec(TASKS_MODULE)
    if spec is None or spec.origin is None:  # pragma: no cover - part of this package
        raise ConfigError(f"module {TASKS_MODULE} not found")
    base = Path.cwd() if start is None else Path(start)
    try:
        return Path(os.path.relpath(spec.origin, base.resolve())).as_posix()
    except ValueError:  # another drive (Windows): no relative path exists
        return Path(spec.origin).as_posix()
