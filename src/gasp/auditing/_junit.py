"""The scorecard as a JUnit XML file: one test case per metric and model, so CI
services (GitHub Actions, GitLab, Jenkins) list the audit beside the other tests.

A case fails when its comparison against the baseline is significantly worse (beyond
its margin, where one is given); it is skipped when it could not be tested. With a
gate (``--fail-on worse``), each chosen study of a model that was not served, failed,
did not finish or could not be compared is a case with an error, never a skipped one.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.auditing._scorecard import Scorecard


def write_junit(
    card: Scorecard,
    path: Path,
    margins: Mapping[str, float] | None = None,
    errors: Sequence[Any] = (),
) -> Path:
    """Write the JUnit file of ``card`` to ``path``; return it. ``errors`` are the
    gate's :class:`~gasp.auditing.GateError` rows, each written as a case in error."""
    failing = {id(row) for row in card.failing(margins)}
    suites = ET.Element("testsuites", name="gasp audit")
    by_study: dict[str, ET.Element] = {}
    counts: dict[str, list[int]] = {}

    def add_case(study: str, name: str) -> ET.Element:
        """A test case in ``study``'s suite (made on its first case), counted."""
        if study not in by_study:
            by_study[study] = ET.SubElement(suites, "testsuite", name=f"gasp audit {study}")
            counts[study] = [0, 0, 0]
        counts[study][0] += 1
        return ET.SubElement(
            by_study[study], "testcase", classname=f"gasp.audit.{study}", name=name
        )

    for row in card.comparison_rows:
        study = row["study"]
        case = add_case(study, f"{row['metric']} [{row['model']} vs {row['baseline']}]")
        detail = (
            f"{row['quantity']}: difference {row['difference']} "
            f"[{row['ci_low']}, {row['ci_high']}], {row['test']}, p = {row['p_value']}, "
            f"q = {row['q_value']}, {row['direction']}"
        )
        if id(row) in failing:
            counts[study][1] += 1
            failure = ET.SubElement(
                case, "failure", message=f"{row['metric']} significantly worse", type="worse"
            )
            failure.text = detail
        elif row["p_value"] is None:
            counts[study][2] += 1
            ET.SubElement(case, "skipped", message=f"not tested: {row['test']}")
        else:
            ET.SubElement(case, "system-out").text = detail
    n_errors: dict[str, int] = {}
    for error in errors:
        study = error.study
        case = add_case(study, f"{study} [{error.model}]: {error.status}")
        n_errors[study] = n_errors.get(study, 0) + 1
        ET.SubElement(case, "error", message=error.line(), type=error.status.replace(" ", "-"))
    for study, suite in by_study.items():
        tests, failures, skipped = counts[study]
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("skipped", str(skipped))
        suite.set("errors", str(n_errors.get(study, 0)))
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
    return path


__all__ = ["write_junit"]
