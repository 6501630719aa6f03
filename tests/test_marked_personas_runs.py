"""Marked Personas end to end on scripted models: a null model (texts that do not depend
on the group) finds nothing, a planted model is found by every method; the report
renders every table and figure from the saved results."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from gasp.backends import DecodingConfig, GenerationRequest, MockBackend
from gasp.errors import DataError
from gasp.results import AuditResults
from gasp.runner import RunOptions, generate
from gasp.studies.marked_personas import STUDY_TYPE, build_study

NEUTRAL = [
    *("calm", "kind", "reads", "walks", "table", "window", "garden", "morning", "coffee"),
    *("music", "city", "river", "book", "quiet", "street", "friend", "bread", "light"),
    *("chair", "paper", "green", "small", "tree", "cloud", "road", "song", "letter"),
]
PLANTED = {"race:a Black": "zephyr", "gender:W": "quasar", "group:a Black|W": "nimbus"}


def _body(key: str, independent: bool) -> str:
    template, _race, _gender, index = json.loads(key)
    material = key if independent else f"{template}|{index}"
    seed = int.from_bytes(hashlib.blake2b(material.encode(), digest_size=4).digest(), "big")
    rng = np.random.default_rng(seed)
    return " ".join(rng.choice(NEUTRAL, size=30)) + "."


def null_responder(request: GenerationRequest) -> str:
    return _body(request.key, independent=False)


def random_responder(request: GenerationRequest) -> str:
    return _body(request.key, independent=True)


def planted_responder(request: GenerationRequest) -> str:
    template, race, gender, _ = json.loads(request.key)
    words = [_body(request.key, independent=False)]
    if race == "a Black":
        words.append(f"{PLANTED['race:a Black']} athletic {PLANTED['race:a Black']}.")
    if gender == "W":
        words.append(f"{PLANTED['gender:W']} wonderful happy.")
    if race == "a Black" and gender == "W":
        words.append(f"{PLANTED['group:a Black|W']} resilient.")
    if template == "describe":
        words.append("As an AI language model I cannot.")
    return " ".join(words)


def _run(tmp_path: Path, responder: object, name: str, n: int = 6) -> AuditResults:
    study = build_study("marked-personas", {"prompts": "describe,imagine-describe", "n": n})
    store = tmp_path / f"{name}.sqlite"
    options = RunOptions(decoding=DecodingConfig(max_tokens=200), seed=1, progress=False)
    summary = generate(study, MockBackend(responder, model_id=f"mock/{name}"), store, options)
    assert summary.complete and summary.failed == 0
    results = tmp_path / f"{name}.results"
    STUDY_TYPE.analyze(store, results, {})
    return AuditResults.load(results)


@pytest.fixture(scope="module")
def null(tmp_path_factory: pytest.TempPathFactory) -> AuditResults:
    return _run(tmp_path_factory.mktemp("null"), null_responder, "null")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> AuditResults:
    return _run(tmp_path_factory.mktemp("planted"), planted_responder, "planted")


def test_null_model_gives_no_marked_words_and_chance_svms(null: AuditResults) -> None:
    assert null.meta["study_kind"] == "marked-personas"
    assert null["persona_marked_words"].empty
    acc = null["persona_svm_accuracy"]
    assert len(acc) == 23
    assert acc["balanced_accuracy"].mean() == pytest.approx(0.5, abs=0.1)
    assert (acc["accuracy"] <= acc["baseline"] + 1e-9).all()
    assert null["refusals"]["refusals"].sum() == 0


def test_independent_null_texts_give_chance_svms(tmp_path: Path) -> None:
    results = _run(tmp_path, random_responder, "random", n=4)
    acc = results["persona_svm_accuracy"]
    assert acc["balanced_accuracy"].mean() == pytest.approx(0.5, abs=0.1)


def test_planted_words_are_found_by_every_method(planted: AuditResults) -> None:
    marked = planted["persona_marked_words"]

    def words(table: str, group: str) -> set[str]:
        t = planted[table]
        return set(t[t["group"] == group]["word"])

    assert "zephyr" in words("persona_marked_words", "Black")
    assert "quasar" in words("persona_marked_words", "woman")
    assert "nimbus" in words("persona_marked_words", "Black woman")
    assert not set(marked["word"]) & set(NEUTRAL)
    assert "zephyr" in words("persona_svm_top_words", "Black")
    assert "quasar" in words("persona_svm_top_words", "woman")
    assert "nimbus" in words("persona_svm_top_words", "Black woman")
    jsd = planted["persona_jsd_top_words"]
    assert jsd[jsd["group"] == "Black"]["word"].iloc[0] == "zephyr"
    assert "quasar" in set(jsd[jsd["group"] == "woman"]["word"])
    rates = planted["persona_lexicon_rates"].set_index(["counting", "lexicon", "group"])["mean_pct"]
    assert rates[("authors", "Black", "Black")] > rates[("authors", "Black", "White")]
    res = planted["persona_resilience"].set_index("group")["occurrences"]
    assert res["Black woman"] > 0 and res.drop("Black woman").eq(0).all()
    sentiment = planted["persona_sentiment"].set_index("group")["mean"]
    assert sentiment["gender: W"] > sentiment["gender: M"]
    refusals = planted["refusals"].set_index("template")["share"]
    assert refusals["describe"] == 1.0 and refusals["imagine-describe"] == 0.0
    assert {"zephyr", "quasar", "nimbus"} <= set(planted.examples["words"])


def test_refusals_can_be_excluded(tmp_path: Path) -> None:
    study = build_study("marked-personas", {"prompts": "describe,imagine-describe", "n": 3})
    store = tmp_path / "r.sqlite"
    generate(study, MockBackend(planted_responder), store, RunOptions(seed=1, progress=False))
    STUDY_TYPE.analyze(store, tmp_path / "r.results", {"exclude_refusals": True})
    results = AuditResults.load(tmp_path / "r.results")
    assert results.meta["summary"]["persona"]["texts"] == 45
    assert results["refusals"]["refusals"].sum() == 45


def test_report_writes_every_table_and_figure(planted: AuditResults, tmp_path: Path) -> None:
    planted.save(tmp_path / "results")
    page = STUDY_TYPE.report(tmp_path / "results", tmp_path / "report", {})
    html = page.read_text(encoding="utf-8")
    figures = {p.name for p in (tmp_path / "report" / "figures").iterdir()}
    for name in ("figure1", "figure2", "figure3", "figurea1", "svm_figure"):
        assert {f"persona_{name}.png", f"persona_{name}.svg"} <= figures, name
    tables = {p.stem for p in (tmp_path / "report" / "tables").iterdir()}
    assert {
        "refusals",
        "persona_word_table",
        "persona_svm_accuracy",
        "persona_jsd_top_words",
        "persona_sentiment",
        "persona_resilience",
        "persona_lexicon_rates",
    } <= tables
    assert html.index("Refusals per prompt") < html.index("Top words per group")
    assert 'data-word="zephyr"' in html


def test_two_runs_compare_words_significant_in_both(planted: AuditResults, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gasp.cli import app

    planted.save(tmp_path / "a.results")
    other = _run(tmp_path, planted_responder, "again", n=4)
    other.save(tmp_path / "b.results")
    result = CliRunner().invoke(
        app,
        [
            "compare",
            str(tmp_path / "a.results"),
            str(tmp_path / "b.results"),
            "--out",
            str(tmp_path / "cmp"),
            "--label",
            "first",
            "--label",
            "second",
        ],
    )
    assert result.exit_code == 0, result.output
    comparison = AuditResults.load(tmp_path / "cmp")
    words = comparison["persona_word_comparison"].set_index("group")
    assert "zephyr" in words.loc["Black", "significant_in_all"]
    assert {"only_first", "only_second"} <= set(words.columns)
    page = (tmp_path / "cmp" / "report" / "report.html").read_text(encoding="utf-8")
    assert "significant in every run" in page and 'data-word="zephyr"' in page
    assert "persona_svm_accuracy_comparison" in comparison.tables


def test_gasp_analyze_and_report_a_users_table(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gasp.cli import app
    from gasp.store import RunStore

    study = build_study("marked-personas", {"prompts": "describe,imagine-describe", "n": 3})
    store = tmp_path / "t.sqlite"
    generate(study, MockBackend(planted_responder), store, RunOptions(seed=1, progress=False))
    with RunStore.open(store) as run:
        samples = run.samples()
    table = tmp_path / "mine.csv"
    samples[["text", "race", "gender", "prompt"]].to_csv(table, index=False)
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", str(table), "--study", "marked-personas"])
    assert result.exit_code == 0, result.output
    assert "refusals persona/describe: 45/45" in result.output
    results = AuditResults.load(tmp_path / "mine.csv.results")
    assert results.meta["study_kind"] == "marked-personas"
    assert set(results["refusals"]["template"]) == {"describe", "imagine-describe"}
    result = runner.invoke(app, ["report", str(tmp_path / "mine.csv.results")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mine.csv.report" / "report.html").is_file()
    samples[["text", "prompt"]].to_csv(tmp_path / "bad.csv", index=False)
    result = runner.invoke(
        app, ["analyze", str(tmp_path / "bad.csv"), "--study", "marked-personas"]
    )
    # A user error (the `gasp` script prints it as one line and exits with status 2).
    assert isinstance(result.exception, DataError) and "'race'" in str(result.exception)
