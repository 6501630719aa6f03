"""The More of the Same report section: who is represented, how, the probe, and the
comparison of models, built with the :mod:`gasp.report` framework from saved results."""

from gasp.studies.more_of_the_same.report._audit_report import render_audit_report
from gasp.studies.more_of_the_same.report._comparison_report import render_comparison_report
from gasp.studies.more_of_the_same.report._render import render_run_report

__all__ = ["render_audit_report", "render_comparison_report", "render_run_report"]
