"""One name for one idea across the commands: a walk over every command's options.

``--out`` (short ``-o``) is where a command writes; ``--studies`` takes
comma-separated study names; ``--level`` is a significance level. The old spellings
(``--output``, the tour's ``--study``) still work but are hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main

from _cli import gasp_exit_code
from gasp.cli import app

#: Options one command repeats where another takes one value, with the reason.
MANY_WHERE_ONE = {
    "--model": "gasp audit compares several models",
    "--target": "gasp calibrate calibrates over several target groups",
}
#: Names that say again what a canonical option says.
SYNONYMS = {
    "--output": "--out",
    "--output-dir": "--out",
    "--outdir": "--out",
    "--alpha": "--level",
    "--significance": "--level",
    "--fdr-level": "--level",
    "--study-options": "--study-option",
    "--models": "--model",
}


def _commands() -> Iterator[tuple[str, Any]]:
    """Every command as (its name, its Click command), those of groups too."""

    def walk(group: Any, prefix: str) -> Iterator[tuple[str, Any]]:
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                yield from walk(command, f"{prefix}{name} ")
            else:
                yield f"{prefix}{name}", command

    yield from walk(typer.main.get_command(app), "")


def _options() -> Iterator[tuple[str, Any]]:
    """Every visible option of every command."""
    for name, command in _commands():
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                yield name, param


def test_option_names_are_lowercase_words_joined_by_hyphens() -> None:
    bad = [
        f"{command} {opt}"
        for command, option in _options()
        for opt in option.opts
        if not re.fullmatch(r"--[a-z0-9]+(-[a-z0-9]+)*|-[a-zA-Z]", opt)
    ]
    assert bad == []


def test_no_visible_option_is_a_synonym_of_another() -> None:
    found = [
        f"{command} {opt} (say {SYNONYMS[opt]})"
        for command, option in _options()
        for opt in option.opts
        if opt in SYNONYMS
    ]
    repeated_study = [
        f"{command} --study is repeatable (say --studies)"
        for command, option in _options()
        if "--study" in option.opts and option.multiple
    ]
    assert found + repeated_study == []


def test_where_a_command_writes_is_out_with_o() -> None:
    wrong = [
        f"{command}: {'/'.join(option.opts)}"
        for command, option in _options()
        if option.name == "out" and set(option.opts) != {"--out", "-o"}
    ]
    writers = {command for command, option in _options() if option.name == "out"}
    assert wrong == []
    assert {"run", "analyze", "compare", "audit", "tour", "probe", "associate"} <= writers


def test_one_name_means_one_kind_of_value_everywhere() -> None:
    kinds: dict[str, set[tuple[bool, bool, str]]] = {}
    for _, option in _options():
        multiple = option.multiple and option.opts[0] not in MANY_WHERE_ONE
        kind = (multiple, option.is_flag, str(option.bare_type()).replace("list[str]", "str"))
        kinds.setdefault(option.opts[0], set()).add(kind)
    mixed = {name: sorted(map(str, k)) for name, k in kinds.items() if len(k) > 1}
    assert mixed == {}


def test_audit_and_tour_name_their_studies_alike() -> None:
    names = {c: {o for opt in (p.opts for p in cmd.params) for o in opt} for c, cmd in _commands()}
    assert "--studies" in names["audit"] and "--studies" in names["tour"]
    assert "--level" in names["audit"]


def test_the_old_spelling_of_out_still_works(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = tmp_path / "texts.csv"
    table.write_text("text\nShe is a nurse.\nHe is a pilot.\n", encoding="utf-8")
    for flag, name in (("--output", "old.csv"), ("--out", "new.csv")):
        assert gasp_exit_code(monkeypatch, "associate", str(table), flag, str(tmp_path / name)) == 0
    assert (tmp_path / "old.csv").read_text() == (tmp_path / "new.csv").read_text()
