"""The audit: several models (or system-prompt variants) across studies, one scorecard.

Each study declares its headline metrics once (:meth:`gasp.studies.StudyType.headline_metrics`);
the audit reads every run's saved results, tests every difference against the baseline
(or between every pair of models) with the test the pairing allows, applies one
Benjamini-Hochberg correction over the whole scorecard, and writes ``scorecard.json``
(schema ``gasp.scorecard/1``) and ``index.html``. It never opens a run store or calls
a model; the command line runs the studies.
"""

from gasp.audit._difference import Difference, DifferenceSettings, compare_readings, quantity
from gasp.audit._junit import write_junit
from gasp.audit._page import write_audit_page
from gasp.audit._scorecard import (
    SCHEMA,
    SCHEMA_FILE,
    SCORECARD_FILE,
    AuditModel,
    RunRecord,
    Scorecard,
    build_scorecard,
    correct,
    manifest_hash,
    write_scorecard,
)

__all__ = [
    "SCHEMA",
    "SCHEMA_FILE",
    "SCORECARD_FILE",
    "AuditModel",
    "Difference",
    "DifferenceSettings",
    "RunRecord",
    "Scorecard",
    "build_scorecard",
    "compare_readings",
    "correct",
    "manifest_hash",
    "quantity",
    "write_audit_page",
    "write_junit",
    "write_scorecard",
]
