"""The gate of an audit (``--fail-on worse``): its exit status and what made it.

With ``fail_on="worse"`` the gate fails (exit 3) when a comparison against the baseline
is significantly worse beyond its margin, and it never passes when something did not
run: a chosen study of any model that was not served, failed, did not finish, or
could not be tested against the baseline is an error (exit 1). Without it, a run that
failed or did not finish gives exit 1; a study a backend cannot serve is listed only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gasp.auditing._scorecard import Scorecard

#: Exit status when a run failed or (with ``--fail-on worse``) could not be compared.
STEP_FAILED_EXIT_CODE = 1
#: Exit status of ``--fail-on worse`` when a comparison is significantly worse.
WORSE_EXIT_CODE = 3
#: The one value of ``fail_on``.
FAIL_ON_WORSE = "worse"


@dataclasses.dataclass(frozen=True)
class GateError:
    """A chosen (model, study) the gate could not judge, and why."""

    model: str
    study: str
    status: str
    reason: str

    def line(self) -> str:
        """One line for the terminal and the JUnit file."""
        return f"{self.model} / {self.study}: {self.status}" + (
            f" ({self.reason})" if self.reason else ""
        )


@dataclasses.dataclass(frozen=True)
class Gate:
    """The verdict of the gate on one scorecard."""

    fail_on: str | None
    margins: Mapping[str, float]
    failing: list[dict[str, Any]]
    errors: list[GateError]

    @property
    def exit_status(self) -> int:
        """0, 3 (significantly worse) or 1 (something did not run or was not tested)."""
        if self.failing:
            return WORSE_EXIT_CODE
        return STEP_FAILED_EXIT_CODE if self.errors else 0


def _untested(card: Scorecard) -> list[GateError]:
    """Complete runs of a non-baseline model none of whose comparisons has a p-value."""
    errors = []
    complete = {(r["model"], r["study"]) for r in card.runs if r["status"] == "complete"}
    for model, study in sorted(complete):
        if model == card.baseline or (card.baseline, study) not in complete:
            continue
        rows = [
            c
            for c in card.comparison_rows
            if c["model"] == model and c["study"] == study and c["baseline"] == card.baseline
        ]
        if not any(c["p_value"] is not None for c in rows):
            errors.append(
                GateError(model, study, "not tested", "no headline metric could be compared")
            )
    return errors


def judge(card: Scorecard, fail_on: str | None, margins: Mapping[str, float] | None) -> Gate:
    """The gate's verdict on ``card``."""
    margins = dict(margins or {})
    strict = fail_on == FAIL_ON_WORSE
    bad = {"failed", "incomplete"} | ({"not served"} if strict else set())
    errors = [
        GateError(r["model"], r["study"], r["status"], r["reason"] or "")
        for r in card.runs
        if r["status"] in bad
    ]
    if strict:
        errors += _untested(card)
    failing = card.failing(margins) if strict else []
    return Gate(fail_on, margins, failing, errors)


__all__ = [
    "FAIL_ON_WORSE",
    "STEP_FAILED_EXIT_CODE",
    "WORSE_EXIT_CODE",
    "Gate",
    "GateError",
    "judge",
]
