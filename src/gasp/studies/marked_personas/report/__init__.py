"""The Marked Personas report, rendered from saved results only (it computes nothing)."""

from gasp.studies.marked_personas.report._report import (
    render_comparison,
    render_report,
    render_results,
)

__all__ = ["render_comparison", "render_report", "render_results"]
