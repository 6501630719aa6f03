"""``gasp.studies.testing.check_study``: every built-in study and the example plugin keep
the study contract; a plugin that breaks one part fails with a message naming it."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gasp.results import AuditResults, HeadlineMetric, MetricReading, table
from gasp.runner import StudyPlan
from gasp.studies import StudyOption, get_study_type
from gasp.studies.testing import StudyCheckError, check_study

PLUGIN = Path(__file__).parent / "plugin_study" / "gasp_lengths.py"

#: The mock backend and the small analysis of each built-in study.
BUILT_IN: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "more-of-the-same": ("mock/personas", {"n": 2}, {"bootstrap": 0, "permutations": 0}),
    "marked-personas": ("mock/personas", {"n": 2}, {}),
    "occugender": ("mock/scoring", {}, {"bootstrap": 50}),
    "pronoun-pairs": ("mock/echo", {}, {"bootstrap": 50}),
    "narratives": ("mock/echo", {}, {"bootstrap": 50}),
}


def _plugin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gasp_lengths_check", PLUGIN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_every_built_in_study_keeps_the_contract(name: str, tmp_path: Path) -> None:
    model, options, analysis = BUILT_IN[name]
    check_study(
        get_study_type(name), model=model, options=options, analysis=analysis, work=tmp_path
    )
    assert (tmp_path / "report").is_dir() and not (tmp_path / "run" / "run.sqlite").exists()


def test_the_example_plugin_keeps_the_contract() -> None:
    check_study(_plugin().TextLengths(), model="mock/echo")


def _lengths_metric(study: str, reader: Any) -> HeadlineMetric:
    return HeadlineMetric(
        study=study,
        name="mean_words",
        meaning="mean words per description",
        unit="words",
        better="closer to 0",
        interval_scheme="none",
        denominator="descriptions",
        leaves_out="nothing",
        read=reader,
    )


def _broken(kind: str) -> Any:
    """The example plugin with one part of the contract broken."""
    base = _plugin().TextLengths

    class Broken(base):  # type: ignore[misc,valid-type]
        def build(self, source: str | Path, options: Mapping[str, Any]) -> StudyPlan:
            plan: StudyPlan = super().build(source, options)
            if kind == "no items":
                # A plan whose items are filtered away after it was made.
                object.__setattr__(plan, "items", ())
            return plan

        def analyze(
            self, store: Path, results: Path, options: Mapping[str, Any]
        ) -> Mapping[str, Any]:
            if kind == "analysis outside the store":
                json.loads(store.with_name("notes.json").read_text())  # beside the store
            summary = super().analyze(store, results, options)
            if kind == "results of another study":
                index = results / "results.json"
                data = json.loads(index.read_text(encoding="utf-8"))
                data["meta"]["study_kind"] = "other"
                index.write_text(json.dumps(data), encoding="utf-8")
            return summary

        def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
            if kind == "report reads the store":
                (results.parent / "run" / "run.sqlite").read_bytes()
            path: Path = super().report(results, out, options)
            return path

        def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
            if kind == "metric of a missing table":

                def read(results: AuditResults) -> MetricReading:
                    return MetricReading(value=float(table(results, "missing")["words"].mean()))

                return (_lengths_metric(self.name, read),)
            if kind == "metric of another study":
                return (_lengths_metric("other", lambda r: MetricReading(value=1.0)),)
            return ()

    if kind == "bad quick value":
        Broken.study_options = {"n": StudyOption("descriptions", kind="int", minimum=1)}
        Broken.quick_options = lambda self: {"n": 0}  # type: ignore[method-assign]
    if kind == "size of text":
        Broken.study_options = {"n": StudyOption("descriptions", size="descriptions")}
    return Broken()


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("bad quick value", "at declarations: study option n must be an integer"),
        ("size of text", "at declarations: size option 'n' must be an integer"),
        ("no items", "at items"),
        ("analysis outside the store", "at analysis: FileNotFoundError"),
        ("results of another study", "at results schema: results.json names study 'other'"),
        ("report reads the store", "at report: FileNotFoundError"),
        ("metric of a missing table", "at headline metric 'mean_words'"),
        ("metric of another study", "metric 'mean_words' names study 'other'"),
    ],
)
def test_a_broken_plugin_fails_naming_what_is_broken(kind: str, message: str) -> None:
    with pytest.raises(StudyCheckError, match="study check failed") as failure:
        check_study(_broken(kind), model="mock/echo")
    assert message in str(failure.value)


def test_the_resume_part_finds_an_answer_stored_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    from gasp.studies import testing

    real = testing._stored

    def doubled(store: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
        samples, scores = real(store)
        return pd.concat([samples, samples.iloc[:1]]), scores

    monkeypatch.setattr(testing, "_stored", doubled)
    with pytest.raises(StudyCheckError, match=r"at resume: item .* was stored twice"):
        check_study(_plugin().TextLengths(), model="mock/echo", work=tmp_path)
