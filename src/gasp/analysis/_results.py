"""The results of an audit: named tables written next to the run and read by the report.

Analyses return plain pandas DataFrames; :class:`AuditResults` groups them under the
names below and saves them as one CSV per table plus ``results.json`` (metadata and
the list of tables) in a results folder. The report renders these tables and
computes nothing new.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError

RESULTS_FORMAT_VERSION = 1

# Table names (keys of AuditResults.tables); each analysis documents its columns:
# representation, deciles, capture rate, accuracy in gasp.analysis._representation;
# marked words, SRB scores and tests, excluded subjects in gasp.analysis._descriptions;
# word tables in gasp.analysis._word_tables; model comparison, percent change in
# gasp.analysis._comparison.
REPRESENTATION = "representation"  # who is represented: shares per subject x template
DECILES = "representation_deciles"  # occupations per decile of the share of women (Fig. 2, 6)
CAPTURE_RATE = "capture_rate"  # share of generations the association assigns (Table 2)
ASSOCIATION_ACCURACY = "association_accuracy"  # named gender x associated gender (Table 1)
MARKED_WORDS = "marked_words"  # calibrated marked words per subject and group (long format)
SRB_SCORES = "srb_scores"  # SRB(S_AF || S_F, S_M), SRB(S_AM || S_F, S_M) per subject (Fig. 3)
SRB_TEST = "srb_test"  # Welch t-test and permutation test across subjects (Table 13)
WORD_TABLES = "word_tables"  # words per subject, gender and category (Table 15)
EXCLUDED = "excluded_subjects"  # subjects left out of a step, with the reason
MODEL_COMPARISON = "model_comparison"  # Welch tests between models' SRB scores (Table 14)
PERCENT_CHANGE = "percent_change"  # percent change of SRB per subject between models (Fig. 4)
PROBE_CLUSTERS = "probe_clusters"  # clusters of significant words with prevalence (Fig. 5)
PROBE_SILHOUETTE = "probe_silhouette"  # silhouette score per k (Fig. 8)


@dataclass
class AuditResults:
    """Named result tables of one run (or one comparison of runs) and their metadata."""

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    def get(self, name: str) -> pd.DataFrame | None:
        """The table called ``name``, or None when the analysis did not produce it."""
        return self.tables.get(name)

    def save(self, folder: str | Path) -> Path:
        """Write each table as ``<name>.csv`` and the index ``results.json``; return the folder."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        for name, table in self.tables.items():
            tmp = out / f".{name}.csv.tmp"
            table.to_csv(tmp, index=False)
            tmp.replace(out / f"{name}.csv")
        index = {
            "format_version": RESULTS_FORMAT_VERSION,
            "tables": sorted(self.tables),
            "meta": self.meta,
        }
        tmp_index = out / ".results.json.tmp"
        tmp_index.write_text(json.dumps(index, indent=2, default=str), encoding="utf-8")
        tmp_index.replace(out / "results.json")
        return out

    @classmethod
    def load(cls, folder: str | Path) -> AuditResults:
        """Read results written by :meth:`save`."""
        path = Path(folder)
        index_path = path / "results.json"
        if not index_path.is_file():
            raise DataError(f"no audit results in {path} (results.json is missing)")
        try:
            index = json.loads(index_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"{index_path} is not valid JSON: {exc.msg}") from exc
        tables = {}
        for name in index.get("tables", []):
            csv_path = path / f"{name}.csv"
            try:
                tables[name] = pd.read_csv(csv_path, keep_default_na=True)
            except pd.errors.EmptyDataError:
                tables[name] = pd.DataFrame()
        return cls(tables=tables, meta=dict(index.get("meta", {})))
