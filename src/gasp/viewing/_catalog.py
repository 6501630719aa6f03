"""Every run and audit found under the folders given, with what the index shows of each.

A run is a folder made by ``gasp run`` (``run.sqlite`` and/or ``results/``); an audit
is a folder with ``audit.json`` or ``scorecard.json`` (its runs are listed as runs
too, linked to it). Symbolic links are not followed while searching. Entries are kept
between scans and read again only when a file they come from changed, so the index of
a large tree is cheap to show again.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gasp.errors import DataError, GaspError
from gasp.io import RESULTS_DIR, STORE_FILE
from gasp.results import INCOMPLETE_KEY, INDEX_FILE
from gasp.viewing._metrics import run_metrics
from gasp.viewing._store import store_state

AUDIT_FILE = "audit.json"
SCORECARD_FILE = "scorecard.json"
#: Folders never searched: a run's own outputs, version control, environments.
_PRUNED = {"report", "figures", "tables", "node_modules", "__pycache__"}
#: How deep under each folder runs are looked for.
MAX_DEPTH = 8


def entry_key(root: int, rel: str) -> str:
    """The short, URL-safe id of the folder ``rel`` under root number ``root``."""
    return hashlib.sha1(f"{root}:{rel}".encode()).hexdigest()[:12]


@dataclass
class Run:
    """One run folder, as the index shows it."""

    key: str
    root: int
    folder: Path
    rel: str
    study: str | None = None
    model: str | None = None
    date: str | None = None
    answers: int = 0
    expected: int = 0
    size_bytes: int = 0
    status: str = "finished"
    error: str | None = None
    note: str | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)
    audit: str | None = None
    results: Path | None = None
    store: Path | None = None

    @property
    def label(self) -> str:
        """The folder as shown: its path under the folder given, or its name when it is
        that folder."""
        return self.rel if self.rel != "." else self.folder.name


@dataclass
class Audit:
    """One audit folder and its scorecard."""

    key: str
    root: int
    folder: Path
    rel: str
    date: str | None = None
    models: list[str] = field(default_factory=list)
    studies: list[str] = field(default_factory=list)
    status: str = "finished"
    error: str | None = None
    card: dict[str, Any] | None = None
    #: (model name, study) -> the key of its run.
    runs: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The folder as shown: its path under the folder given, or its name when it is
        that folder."""
        return self.rel if self.rel != "." else self.folder.name


def _mtime(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _signature(folder: Path, *names: str) -> tuple[int, ...]:
    return tuple(_mtime(folder / name) for name in names)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path.name} cannot be read (half-written or damaged): {exc}") from None
    if not isinstance(data, dict):
        raise DataError(f"{path.name} does not hold a JSON object")
    return data


def read_run(root: int, top: Path, folder: Path) -> Run:
    """The index entry of the run folder ``folder`` under ``top``; errors become its status."""
    rel = folder.relative_to(top).as_posix() if folder != top else "."
    run = Run(entry_key(root, rel), root, folder, rel)
    store, results = folder / STORE_FILE, folder / RESULTS_DIR
    if store.is_file() and not store.is_symlink():
        run.store = store
        run.size_bytes = sum(
            p.stat().st_size for p in (store, folder / f"{STORE_FILE}-wal") if p.is_file()
        )
        try:
            state = store_state(store)
        except GaspError as exc:
            run.status, run.error = "error", str(exc)
            return run
        run.study, run.model, run.date = state.study, state.model, state.started_at
        run.answers, run.expected = state.answers, state.expected
        if state.running:
            run.status = "running"
        elif state.outcome == "error":
            run.status = "failed"
        elif state.outcome == "interrupted" or (
            state.answers < state.expected and not state.outcome
        ):
            run.status = "interrupted"
        elif state.outcome not in (None, "complete"):
            run.status, run.note = "incomplete", state.outcome
    if (results / INDEX_FILE).is_file():
        try:
            index = _read_json(results / INDEX_FILE)
        except DataError as exc:
            if run.status != "running":
                run.status, run.error = "error", f"results/{exc}"
            return run
        found = index.get("meta")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        run.results = results
        run.study = run.study or meta.get("study_kind")
        run.model = run.model or meta.get("model_id")
        if meta.get(INCOMPLETE_KEY) and run.status == "finished":
            run.status, run.note = "incomplete", str(meta[INCOMPLETE_KEY])
    elif run.store is None:
        run.status, run.error = "error", "results/results.json is missing"
    elif run.status == "finished":
        run.status, run.note = "not analysed", "the store holds answers; no results saved yet"
    return run


