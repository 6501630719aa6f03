"""The public Python API: every command of ``gasp`` is one of these functions.

:func:`run` (and :func:`run_async`) runs a study end to end, :func:`analyze` analyses a
run, a table or another tool's log, :func:`compare` tests the differences of saved
runs, :func:`audit` (and :func:`audit_async`, :func:`plan_audit`) audits several
models. Each checks its keywords first (a bad one is one
:class:`~gasp.errors.GaspError` line naming it, before anything is written) and works
inside a running event loop. ``gasp`` imports these modules on first use, so ``import
gasp`` stays fast; each function's module imports only what that function needs
(``gasp.run`` never loads the audit).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gasp._api._analyze import analyze, compare
    from gasp._api._audit import audit, audit_async, plan_audit
    from gasp._api._run import run, run_async
    from gasp._api._view import view

#: Each public function and the module it lives in, imported on first use.
_MODULES = {
    "run": "_run",
    "run_async": "_run",
    "analyze": "_analyze",
    "compare": "_analyze",
    "audit": "_audit",
    "audit_async": "_audit",
    "plan_audit": "_audit",
    "view": "_view",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module 'gasp._api' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"gasp._api.{_MODULES[name]}"), name)


__all__ = [
    "analyze",
    "audit",
    "audit_async",
    "compare",
    "plan_audit",
    "run",
    "run_async",
    "view",
]
