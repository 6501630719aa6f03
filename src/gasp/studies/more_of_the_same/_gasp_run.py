"""The More of the Same run measured to show GAS(P)'s statistics on the embedded model.

The quick run (the tour's) is too small for SRB scores: its associated word sets are
empty. :data:`GASP_RUN` is the smallest run found, by measurement on the embedded
SmolLM2-135M-Instruct model, that gives defined SRB scores with calibrated intervals and
a tested Marked Words result (docs/more-of-the-same.md holds its figures); the tour's
More of the Same cells name it where they cannot show those statistics.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeasuredRun:
    """A command and how long it took where it was measured."""

    #: The command line.
    command: str
    #: Wall-clock seconds of the whole command (generation, analysis, report).
    seconds: float
    #: Where it was measured.
    machine: str

    def sentence(self) -> str:
        """The sentence a page shows: the command and its measured time."""
        return (
            f"`{self.command}` shows them on the embedded model (measured: "
            f"{self.seconds / 60:.0f} minutes on {self.machine}; docs/more-of-the-same.md)"
        )


#: The smallest More of the Same run measured to give SRB scores with calibrated
#: intervals and tested Marked Words on the embedded model.
GASP_RUN = MeasuredRun(
    command=(
        "gasp run more-of-the-same -m embedded --occupations doctor --templates biography "
        "--conditions unspecified,woman,man --n 50 --cap-factor 5 --max-tokens 100"
    ),
    seconds=392.0,
    machine="2 CPU cores shared with other jobs (load average 7 to 10)",
)

__all__ = ["GASP_RUN", "MeasuredRun"]
