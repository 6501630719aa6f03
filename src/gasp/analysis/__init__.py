"""Analyses of a run: who is represented, how, and how models compare."""

from gasp.analysis._results import AuditResults

__all__ = ["AuditResults"]
