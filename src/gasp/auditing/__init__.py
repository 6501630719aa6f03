"""The audit: several models (or system-prompt variants) across studies, one scorecard.

:func:`run_audit` (the public :func:`gasp.audit` calls it)
runs every chosen study for every model in its own run folder, resuming, with every
setting checked before anything is written and recorded in the folder; then it builds
the :class:`Scorecard`. Each study declares its headline metrics once
(:meth:`gasp.studies.StudyType.headline_metrics`); the scorecard reads every run's
saved results, tests every difference against the baseline (or between every pair of
models) with the test the pairing allows, applies one Benjamini-Hochberg correction
over the whole scorecard, and writes ``scorecard.json`` (schema ``gasp.scorecard/1``)
and ``index.html``. The scorecard part never opens a run store or calls a model.
"""

from gasp.auditing._compare import compare_folders, model_of_run
from gasp.auditing._difference import Difference, DifferenceSettings, compare_readings, quantity
from gasp.auditing._folder import AUDIT_FILE, REDO_ALL, is_audit_folder, read_audit
from gasp.auditing._gate import (
    FAIL_ON_WORSE,
    STEP_FAILED_EXIT_CODE,
    WORSE_EXIT_CODE,
    Gate,
    GateError,
    judge,
)
from gasp.auditing._junit import write_junit
from gasp.auditing._lock import AuditLocked, lock_audit
from gasp.auditing._models import model_folder_name, parse_models
from gasp.auditing._page import write_audit_page
from gasp.auditing._plan import AuditPlan, PlanRow
from gasp.auditing._power import Effect, detectable, power, units_needed
from gasp.auditing._prepare import AuditConfig, PreparedAudit, prepare_audit
from gasp.auditing._run import DEFAULT_LEVEL, DEFAULT_OUT, execute, plan, plan_only, run_audit
from gasp.auditing._scorecard import (
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
    "AUDIT_FILE",
    "DEFAULT_LEVEL",
    "DEFAULT_OUT",
    "FAIL_ON_WORSE",
    "REDO_ALL",
    "SCHEMA",
    "SCHEMA_FILE",
    "SCORECARD_FILE",
    "STEP_FAILED_EXIT_CODE",
    "WORSE_EXIT_CODE",
    "AuditConfig",
    "AuditLocked",
    "AuditModel",
    "AuditPlan",
    "Difference",
    "DifferenceSettings",
    "Effect",
    "Gate",
    "GateError",
    "PlanRow",
    "PreparedAudit",
    "RunRecord",
    "Scorecard",
    "build_scorecard",
    "compare_folders",
    "compare_readings",
    "correct",
    "detectable",
    "execute",
    "is_audit_folder",
    "judge",
    "lock_audit",
    "manifest_hash",
    "model_folder_name",
    "model_of_run",
    "parse_models",
    "plan",
    "plan_only",
    "power",
    "prepare_audit",
    "quantity",
    "read_audit",
    "run_audit",
    "units_needed",
    "write_audit_page",
    "write_junit",
    "write_scorecard",
]
