"""The package has one list of pronouns, in :mod:`gasp.text`, and every user imports it."""

from __future__ import annotations

import ast
from pathlib import Path

import gasp
from gasp import text
from gasp.associate import FEMALE_WORDS, MALE_WORDS
from gasp.probe import PRONOUNS as PROBE_PRONOUNS
from gasp.stats import IDENTITY_WORDS

PACKAGE = Path(gasp.__file__).resolve().parent

#: Pairs of pronouns that only a list of pronouns holds together.
_TELLTALE_PAIRS = (("he", "she"), ("him", "her"), ("his", "hers"), ("himself", "herself"))


def _string_literals(node: ast.AST) -> set[str]:
    elts = node.elts if isinstance(node, ast.Set | ast.Tuple | ast.List) else []
    return {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}


def _pronoun_literals(tree: ast.AST) -> list[int]:
    """Line numbers of set, tuple or list literals holding a telltale pair of pronouns."""
    lines = []
    for node in ast.walk(tree):
        words = _string_literals(node)
        if any(a in words and b in words for a, b in _TELLTALE_PAIRS):
            lines.append(node.lineno)
    return lines


def test_no_pronoun_list_outside_gasp_text() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "text" and path.parent.parent == PACKAGE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [f"{path.relative_to(PACKAGE)}:{line}" for line in _pronoun_literals(tree)]
    assert not offenders, f"pronoun lists outside gasp.text (import gasp.text): {offenders}"


def test_the_scanner_finds_a_pronoun_list() -> None:
    tree = ast.parse('X = frozenset({"she", "he", "they"})\nY = ("him", "dog", "her")\nZ = ["he"]')
    assert sorted(_pronoun_literals(tree)) == [1, 2]


def test_no_module_imports_the_private_pronoun_module() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            private = isinstance(node, ast.ImportFrom) and node.module == "gasp.text._pronouns"
            if private and path.parent.name != "text":
                offenders.append(str(path.relative_to(PACKAGE)))
    assert not offenders


def test_users_share_the_one_list() -> None:
    assert PROBE_PRONOUNS is text.PRONOUNS
    assert IDENTITY_WORDS is text.THIRD_PERSON_PRONOUNS
    assert FEMALE_WORDS[: len(text.FEMININE_PRONOUNS)] == text.FEMININE_PRONOUNS
    assert MALE_WORDS[: len(text.MASCULINE_PRONOUNS)] == text.MASCULINE_PRONOUNS
    subsets = (text.FEMININE_PRONOUNS, text.MASCULINE_PRONOUNS, text.THEY_PRONOUNS)
    for subset in subsets:
        assert set(subset) <= text.THIRD_PERSON_PRONOUNS <= text.PRONOUNS
    assert {"she", "he", "they", "xe", "ze"} <= text.THIRD_PERSON_PRONOUNS
    assert not {"i", "you", "we", "it"} & text.THIRD_PERSON_PRONOUNS
