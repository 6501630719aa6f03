"""The public Python API: every command of ``gasp`` is one of these functions.

:func:`run` (and :func:`run_async`) runs a study end to end, :func:`analyze` analyses a
run, a table or another tool's log, :func:`compare` tests the differences of saved
runs, :func:`audit` (and :func:`audit_async`, :func:`plan_audit`) audits several
models, :func:`tour` is the quick audit of one model. :func:`generate` and
:func:`export` fill a run store and write its tables out, :func:`probe_words` clusters
significant words, :func:`render_report` renders a run's report again;
:func:`associate_genders`, :func:`marked_words` and :func:`calibrate` analyse a table
of texts without a study; :func:`list_studies` and :func:`describe_study` list the
studies; :func:`inspect_tasks_path` and :func:`export_hf` serve other tools;
:func:`view` browses results. Each checks its keywords first (a bad one is one
:class:`~gasp.errors.GaspError` line naming it, before anything is written) and works
inside a running event loop. ``gasp`` imports these modules on first use, so ``import
gasp`` stays fast; each function's module imports only what that function needs
(``gasp.run`` never loads the audit).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gasp._api._analyze import analyze as analyze
    from gasp._api._analyze import compare as compare
    from gasp._api._audit import audit as audit
    from gasp._api._audit import audit_async as audit_async
    from gasp._api._audit import plan_audit as plan_audit
    from gasp._api._generate import Generation as Generation
    from gasp._api._generate import export as export
    from gasp._api._generate import generate as generate
    from gasp._api._run import run as run
    from gasp._api._run import run_async as run_async
    from gasp._api._studies import StudyInfo as StudyInfo
    from gasp._api._studies import StudyListing as StudyListing
    from gasp._api._studies import describe_study as describe_study
    from gasp._api._studies import list_studies as list_studies
    from gasp._api._studies import render_report as render_report
    from gasp._api._tables import GenderAssociation as GenderAssociation
    from gasp._api._tables import MarkedWords as MarkedWords
    from gasp._api._tables import ProbeOutcome as ProbeOutcome
    from gasp._api._tables import associate_genders as associate_genders
    from gasp._api._tables import calibrate as calibrate
    from gasp._api._tables import marked_words as marked_words
    from gasp._api._tables import probe_words as probe_words
    from gasp._api._tools import export_hf as export_hf
    from gasp._api._tools import inspect_tasks_path as inspect_tasks_path
    from gasp._api._tour import tour as tour
    from gasp._api._view import view as view

#: Each public function (and result class) and the module it lives in, imported on
#: first use.
_MODULES = {
    "run": "_run",
    "run_async": "_run",
    "analyze": "_analyze",
    "compare": "_analyze",
    "audit": "_audit",
    "audit_async": "_audit",
    "plan_audit": "_audit",
    "view": "_view",
    "generate": "_generate",
    "export": "_generate",
    "probe_words": "_tables",
    "list_studies": "_studies",
    "describe_study": "_studies",
    "render_report": "_studies",
    "associate_genders": "_tables",
    "marked_words": "_tables",
    "calibrate": "_tables",
    "inspect_tasks_path": "_tools",
    "export_hf": "_tools",
    "tour": "_tour",
    "Generation": "_generate",
    "ProbeOutcome": "_tables",
    "StudyInfo": "_studies",
    "StudyListing": "_studies",
    "GenderAssociation": "_tables",
    "MarkedWords": "_tables",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module 'gasp._api' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"gasp._api.{_MODULES[name]}"), name)


#: Every public name (a sequence, not a literal: the names are those of ``_MODULES``).
__all__ = sorted(_MODULES)
