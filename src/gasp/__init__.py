"""gasp: audit large language models for representational harms in generated text.

The package implements the GAS(P) methodology (Generate, Associate, Statistically
test, Probe) and the related Marked Personas, OccuGender and paired-pronoun studies.

The public API (docs/api.md), imported on first use so that ``import gasp`` stays fast:

- :func:`gasp.run` runs a study end to end in a run folder (as ``gasp run``), and
  :func:`gasp.run_async` for a caller with an event loop;
- :func:`gasp.analyze` analyses a run, a table, a DataFrame or another tool's log;
- :func:`gasp.compare` compares analysed runs and tests their differences;
- :func:`gasp.audit` (:func:`gasp.audit_async`) runs an audit of several models, and
  :func:`gasp.plan_audit` plans one (the :mod:`gasp.auditing` package does the work);
- :func:`gasp.tour` runs the quick audit of one model;
- :func:`gasp.generate` fills a run store with a study's samples, and
  :func:`gasp.export` writes a run's samples, scores or items to a file;
- :func:`gasp.probe_words` clusters the significant words of two groups into patterns;
- :func:`gasp.list_studies` and :func:`gasp.describe_study` list the studies, and
  :func:`gasp.render_report` renders a run's report again;
- :func:`gasp.associate_genders`, :func:`gasp.marked_words` and :func:`gasp.calibrate`
  analyse a table of texts without a study;
- :func:`gasp.inspect_tasks_path` and :func:`gasp.export_hf` serve Inspect AI and
  other engines;
- :func:`gasp.view` browses every run and audit under some folders;
- :func:`gasp.declared_settings` lists the settings of a run, each declared once (the
  command line's flags are generated from them).

Packages and layers, lowest first (``tests/test_architecture.py`` keeps this true; a
package imports its own layer and those below): the base (``errors``), the core
(``files``: input files read within bounds, ``text``, ``stats``, ``associate``, ``names``,
``embeddings``, ``probe``, ``results``),
the engine (``backends``, ``runner``, ``store``, ``io``: tables and other tools' files
in), the report framework (``report``), ``studies`` (one package per study), the
pipeline and interop (``pipeline``: a run's steps, checks and outputs; ``interop``:
Inspect tasks out; ``testing``: mock backends and planted worlds), ``auditing`` (many
runs, one scorecard), ``viewing`` (the results browser over saved runs and audits),
the public API above (``_api``: one function per command) and
``cli`` (parses, calls the API, prints).
The README's package table lists the same.
"""

from __future__ import annotations

from gasp.errors import GaspError

#: Type checkers take this as true; at run time nothing more is imported (``typing`` is
#: left out on purpose: it would double the time of ``import gasp``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gasp._api import (
        GenderAssociation,
        Generation,
        MarkedWords,
        ProbeOutcome,
        StudyInfo,
        StudyListing,
        analyze,
        associate_genders,
        audit,
        audit_async,
        calibrate,
        compare,
        describe_study,
        export,
        export_hf,
        generate,
        inspect_tasks_path,
        list_studies,
        marked_words,
        plan_audit,
        probe_words,
        render_report,
        run,
        run_async,
        tour,
        view,
    )
    from gasp.auditing import AuditPlan, Scorecard
    from gasp.pipeline import ExportOutcome, RunResult, Step
    from gasp.pipeline import settings_of as declared_settings
    from gasp.probe import ProbeResult
    from gasp.stats import CalibrationReport

__version__ = "0.1.0"


def _api_names() -> list[str]:
    """The public names of :mod:`gasp._api` (its ``__all__``), without importing any of
    its modules."""
    import importlib

    return list(importlib.import_module("gasp._api").__all__)


#: Lazy attributes: name -> (module, attribute); every function and result class of
#: :mod:`gasp._api` (which imports nothing itself) and the result classes below it.
_LAZY: dict[str, tuple[str, str]] = {
    **{name: ("gasp._api", name) for name in _api_names()},
    "RunResult": ("gasp.pipeline", "RunResult"),
    "Scorecard": ("gasp.auditing", "Scorecard"),
    "AuditPlan": ("gasp.auditing", "AuditPlan"),
    "Step": ("gasp.pipeline", "Step"),
    "declared_settings": ("gasp.pipeline", "settings_of"),
    "ExportOutcome": ("gasp.pipeline", "ExportOutcome"),
    "ProbeResult": ("gasp.probe", "ProbeResult"),
    "CalibrationReport": ("gasp.stats", "CalibrationReport"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'gasp' has no attribute {name!r}")
    import importlib

    module_name, attribute = _LAZY[name]
    return getattr(importlib.import_module(module_name), attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "AuditPlan",
    "CalibrationReport",
    "ExportOutcome",
    "GaspError",
    "GenderAssociation",
    "Generation",
    "MarkedWords",
    "ProbeOutcome",
    "ProbeResult",
    "RunResult",
    "Scorecard",
    "Step",
    "StudyInfo",
    "StudyListing",
    "__version__",
    "analyze",
    "associate_genders",
    "audit",
    "audit_async",
    "calibrate",
    "compare",
    "declared_settings",
    "describe_study",
    "export",
    "export_hf",
    "generate",
    "inspect_tasks_path",
    "list_studies",
    "marked_words",
    "plan_audit",
    "probe_words",
    "render_report",
    "run",
    "run_async",
    "tour",
    "view",
]
