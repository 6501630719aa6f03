"""The package's layers, dependency rules and module sizes (docs: ARCHITECTURE, "Dependency
rules"; the package docstring of ``gasp`` lists the same layers).

Each rule reads the imports of every module under ``src/gasp`` with ``ast``, so a
rule broken anywhere fails here with the module and the import that broke it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gasp"

#: Most lines a module may have.
MAX_LINES = 450
#: Modules allowed to be longer, with the reason.
SIZE_EXCEPTIONS: dict[str, str] = {}

CORE = ("files", "text", "stats", "associate", "names", "embeddings", "probe", "results")
ENGINE = ("backends", "runner", "store")

#: Every package and top-level module of ``gasp``, by layer, lowest first. A package may
#: import its own layer and the layers below it, never one above; a package or module
#: added without a place here fails :func:`test_every_package_has_a_place`.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("errors", "_quiet", "_defaults")),
    ("core", CORE),
    ("engine", (*ENGINE, "io")),
    ("report framework", ("report",)),
    ("studies", ("studies",)),
    ("pipeline and interop", ("pipeline", "interop", "testing")),
    ("audit", ("auditing",)),
    ("results browser", ("viewing",)),
    ("public API", ("_api",)),
    ("command line", ("cli", "__init__", "__main__")),
)
RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}


def _modules() -> Iterator[Path]:
    yield from sorted(SRC.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], base]).strip(".")
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _package_of(module: str) -> str:
    """``gasp.studies.more_of_the_same`` for study modules, else ``gasp.<top>``."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "studies" and (SRC / "studies" / parts[2]).is_dir():
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def _violations(rule: object) -> list[str]:
    found = []
    for path in _modules():
        source = _module_name(path)
        for line, target in _imports(path):
            if target.startswith("gasp.") and rule(source, target):  # type: ignore[operator]
                found.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    return sorted(set(found))


def _top(module: str) -> str:
    """``errors`` for ``gasp.errors``; ``__init__`` for ``gasp`` and its own attributes
    (``gasp.__version__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else "__init__"


def test_every_package_has_a_place() -> None:
    """The packages and top-level modules on disk are those :data:`LAYERS` lists."""
    on_disk = {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    on_disk |= {p.stem for p in SRC.glob("*.py")}
    assert on_disk == set(RANK)


def test_no_package_imports_a_layer_above_its_own() -> None:
    def upward(source: str, target: str) -> bool:
        return RANK[_top(target)] > RANK[_top(source)]

    assert _violations(upward) == []


def test_the_layer_rule_can_fail() -> None:
    """A study importing the command line, or the store importing a study, is upward."""
    assert RANK[_top("gasp.cli._run")] > RANK[_top("gasp.studies.pronoun_pairs")]
    assert RANK[_top("gasp.studies")] > RANK[_top("gasp.store")] > RANK[_top("gasp.text")]


def test_no_package_imports_another_packages_private_module() -> None:
    def private_elsewhere(source: str, target: str) -> bool:
        if _package_of(source) == _package_of(target):
            return False
        parts = target.split(".")
        home = _package_of(target).split(".")
        return any(p.startswith("_") and p != "__init__" for p in parts[len(home) :][:1])

    assert _violations(private_elsewhere) == []


def test_study_packages_do_not_import_each_other() -> None:
    def other_study(source: str, target: str) -> bool:
        a, b = _package_of(source), _package_of(target)
        return a.startswith("gasp.studies.") and b.startswith("gasp.studies.") and a != b

    assert _violations(other_study) == []


@pytest.mark.parametrize("layer", ["core", "engine"])
def test_core_and_engine_import_no_study(layer: str) -> None:
    tops = CORE if layer == "core" else ENGINE

    def study_import(source: str, target: str) -> bool:
        top = source.split(".")[1] if "." in source else ""
        return top in tops and target.startswith("gasp.studies")

    assert _violations(study_import) == []


def test_core_imports_no_engine() -> None:
    def engine_import(source: str, target: str) -> bool:
        top = source.split(".")[1] if "." in source else ""
        return top in CORE and target.split(".")[1] in ENGINE

    assert _violations(engine_import) == []


def test_report_framework_opens_no_store_and_imports_no_study() -> None:
    def forbidden(source: str, target: str) -> bool:
        return source.startswith("gasp.report") and (
            target.startswith("gasp.store") or target.startswith("gasp.studies")
        )

    assert _violations(forbidden) == []


def test_modules_stay_small() -> None:
    long = []
    for path in _modules():
        name = str(path.relative_to(SRC.parent))
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and name not in SIZE_EXCEPTIONS:
            long.append(f"{name}: {lines} lines")
    assert long == []


def test_the_rules_can_fail() -> None:
    """The import reader sees a private import across packages (the rules are not vacuous)."""

    def private_elsewhere(source: str, target: str) -> bool:
        return target == "gasp.errors" and source.startswith("gasp.store")

    assert _violations(private_elsewhere), "the import reader found no import at all"


#: The audit's scorecard modules: they read saved results only.
SCORECARD_MODULES = tuple(
    f"gasp.auditing.{m}"
    for m in ("_scorecard", "_difference", "_page", "_junit", "_compare", "_gate")
)


def test_the_scorecard_reads_saved_results_and_only_the_api_and_cli_import_the_audit() -> None:
    """The scorecard never opens a store, calls a model or imports a study package (the
    audit's orchestration runs studies; its scorecard reads what they saved); only the
    public API and the command line import the audit."""

    def forbidden(source: str, target: str) -> bool:
        if source.startswith(SCORECARD_MODULES):
            top = target.split(".")[1]
            study_package = _package_of(target).startswith("gasp.studies.")
            return top in ENGINE or study_package
        users = ("gasp.cli", "gasp.auditing", "gasp._api")
        package_root = source == "gasp"  # its lazy attributes, for type checkers
        return target.startswith("gasp.auditing") and not (source.startswith(users) or package_root)

    assert _violations(forbidden) == []


def test_the_package_docstring_names_every_package() -> None:
    """``gasp``'s docstring describes the same packages the layers list."""
    import gasp

    packages = {name for name in RANK if (SRC / name / "__init__.py").is_file()}
    missing = sorted(name for name in packages if f"``{name}``" not in (gasp.__doc__ or ""))
    assert missing == []