#: The parts of a scorecard the browser reads: each a list of JSON objects.
_CARD_LISTS = ("models", "studies", "metrics", "comparisons", "runs")


def _checked_card(card: dict[str, Any]) -> dict[str, Any]:
    """``card`` if its lists are lists of objects; else a :class:`DataError` naming the key."""
    for key in _CARD_LISTS:
        value = card.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise DataError(
                f"{SCORECARD_FILE} is not a gasp scorecard: {key!r} is not a list of objects"
            )
    return card


def read_audit(root: int, top: Path, folder: Path) -> Audit:
    """The entry of the audit folder ``folder``: its scorecard, or the error reading it."""
    rel = folder.relative_to(top).as_posix() if folder != top else "."
    audit = Audit(entry_key(root, rel), root, folder, rel)
    try:
        if (folder / SCORECARD_FILE).is_file():
            audit.card = _checked_card(_read_json(folder / SCORECARD_FILE))
            audit.models = [str(m.get("name")) for m in audit.card.get("models", [])]
            audit.studies = [str(s.get("study")) for s in audit.card.get("studies", [])]
        elif (folder / AUDIT_FILE).is_file():
            record = _read_json(folder / AUDIT_FILE)
            audit.models = [str(m.get("name")) for m in record.get("models", [])]
            audit.studies = [str(s) for s in record.get("studies", [])]
            audit.status = "no scorecard yet"
    except DataError as exc:
        audit.status, audit.error = "error", str(exc)
    return audit


