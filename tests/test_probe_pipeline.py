"""Tests of the Probe step from generations and audit results, the CLI and the shared data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from gasp.cli import app
from gasp.errors import DataError
from gasp.probe import GenerationColumns, probe_words, significant_words
from gasp.report import probe_page
from gasp.results import AuditResults, build_example_index
from gasp.studies.more_of_the_same._tables import MARKED_WORDS, PROBE_CLUSTERS, PROBE_SILHOUETTE
from gasp.studies.more_of_the_same.probe import add_probe_tables, words_from_results
from test_probe import NO_NAME_FILTER, PlantedVectors, planted_table


def _generations(n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for subject in ("nurse", "pilot", "chef"):
        for i in range(n):
            filler = " ".join(rng.choice(["the", "work", "day", "team", "city"], size=12))
            rows.append(
                (f"She loves yoga and meditation every week. {filler}", "W", subject, i % 2)
            )
            rows.append((f"He plays football and hockey every week. {filler}", "M", subject, i % 2))
    return pd.DataFrame(rows, columns=["text", "gender", "job", "batch"])


def test_significant_words_within_subjects() -> None:
    found = significant_words(
        _generations(),
        group_a="W",
        group_b="M",
        columns=GenerationColumns(subject_columns=("job",)),
        method="marked",
    )
    words = found.words
    assert set(words["subject"]) == {"nurse", "pilot", "chef"}
    for group, expected in (("W", {"yoga", "meditation", "she"}), ("M", {"football", "he"})):
        per_subject = words[words["group"] == group].groupby("subject")["word"].agg(set)
        assert len(per_subject) == 3
        assert all(expected <= s for s in per_subject)
    # no word is significant for both sides of one comparison
    both = words.groupby(["subject", "word"])["group"].nunique()
    assert (both == 1).all()
    assert found.excluded.empty


def test_significant_words_excludes_subjects_without_both_groups() -> None:
    data = _generations(6)
    data = data[~((data["job"] == "chef") & (data["gender"] == "M"))]
    found = significant_words(
        data, group_a="W", group_b="M", columns=GenerationColumns(subject_columns=("job",))
    )
    assert found.excluded["subject"].tolist() == ["chef"]
    assert "chef" not in set(found.words["subject"])
    with pytest.raises(DataError, match="never occurs"):
        significant_words(data, group_a="X", group_b="M")


def _audit(model: str) -> AuditResults:
    words = planted_table(models=(model,)).rename(columns={"group": "gender"})
    words["source"] = "associated"
    named = words.head(3).assign(source="named", word="zebra")
    table = pd.concat([words.drop(columns="model"), named.drop(columns="model")])
    return AuditResults(tables={MARKED_WORDS: table}, meta={"model_id": model})


def test_add_probe_tables_to_audit_results(tmp_path: Path) -> None:
    runs = [_audit("gpt"), _audit("llama")]
    table = words_from_results(runs)
    assert set(table["model"]) == {"gpt", "llama"}
    assert "zebra" not in set(table["word"])  # named rows are left out
    result = add_probe_tables(
        runs, embeddings=PlantedVectors(), k=4, group_a="F", group_b="M", config=NO_NAME_FILTER
    )
    stored = runs[0].tables[PROBE_CLUSTERS]
    assert stored is result.clusters
    assert set(stored["model"]) == {"gpt", "llama"}
    assert PROBE_SILHOUETTE in runs[0].tables
    assert runs[0].meta["probe"]["k"] == 4
    loaded = AuditResults.load(runs[0].save(tmp_path / "run.results"))
    assert loaded[PROBE_CLUSTERS]["kept_all_models"].sum() == 4  # two clusters x two models


def test_probe_page_lists_kept_clusters() -> None:
    result = probe_words(
        planted_table(),
        group_a="F",
        group_b="M",
        embeddings=PlantedVectors(),
        k=4,
        config=NO_NAME_FILTER,
    )
    samples = pd.DataFrame({"text": ["He plays football.", "She does yoga."]})
    html = probe_page(result, build_example_index(samples, ["football", "yoga"]))
    assert "pct_F" in html and "football" in html and "yoga" in html
    assert 'data-word="football"' in html  # the word opens its example generations
    assert "kitchen" not in html  # balanced clusters are not shown


@pytest.mark.slow
def test_cli_probe_writes_tables_and_page(tmp_path: Path) -> None:
    source = tmp_path / "gens.csv"
    _generations(12).to_csv(source, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "probe",
            str(source),
            "--group-a",
            "W",
            "--group-b",
            "M",
            "--subject-column",
            "job",
            "--method",
            "marked",
            "--k",
            "3",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    for name in ("probe_clusters", "probe_silhouette", "probe_words", "significant_words"):
        assert (out / f"{name}.csv").is_file()
    clusters = pd.read_csv(out / "probe_clusters.csv")
    assert {"pct_W", "pct_M", "n_subjects", "kept", "dominant_group"} <= set(clusters.columns)
    assert clusters["n_subjects"].max() == 3
    assert (out / "probe.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.slow
def test_marked_personas_probe(shared_data: Path) -> None:
    """Women vs men within each race of the Marked Personas GPT-3.5 personas, MiniLM."""
    personas = pd.read_csv(shared_data / "marked_personas_gpt35" / "personas.csv")
    found = significant_words(
        personas,
        group_a="W",
        group_b="M",
        columns=GenerationColumns(subject_columns=("race",), model_column="model"),
    )
    assert found.words["subject"].nunique() == 5
    result = probe_words(found.words, group_a="W", group_b="M", seed=0)
    assert 2 <= result.k <= 60
    assert result.silhouette["chosen"].sum() == 1
    cluster_of = result.assignments.set_index("word")["cluster"]
    rows = result.clusters.set_index("cluster")
    # the sports and clothing patterns of Marked Personas (seed 004, Section 5.1, Table 3)
    for word, share in (("sports", 100.0), ("pants", 70.0)):
        row = rows.loc[cluster_of[word]]
        assert row["dominant_group"] == "M", (word, row.to_dict())
        assert row["pct_M"] >= share
        assert row["kept_all_models"]
    kept = result.kept_clusters()
    assert (kept["n_subjects"] >= 3).all()
    assert result.coverage["unclustered_share"].iloc[0] < 0.2
    # pronouns stay (three letters or more), names and "he" go
    reasons = result.words.set_index("word")["reason"]
    assert reasons["she"] == "kept"
    assert reasons["he"] == "short"


@pytest.mark.slow
def test_cli_probe_adds_tables_to_results_folder(tmp_path: Path) -> None:
    folder = _audit("gpt").save(tmp_path / "run.results")
    result = CliRunner().invoke(app, ["probe", str(folder), "--k", "4"])
    assert result.exit_code == 0, result.output
    loaded = AuditResults.load(folder)
    assert {PROBE_CLUSTERS, PROBE_SILHOUETTE, MARKED_WORDS} <= set(loaded.tables)
    clusters = loaded[PROBE_CLUSTERS]
    assert clusters["cluster"].nunique() == 4
    assert {"pct_F", "pct_M", "n_subjects", "kept"} <= set(clusters.columns)
    assert loaded.meta["probe"]["group_a"] == "F"
