"""What :func:`gasp.run`, :func:`gasp.analyze` and :func:`gasp.compare` return.

A :class:`RunResult` points at a run's folders and reads its saved results on demand:
the tables as DataFrames by name, the study's headline metrics as one DataFrame, the
summary lines. ``to_json()`` gives the same as plain data, and ``_repr_html_`` shows
the headline metrics inline in a notebook.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from gasp.results import AuditResults

#: The file a comparison's tested differences are saved in (the scorecard's).
SCORECARD_FILE = "scorecard.json"
#: The columns of :attr:`RunResult.metrics` (``interval_note``: why a metric has no
#: interval, empty when it has one; ``note``: what its value rests on).
METRIC_COLUMNS = (
    "metric", "value", "ci_low", "ci_high", "interval_note", "n", "better", "unit",
    "excluded_share", "note", "meaning",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class RunResult:
    """One study's saved results (of a run, an analysis or a comparison), read on demand."""

    #: The study's registered name.
    study: str
    #: The results folder (``results.json`` and one file per table).
    results_dir: Path
    #: The model of the run (None for texts analysed from a table).
    model: str | None = None
    #: The run folder (None when the results stand alone).
    folder: Path | None = None
    #: The HTML report, when one was rendered.
    report: Path | None = None
    #: False when a step did not finish (failed samples, a failed probe).
    ok: bool = True
    #: The summary lines of the analysis and probe.
    lines: tuple[str, ...] = ()

    @functools.cached_property
    def saved(self) -> AuditResults:
        """The saved results, loaded once."""
        from gasp.results import AuditResults

        return AuditResults.load(self.results_dir)

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every saved table, by name."""
        return dict(self.saved.tables)

    def table(self, name: str) -> pd.DataFrame:
        """The saved table ``name`` (a :class:`~gasp.errors.DataError` names the others)."""
        from gasp.errors import DataError

        found = self.saved.get(name)
        if found is None:
            names = ", ".join(sorted(self.saved.tables)) or "none"
            raise DataError(f"no table {name!r} in {self.results_dir} (its tables: {names})")
        return found

    @property
    def comparisons(self) -> pd.DataFrame:
        """The tested differences of a comparison (``gasp compare``): one row per metric
        and pair of runs, with its interval, test, adjusted p-value and direction; empty
        where the results hold no scorecard."""
        import pandas as pd

        path = self.results_dir / SCORECARD_FILE
        if not path.is_file():
            return pd.DataFrame()
        from gasp.errors import DataError

        try:
            rows = json.loads(path.read_text(encoding="utf-8")).get("comparisons", [])
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as exc:
            raise DataError(f"cannot read {path}: {exc}") from None
        return pd.DataFrame(rows)

    @property
    def settings(self) -> dict[str, Any]:
        """The settings that produced the results."""
        return dict(self.saved.settings)

    @functools.cached_property
    def metrics(self) -> pd.DataFrame:
        """The study's headline metrics: one row each, with its interval from the run's
        own units (or, in ``interval_note``, why it has none), n and direction."""
        import pandas as pd

        from gasp.results import headline_rows
        from gasp.studies import get_study_type

        rows = headline_rows(get_study_type(self.study).headline_metrics(), self.saved)
        return pd.DataFrame(rows, columns=list(METRIC_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data: where it lies, how it ended, its headline metrics."""
        metrics = self.metrics.astype(object).where(self.metrics.notna(), None)
        return {
            "study": self.study,
            "model": self.model,
            "folder": None if self.folder is None else str(self.folder),
            "results": str(self.results_dir),
            "report": None if self.report is None else str(self.report),
            "ok": self.ok,
            "lines": list(self.lines),
            "tables": sorted(self.saved.tables),
            "metrics": metrics.to_dict(orient="records"),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    def _repr_html_(self) -> str:
        title = html.escape(f"{self.study}" + (f" on {self.model}" if self.model else ""))
        status = "" if self.ok else " <b>(a step did not finish)</b>"
        report = (
            f'<p>report: <a href="{html.escape(self.report.as_uri())}">'
            f"{html.escape(str(self.report))}</a></p>"
            if self.report is not None
            else ""
        )
        tables = html.escape(", ".join(sorted(self.saved.tables)))
        return (
            f"<div><h4>gasp: {title}{status}</h4>"
            f"{self.metrics.to_html(index=False, float_format=lambda v: f'{v:.4g}')}"
            f"<p>tables: {tables}</p>{report}</div>"
        )

    def __repr__(self) -> str:
        where = self.folder if self.folder is not None else self.results_dir
        return f"RunResult(study={self.study!r}, model={self.model!r}, folder={str(where)!r})"


__all__ = ["METRIC_COLUMNS", "RunResult"]
