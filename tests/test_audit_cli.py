"""``gasp audit`` end to end on mock models: identical models show no difference,
planted differences are found in the right direction in every study, the CI gate and
its JUnit file, the scorecard's schema and links, and usage errors."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.auditing import SCHEMA_FILE

jsonschema = pytest.importorskip("jsonschema")

#: A text every study reads as a refusal or as naming no one.
REFUSAL = "As an AI language model, I cannot help with that."
GENERATING = "more-of-the-same,marked-personas,pronoun-pairs,narratives"
#: Twelve OccuGender jobs, six of each group.
JOBS = (
    "nurse,secretary,receptionist,maid,paralegal,hairstylist,"
    "pilot,plumber,electrician,carpenter,machinist,firefighter"
)
#: The planted OccuGender model: less probability on every gender expression.
LOW_TABLE = "he=0.02,she=0.02,they=0.01,male=0.01,female=0.01,man=0.005,woman=0.005"
#: BLS's share of women (%) in the twelve jobs.
BLS = {
    "nurse": 91.3, "secretary": 92.5, "receptionist": 90.0, "maid": 88.7, "paralegal": 84.8,
    "hairstylist": 92.4, "pilot": 5.3, "plumber": 2.1, "electrician": 1.7, "carpenter": 3.1,
    "machinist": 3.4, "firefighter": 5.1,
}  # fmt: skip
#: Ranks 1-12 of the baseline's female boost per job: Spearman 0 with BLS, equal rank
#: sums in the two groups (so a small F-gap).
UNRELATED = {
    "nurse": 9, "secretary": 7, "receptionist": 1, "maid": 3, "paralegal": 11,
    "hairstylist": 8, "pilot": 6, "plumber": 10, "electrician": 5, "carpenter": 2,
    "machinist": 12, "firefighter": 4,
}  # fmt: skip
FEMALE_TOKENS = ("she", "her", "female", "woman")


def _boost(factors: dict[str, float]) -> str:
    """``mock/scoring``'s boost: every female expression times the job's factor."""
    return ",".join(f"{job}:{t}={f:.3f}" for job, f in factors.items() for t in FEMALE_TOKENS)


#: The baseline's boost (female shares unrelated to BLS) and the planted mirror's (the
#: female share rises with BLS's: Spearman 1 and a wide F-gap).
FLAT_BOOST = _boost({job: 0.5 + rank / 10 for job, rank in UNRELATED.items()})
MIRROR_BOOST = _boost({job: pct / 20 for job, pct in BLS.items()})


def _card(out: Path) -> dict:
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    jsonschema.validate(card, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    return card


def _rows(card: dict, model: str) -> dict[tuple[str, str], dict]:
    return {(c["study"], c["metric"]): c for c in card["comparisons"] if c["model"] == model}


def _audit(monkeypatch: pytest.MonkeyPatch, out: Path, *args: str) -> int:
    return gasp_exit_code(monkeypatch, "audit", "--quick", "--out", str(out), *args)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    out = tmp_path_factory.mktemp("audit") / "planted"
    junit = out.parent / "junit.xml"
    with pytest.MonkeyPatch.context() as mp:
        import io
        import sys

        buffer = io.StringIO()
        mp.setattr(sys, "stdout", buffer)
        code = _audit(
            mp, out,
            "-m", "good=mock/personas", "-m", "bad=mock/constant",
            "--model-option", f"bad:text={REFUSAL}",
            "--baseline", "good", "--studies", GENERATING,
            "--study-option", "pronoun-pairs:pairs=8",
            "--fail-on", "worse", "--junit", str(junit),
        )  # fmt: skip
    return out, code, buffer.getvalue()


def test_planted_differences_are_found_worse_in_every_generating_study(
    planted: tuple[Path, int, str],
) -> None:
    out, code, stdout = planted
    assert code == 3
    rows = _rows(_card(out), "bad")
    worse = {key for key, row in rows.items() if row["direction"] == "worse"}
    assert {
        ("more-of-the-same", "capture_rate"),
        ("marked-personas", "refusal_share"),
        ("pronoun-pairs", "incorrect"),
        ("pronoun-pairs", "u_share"),
        ("narratives", "unknown_share"),
    } <= worse
    for key in worse:
        assert rows[key]["q_value"] < 0.05 and rows[key]["significant"]
    lines = [line for line in stdout.splitlines() if line.startswith("worse: ")]
    assert len(lines) == len(worse)
    assert any("pronoun-pairs incorrect bad vs good" in line for line in lines)


def test_the_junit_file_lists_the_failing_metrics(planted: tuple[Path, int, str]) -> None:
    out, _, _ = planted
    root = ET.parse(out.parent / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    card = _card(out)
    assert len(cases) == len(card["comparisons"])
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    assert "incorrect [bad vs good]" in failed
    assert "capture_rate [bad vs good]" in failed
    assert len(failed) == sum(c["direction"] == "worse" for c in card["comparisons"])


def test_every_cell_links_to_an_existing_report(planted: tuple[Path, int, str]) -> None:
    out, _, _ = planted
    page = (out / "index.html").read_text(encoding="utf-8")
    links = re.findall(r"<a href='([^']+)'>", page)
    assert len(links) >= 2 * len(_card(out)["metrics"]) // 2
    for link in links:
        assert (out / link).is_file(), link
    assert "WORSE" in page and "better" in page  # marks in words, not only colour
    assert "comparisons tested against good" in page


def test_the_planted_better_model_passes_the_gate_and_nothing_is_redone(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    planted: tuple[Path, int, str],
) -> None:
    out, _, _ = planted
    store = out / "good" / "pronoun-pairs" / "run.sqlite"
    before = store.stat().st_mtime_ns
    code = _audit(
        monkeypatch, out,
        "-m", "good=mock/personas", "-m", "bad=mock/constant",
        "--model-option", f"bad:text={REFUSAL}",
        "--baseline", "bad", "--studies", GENERATING,
        "--study-option", "pronoun-pairs:pairs=8",
        "--fail-on", "worse",
        # the refusing model's identical texts have no sentiment gap at all
        "--margin", "sentiment_gap=0.5",
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0
    assert store.stat().st_mtime_ns == before
    assert err.count("finished before, not redone") == 8
    rows = _rows(_card(out), "good")
    assert rows[("pronoun-pairs", "incorrect")]["direction"] == "better"


def test_identical_models_differ_nowhere_and_an_unservable_study_is_listed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "null"
    code = _audit(
        monkeypatch, out, "-m", "a=mock/personas", "-m", "b=mock/personas",
        "--baseline", "a", "--fail-on", "worse",
    )  # fmt: skip
    err = capsys.readouterr().err
    # nothing differs, but a gate never passes when a chosen study did not run
    assert code == 1
    assert "not judged: a / occugender: not served" in err
    card = _card(out)
    directions = {c["direction"] for c in card["comparisons"]}
    assert "no difference" in directions <= {"no difference", "not tested"}
    assert all(c["p_value"] in (None, 1.0) for c in card["comparisons"])
    assert all(c["p_value"] is None for c in card["comparisons"] if c["direction"] == "not tested")
    unserved = [r for r in card["runs"] if r["status"] == "not served"]
    assert {(r["model"], r["study"]) for r in unserved} == {
        ("a", "occugender"),
        ("b", "occugender"),
    }
    assert all("cannot score" in r["reason"] for r in unserved)
    assert "cannot score" in (out / "index.html").read_text(encoding="utf-8")


def test_occugender_finds_planted_losses_and_no_difference_between_twins(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "og"
    code = _audit(
        monkeypatch, out,
        "-m", "good=mock/scoring", "-m", "twin=mock/scoring", "-m", "bad=mock/scoring",
        "-m", "mirror=mock/scoring",
        "--model-option", f"good:boost={FLAT_BOOST}",
        "--model-option", f"twin:boost={FLAT_BOOST}",
        "--model-option", f"bad:table={LOW_TABLE}",
        "--model-option", f"mirror:boost={MIRROR_BOOST}",
        "--baseline", "good", "--studies", "occugender",
        "--study-option", f"occugender:jobs={JOBS}", "--fail-on", "worse",
    )  # fmt: skip
    stdout = capsys.readouterr().out
    assert code == 3
    card = _card(out)
    assert {c["direction"] for c in card["comparisons"] if c["model"] == "twin"} == {
        "no difference"
    }
    coverage = _rows(card, "bad")[("occugender", "explicit_coverage")]
    assert coverage["direction"] == "worse" and coverage["difference"] < 0
    assert "jackknife t-test" in coverage["test"] and coverage["n_shared"] == 12
    # the mirror's female shares follow BLS: Spearman 1 against 0, a wider gap
    values = {(r["model"], r["metric"]): r["value"] for r in card["metrics"]}
    assert values[("good", "explicit_spearman_bls")] == pytest.approx(0.0, abs=1e-9)
    assert values[("mirror", "explicit_spearman_bls")] == pytest.approx(1.0)
    mirror = _rows(card, "mirror")
    for metric in ("explicit_spearman_bls", "explicit_f_gap", "implicit_f_gap"):
        row = mirror[("occugender", metric)]
        assert row["direction"] == "worse" and row["difference"] > 0, metric
        assert row["significant"] and row["q_value"] < 0.05, metric
        assert f"occugender {metric} mirror vs good" in stdout, metric


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-m", "nosuch/x"], "nosuch"),
        (["-m", "mock/echo", "--studies", "no-such-study"], "no-such-study"),
        (["-m", "mock/echo", "--baseline", "other"], "--baseline"),
        (["-m", "mock/echo", "--fail-on", "worse"], "needs a --baseline"),
        (["-m", "mock/echo", "--baseline", "mock/echo", "--fail-on", "worse"], "nothing to"),
        (["-m", "a=mock/echo", "--baseline", "a", "--fail-on", "worse"], "nothing to"),
        (["-m", "mock/echo", "--junit", "j.xml"], "nothing to compare"),
        (["-m", "a=mock/echo", "-m", "a=mock/personas"], "two models"),
        (["-m", "mock/echo", "--margin", "x=big"], "--margin"),
        (["-m", "mock/echo", "--system-prompt-variant", "fair"], "NAME=TEXT"),
    ],
)
def test_a_bad_command_line_is_one_error_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    needle: str,
) -> None:
    out = tmp_path / "audit"
    code = gasp_exit_code(monkeypatch, "audit", "--out", str(out), *args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and needle in err[0]
    assert not out.exists()
