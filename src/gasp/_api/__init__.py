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
