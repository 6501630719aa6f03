"""The command line is a thin view of the public Python API.

Read with ``ast`` from every module under ``src/gasp/cli`` (imports under
``TYPE_CHECKING`` and inside functions included): a module imports ``gasp`` (its public
functions), ``gasp.errors``, the command line's own modules (``gasp.cli.*``), the
standard library and third-party packages (Typer, Rich), and no other part of gasp.
Each command's work is a public function of ``gasp``.
"""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[1] / "src" / "gasp" / "cli"


def _imported_modules(source: str) -> list[tuple[int, str]]:
    """Each module an import statement of ``source`` loads (``from gasp import x`` is
    ``gasp``; a relative import is resolved against ``gasp.cli``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = ["gasp", "cli"][: 2 - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            found.append((node.lineno, module))
    return found


def _allowed(module: str) -> bool:
    parts = module.split(".")
    if parts[0] != "gasp":
        return True  # the standard library and third-party packages
    return module in ("gasp", "gasp.errors") or parts[:2] == ["gasp", "cli"]


def _broken(path: Path) -> list[str]:
    return [
        f"{path.name}:{line} imports {module}"
        for line, module in _imported_modules(path.read_text(encoding="utf-8"))
        if not _allowed(module)
    ]


def test_every_cli_module_imports_only_the_public_api() -> None:
    broken = [line for path in sorted(CLI.glob("*.py")) for line in _broken(path)]
    assert broken == []


def test_the_check_sees_every_kind_of_import() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import gasp\nfrom gasp import run\nfrom gasp.errors import ConfigError\n"
        "from gasp.cli._app import app\nimport typer\nfrom rich.table import Table\n"
        "if TYPE_CHECKING:\n    from gasp.runner import RunSummary\n"
        "def f():\n    from gasp.pipeline import report_run\n    import gasp.io\n"
        "    from . import _names\n    from ..studies import study_names\n"
    )
    found = [module for _, module in _imported_modules(source) if not _allowed(module)]
    assert found == ["gasp.runner", "gasp.pipeline", "gasp.io", "gasp.studies"]


def test_the_command_line_states_no_default_of_the_librarys() -> None:
    """``gasp report``'s examples per word is the library's default, never a second one."""
    import inspect

    import gasp
    from gasp.cli import _studies

    default = inspect.signature(gasp.render_report).parameters["examples_per_word"].default
    assert default is None and not hasattr(_studies, "EXAMPLES_PER_WORD")
