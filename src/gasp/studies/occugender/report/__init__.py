"""The OccuGender report section: rendered from saved results only."""

from gasp.studies.occugender.report._render import render_comparison, render_report

__all__ = ["render_comparison", "render_report"]
