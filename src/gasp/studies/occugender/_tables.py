"""Names of the tables of an OccuGender analysis (the contract between the analysis that
writes them and the report that reads them).

Shares are percentages (``M``, ``F``, ``D``: the normalised shares of Eq. 4 of the male,
female and diverse expressions, each row summing to 100); ``coverage`` is
``P_m + P_f + P_d``, the probability the expressions get at all.
"""

from __future__ import annotations

from gasp.results import TableLayout

CELLS = "cells"  # per (task, template, job, condition): P_g, coverage, shares
EXPRESSIONS = "expressions"  # mass per expression (mean over the cells), with its status
NOT_SCORABLE = "not_scorable"  # expressions the backend cannot score (approximate backends)
JOBS = "jobs"  # per (task, condition, job): shares averaged over templates, amplification
TABLE2 = "table2"  # Table 2 (long): per (task, group), condition None, with intervals
TABLE2_WIDE = "table2_wide"  # Table 2 as the paper lays it out, with coverage
DEBIASING = "debiasing"  # Tables 6-11 (long): per (task, group, condition / level average)
DEBIASING_WIDE = "debiasing_wide"  # Tables 6-11 as the paper lays them out, with coverage
CORRELATION = "correlation"  # Spearman of P~_f with the BLS share of women, per condition
SUMMARY = "summary"  # P~_f of female- minus male-dominated jobs, with its interval
COMPARISON = "comparison"  # one row per compared run

SHARES = ("M", "F", "D")

LAYOUTS: dict[str, TableLayout] = {
    name: TableLayout(share_columns=SHARES, percent=True)
    for name in (CELLS, JOBS, TABLE2, DEBIASING)
}
