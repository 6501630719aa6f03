"""Settings of a rendered report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gasp.results import EXAMPLES_PER_WORD

REPORT_FILE = "report.html"


@dataclass(frozen=True)
class ReportOptions:
    """Settings of a report.

    ``examples_per_word`` caps the example generations shown per word: the report
    keeps at most that many of those the analysis saved (it never adds any; the
    analysis's ``examples_per_word`` bounds what is saved, and which examples exist was
    seeded at analysis time).
    ``per_page`` is the number shown at a time, ``max_rows`` the rows of a table
    shown in the page (the CSV file always has all of them).
    """

    examples_per_word: int = EXAMPLES_PER_WORD
    per_page: int = 10
    max_rows: int = 1000
    filename: str = REPORT_FILE

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ReportOptions:
        """The settings of a study's report step (``examples_per_word`` among its options;
        unset: the default)."""
        return cls(examples_per_word=int(options.get("examples_per_word") or EXAMPLES_PER_WORD))
