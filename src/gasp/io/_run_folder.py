"""Where a run keeps its files, and finding them from any of its paths.

A run is found from any of: a run folder made by ``gasp run`` (``run.sqlite``,
``results/``, ``report/``; its ``run.sqlite`` names it too), a run store file (results
in ``<store>.results`` beside it), or a results folder (``results.json``): ``X.results``
has its report in ``X.report`` beside it, any other (the output of ``gasp compare --out D``)
in ``D/report``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gasp.errors import ConfigError, DataError

STORE_FILE = "run.sqlite"
RESULTS_DIR = "results"
REPORT_DIR = "report"


@dataclass(frozen=True)
class RunPaths:
    """Where a run's store, results and report live."""

    store: Path | None
    results: Path
    report: Path


def run_folder_paths(folder: str | Path) -> RunPaths:
    """The layout of a run folder made by ``gasp run``."""
    root = Path(folder)
    return RunPaths(root / STORE_FILE, root / RESULTS_DIR, root / REPORT_DIR)


def locate_run(path: str | Path) -> RunPaths:
    """The store, results and report paths of the run at ``path`` (see module docstring)."""
    p = Path(path)
    if p.is_dir() and ((p / STORE_FILE).is_file() or (p / RESULTS_DIR).is_dir()):
        paths = run_folder_paths(p)
        store = paths.store if paths.store is not None and paths.store.is_file() else None
        return RunPaths(store, paths.results, paths.report)
    from gasp.results import INDEX_FILE

    if p.is_dir() and (p / INDEX_FILE).is_file():
        if not p.name.endswith(".results"):  # a comparison's or --out folder: all inside
            return RunPaths(None, p, p / REPORT_DIR)
        store = p.with_name(p.name.removesuffix(".results"))
        report = p.with_name(p.name.removesuffix(".results") + ".report")
        return RunPaths(store if store.is_file() else None, p, report)
    if p.is_file():
        results = p.with_name(p.name + ".results")
        if p.name == STORE_FILE and not results.exists() and (p.parent / RESULTS_DIR).is_dir():
            return locate_run(p.parent)  # the store of a run folder, named by its path
        return RunPaths(p, results, p.with_name(p.name + ".report"))
    raise DataError(f"no run at {p}: expected a run folder, a run store or a results folder")


def _owned(paths: RunPaths) -> list[Path]:
    """The folders and files a run's analysis owns (its run folder, if it has one)."""
    parts = [paths.results, paths.report] + ([paths.store] if paths.store is not None else [])
    parents = {p.resolve().parent for p in parts}
    if paths.results == paths.report:
        return [paths.results.resolve()]
    if len(parents) == 1 and (paths.results.name == RESULTS_DIR):
        return [parents.pop()]  # a run folder: everything inside it is the run's
    return [p.resolve() for p in parts]


def check_comparison_paths(runs: Sequence[str | Path], out: str | Path) -> None:
    """Refuse a comparison that would overwrite one of its runs, or read one run twice.

    ``out`` may be neither a run's folder (store, results or report) nor inside one, and
    no run may be named twice (a run compared with itself shows nothing). Raises
    :class:`~gasp.errors.ConfigError` before anything is read or written.
    """
    target = Path(out).resolve()
    seen: dict[Path, str] = {}
    for run in runs:
        try:
            paths = locate_run(run)
        except DataError:  # an audit folder, or nothing yet: the folder itself is the run's
            paths = RunPaths(None, Path(run), Path(run))
        key = paths.results.resolve()
        if key in seen:
            raise ConfigError(f"{run} and {seen[key]} are the same run: compare two different runs")
        seen[key] = str(run)
        for owned in _owned(paths):
            if target == owned or owned in target.parents:
                raise ConfigError(
                    f"--out {out} is inside run {run}: the comparison would overwrite it; "
                    "choose a folder outside every run compared"
                )


def missing_input_line(name: str) -> str:
    """What to say when the run or table ``name`` does not exist: what is read, and, for
    a Hugging Face hub name (``hf://...``, ``owner/name``), that only saved folders are."""
    line = (
        f"{name} does not exist: give a run folder, a run store (.sqlite), a table of texts "
        "(CSV, TSV, Parquet, JSON Lines, Excel), an Inspect or lm-eval log, or a folder "
        "saved with datasets' save_to_disk; check the path"
    )
    if name.startswith("hf:/") or (name.count("/") == 1 and "." not in name):
        line += (
            "; a Hugging Face dataset is read from a saved folder, not by its hub name: "
            "datasets.load_dataset(NAME).save_to_disk(FOLDER), then give FOLDER"
        )
    return line