class Catalog:
    """The runs and audits under ``roots``, read again only where files changed."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [Path(r) for r in roots]
        self.notes: list[str] = []
        self.runs: dict[str, Run] = {}
        self.audits: dict[str, Audit] = {}
        self._cache: dict[Path, tuple[tuple[int, ...], Run | Audit]] = {}
        self._metrics: dict[Path, tuple[tuple[int, ...], list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        #: Runs whose headline metrics are not read yet (see :meth:`read_metrics`).
        self.pending: list[Run] = []

    def _cached(self, folder: Path, sig: tuple[int, ...], make: Any) -> Any:
        hit = self._cache.get(folder)
        if hit is not None and hit[0] == sig:
            return hit[1]
        entry = make()
        self._cache[folder] = (sig, entry)
        return entry

    def scan(self, *, metrics: bool = True) -> Catalog:
        """Look for runs and audits again (thread-safe); returns itself.

        With ``metrics`` false, runs outside audits whose headline metrics are not
        cached yet are left in :attr:`pending` (a server reads them in the background
        with :meth:`read_metrics`, so the first index of a large tree comes at once)."""
        with self._lock:
            runs: dict[str, Run] = {}
            audits: dict[str, Audit] = {}
            notes: list[str] = []
            for number, top in enumerate(self.roots):
                if not top.is_dir():
                    notes.append(f"{top} is not a folder: skipped")
                    continue
                found = self._walk(number, top, runs, audits, notes)
                if not found:
                    notes.append(f"no run or audit found under {top}")
            for audit in audits.values():
                self._link(audit, runs)
            pending = []
            for run in runs.values():
                if run.results is None or run.audit is not None or run.status == "error":
                    continue
                hit = self._metrics.get(run.results)
                if hit is not None and hit[0] == _signature(run.results, INDEX_FILE):
                    run.metrics = hit[1]
                else:
                    pending.append(run)
            self.runs, self.audits, self.notes, self.pending = runs, audits, notes, pending
        if metrics:
            self.read_metrics()
        return self

    def read_metrics(self) -> int:
        """Read the headline metrics of the runs in :attr:`pending`; how many were read."""
        done = 0
        for run in list(self.pending):
            if run.results is None:
                continue
            sig = _signature(run.results, INDEX_FILE)
            rows = run_metrics(run.study, run.results)
            with self._lock:
                self._metrics[run.results] = (sig, rows)
                run.metrics = rows
                if run in self.pending:
                    self.pending.remove(run)
            done += 1
        return done

    def _walk(
        self,
        number: int,
        top: Path,
        runs: dict[str, Run],
        audits: dict[str, Audit],
        notes: list[str],
    ) -> int:
        found = 0
        base = len(top.parts)
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            folder = Path(dirpath)
            files = set(filenames)
            links = [d for d in dirnames if (folder / d).is_symlink()]
            for name in links:
                notes.append(f"{(folder / name)} is a symbolic link: not followed")
            dirnames[:] = sorted(
                d for d in dirnames if d not in links and not d.startswith(".") and d not in _PRUNED
            )
            if len(folder.parts) - base >= MAX_DEPTH:
                dirnames[:] = []
            if AUDIT_FILE in files or SCORECARD_FILE in files:
                sig = _signature(folder, AUDIT_FILE, SCORECARD_FILE)
                audit = self._cached(folder, sig, lambda f=folder: read_audit(number, top, f))
                audits[audit.key] = audit
                found += 1
            is_run = STORE_FILE in files or (
                RESULTS_DIR in dirnames and (folder / RESULTS_DIR / INDEX_FILE).exists()
            )
            if is_run:
                sig = _signature(
                    folder, STORE_FILE, f"{STORE_FILE}-wal", f"{RESULTS_DIR}/{INDEX_FILE}"
                )
                run = self._cached(folder, (*sig, 1), lambda f=folder: read_run(number, top, f))
                if run.status == "running":  # its progress moves with no file time changing
                    self._cache.pop(folder, None)
                runs[run.key] = run
                found += 1
                dirnames[:] = []
            elif RESULTS_DIR in dirnames and (folder / RESULTS_DIR).is_dir():
                notes.append(f"{folder} has a results folder without results.json: not a run")
        return found

    @staticmethod
    def _link(audit: Audit, runs: dict[str, Run]) -> None:
        by_folder = {run.folder: run for run in runs.values()}
        metrics: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in (audit.card or {}).get("metrics", []):
            metrics.setdefault((str(row.get("model")), str(row.get("study"))), []).append(row)
        records = (audit.card or {}).get("runs", [])
        for record in records:
            folder = audit.folder / str(record.get("folder", ""))
            run = by_folder.get(folder)
            if run is None:
                continue
            pair = (str(record.get("model")), str(record.get("study")))
            audit.runs[pair] = run.key
            run.audit = audit.key
            run.metrics = metrics.get(pair, run.metrics)
            if audit.date is None or (run.date and run.date > audit.date):
                audit.date = run.date
        if audit.date is None:
            audit.date = _iso(_mtime(audit.folder / SCORECARD_FILE) or _mtime(audit.folder))
        if any(runs[key].status == "running" for key in audit.runs.values()):
            audit.status = "running"

    def run_of(self, key: str) -> Run | None:
        """The run with id ``key``."""
        return self.runs.get(key)


def _iso(ns: int) -> str | None:
    import datetime as dt

    if not ns:
        return None
    return dt.datetime.fromtimestamp(ns / 1e9, tz=dt.UTC).isoformat()


__all__ = ["Audit", "Catalog", "Run", "entry_key", "read_audit", "read_run"]
