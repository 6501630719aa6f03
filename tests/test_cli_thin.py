"""The command line parses, calls the library and prints.

Read from the imports of every module under ``src/gasp/cli`` (with ``ast``): none
imports a study package or the run store, and none reaches into another package's
private module; every command's description is one unbroken line in ``gasp --help``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import typer.main

from gasp.cli import app

CLI = Path(__file__).resolve().parents[1] / "src" / "gasp" / "cli"


def _imported(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _forbidden(name: str) -> bool:
    parts = name.split(".")
    study_package = len(parts) >= 3 and parts[:2] == ["gasp", "studies"] and parts[2][0] != "_"
    study_package = study_package and (CLI.parent / "studies" / parts[2]).is_dir()
    return study_package or parts[:2] == ["gasp", "store"]


def test_no_cli_module_imports_a_study_package_or_the_store() -> None:
    broken = [
        f"{path.name}:{line} imports {name}"
        for path in sorted(CLI.glob("*.py"))
        for line, name in _imported(path)
        if _forbidden(name)
    ]
    assert broken == []


def test_the_check_sees_a_study_import() -> None:
    assert _forbidden("gasp.studies.more_of_the_same.probe.add_probe_tables")
    assert _forbidden("gasp.store.RunStore")
    assert not _forbidden("gasp.studies.study_names")


def test_every_command_description_is_one_line() -> None:
    command = typer.main.get_command(app)
    seen = 0
    for name, sub in command.commands.items():  # type: ignore[attr-defined]
        subs = getattr(sub, "commands", {name: sub})
        for inner in subs.values():
            assert inner.help and "\n" not in inner.help, name
            seen += 1
    assert seen >= 15
