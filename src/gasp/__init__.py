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
- :func:`gasp.view` browses every run and audit under some folders;
- :func:`gasp.declared_settings` lists the settings of a run, each declared once (the
  command line's flags are generated from them).

Packages and layers, lowest first (``tests/test_architecture.py`` keeps this true; a
package imports its own layer and those below): the base (``errors``), the core
(``text``, ``stats``, ``associate``, ``names``, ``embeddings``, ``probe``, ``results``),
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
        analyze,
        audit,
        audit_async,
        compare,
        plan_audit,
        run,
        run_async,
        view,
    )
    from gasp.auditing import AuditPlan, Scorecard
    from gasp.pipeline import RunResult
    from gasp.pipeline import settings_of as declared_settings

__version__ = "0.1.0"

#: Lazy attributes: name -> (module, attribute).
_LAZY: dict[str, tuple[str, str]] = {
    "run": ("gasp._api", "run"),
    "run_async": ("gasp._api", "run_async"),
    "analyze": ("gasp._api", "analyze"),
    "compare": ("gasp._api", "compare"),
    "audit": ("gasp._api", "audit"),
    "audit_async": ("gasp._api", "audit_async"),
    "plan_audit": ("gasp._api", "plan_audit"),
    "view": ("gasp._api", "view"),
    "RunResult": ("gasp.pipeline", "RunResult"),
    "Scorecard": ("gasp.auditing", "Scorecard"),
    "AuditPlan": ("gasp.auditing", "AuditPlan"),
    "declared_settings": ("gasp.pipeline", "settings_of"),
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
    "GaspError",
    "RunResult",
    "Scorecard",
    "__version__",
    "analyze",
    "audit",
    "audit_async",
    "compare",
    "declared_settings",
    "plan_audit",
    "run",
    "run_async",
    "view",
]
