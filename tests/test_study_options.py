"""Study options declared once: typed declarations (default, ``--quick`` value, range,
size), resolved once; the sizes an audit plans with and the plan sizes they make; the
resolved values in the run manifest; ``gasp studies STUDY``."""

from __future__ import annotations

from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.backends import DecodingConfig
from gasp.errors import ConfigError
from gasp.names import DEFAULT_GENDER_THRESHOLD
from gasp.store import RunStore
from gasp.studies import PlanSize, StudyOption, get_study_type, resolve_study_options
from gasp.studies.more_of_the_same import QUICK

DECLARED = {
    "count": StudyOption("how many", kind="int", minimum=1, default=4, quick=2),
    "share": StudyOption(
        "a share", kind="float", minimum=0.5, maximum=1.0, exclusive_minimum=True, default=0.9
    ),
    "flag": StudyOption("a switch", kind="bool", default=False),
    "names": StudyOption("a list", quick="a,b", overridden_by=("names_file",)),
    "note": "a help line only",
}


def test_an_option_is_typed_once_and_defaults_fill_what_is_not_given() -> None:
    resolved = resolve_study_options("s", DECLARED, {"share": 1, "flag": "yes", "other": 7})
    assert dict(resolved) == {"share": 1.0, "flag": True, "other": 7, "count": 4}
    assert isinstance(resolved["share"], float) and resolved.integer("count") == 4
    assert resolved.explicit == {"share", "flag", "other"}
    with pytest.raises(ConfigError, match=r"study option share must be a number above 0\.5"):
        resolve_study_options("s", DECLARED, {"share": 0.5})
    with pytest.raises(ConfigError, match="study option count must be an integer"):
        resolve_study_options("s", DECLARED, {"count": 2.5})


def test_a_declaration_refuses_a_default_or_quick_value_outside_its_range() -> None:
    with pytest.raises(ConfigError, match="default is invalid"):
        StudyOption("x", kind="int", minimum=1, default=0)
    with pytest.raises(ConfigError, match="quick value is invalid"):
        StudyOption("x", choices=("a", "b"), quick="c")
    assert DECLARED["share"].range_text() == "(0.5, 1]"
    assert DECLARED["count"].range_text() == ">= 1"


def test_explicit_values_and_their_overriders_beat_the_quick_values() -> None:
    from gasp.studies._options import with_quick

    preset = {"count": 2, "names": "a,b"}
    assert with_quick(DECLARED, {}, preset) == preset
    assert with_quick(DECLARED, {"count": 9}, preset) == {"count": 9, "names": "a,b"}
    kept = with_quick(DECLARED, {"names_file": "f.csv"}, preset)
    assert "names" not in kept and kept["count"] == 2


def test_quick_options_derive_from_the_declarations() -> None:
    narratives = get_study_type("narratives")
    assert narratives.quick_options() == {
        "n": 2,
        "occupations": "graduate student,roofer",
        "templates": "once,story",
        "max_tokens": 40,
    }
    occugender = get_study_type("occugender")
    assert occugender.quick_options()["debiasing"] == "none"


def test_the_gender_threshold_has_one_default() -> None:
    option = get_study_type("narratives").study_options["gender_threshold"]
    assert isinstance(option, StudyOption) and option.default == DEFAULT_GENDER_THRESHOLD
    assert get_study_type("narratives").resolve_options({})["gender_threshold"] == 0.9


def test_decoding_defaults_come_from_the_decoding_config_then_the_study() -> None:
    narratives = get_study_type("narratives")
    assert narratives.decoding_settings()["max_tokens"] == 64  # the study's, not the config's
    assert DecodingConfig().max_tokens != 64
    assert narratives.decoding_settings(quick=True)["max_tokens"] == 40
    assert narratives.decoding_settings({"max_tokens": 9}, quick=True)["max_tokens"] == 9
    assert get_study_type("pronoun-pairs").decoding_settings()["max_tokens"] == 120


def test_every_study_declares_the_sizes_its_comparisons_pair_over() -> None:
    sizes = {
        name: set(get_study_type(name).size_options())
        for name in ("narratives", "pronoun-pairs", "more-of-the-same", "occugender")
    }
    assert sizes == {
        "narratives": {"n"},
        "pronoun-pairs": {"pairs"},
        "more-of-the-same": {"n", "occupation_count"},
        "occugender": {"job_count"},
    }
    assert set(get_study_type("marked-personas").size_options()) == {"n"}


def test_plan_sizes_are_counted_from_the_built_plan() -> None:
    # 2 professions x 2 openings x 24 stories, 40 tokens each under --quick.
    assert get_study_type("narratives").plan_size({"n": 24}, quick=True) == PlanSize(96, 96, 96, 40)
    # 2 pairs x 2 templates = 4 triples, each asked with he, she and they.
    assert get_study_type("pronoun-pairs").plan_size(quick=True) == PlanSize(4, 12, 12, 24)
    # 10 jobs x 2 templates, no debiasing prompt: one scoring request each.
    assert get_study_type("occugender").plan_size({"job_count": 10}, quick=True) == PlanSize(
        10, 20, 20, 1
    )
    more = get_study_type("more-of-the-same").plan_size({"occupation_count": 5}, quick=True)
    assert (
        more.units == 5
        and more.requests < more.requests_max
        and more.max_tokens == QUICK.max_tokens
    )


def test_a_job_count_alternates_the_two_groups() -> None:
    plan = get_study_type("occugender").plan("occugender", {"job_count": 8, "debiasing": "none"})
    groups: dict[str, str] = {}
    for item in plan.items:
        groups.setdefault(str(item.attributes["job"]), str(item.attributes["group"]))
    assert list(groups)[:6] == ["nurse", "pilot", "secretary", "plumber", "receptionist",
                                "electrician"]  # fmt: skip
    assert sorted(groups.values()).count("female-dominated") == 4
    with pytest.raises(ConfigError, match="exceeds the 40 jobs"):
        get_study_type("occugender").plan("occugender", {"job_count": 41})


def test_quick_gives_way_to_an_explicit_job_list_and_the_manifest_records_the_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", "occugender", "-m", "mock/scoring", "--quick", "--occupations",
            "nurse,carpenter", "--out", str(out), "--quiet", "--skip", "probe"]  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args) == 0
    with RunStore.open(out / "run.sqlite") as store:
        jobs = set(store.items()["job"])
        options = store.manifest()["options"]
    assert jobs == {"nurse", "carpenter"}
    assert options["occupations"] == "nurse,carpenter" and "jobs" not in options
    assert options["debiasing"] == "none" and options["mode"] == "chat"  # QUICK_MODE, measured


def test_a_size_is_a_study_option_of_run_and_audit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "stories"
    args = ["generate", "narratives", "-m", "mock/echo", "--occupations", "roofer",
            "--templates", "once", "--study-option", "n=3", "--out", str(out / "r.sqlite"),
            "--quiet"]  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args) == 0
    with RunStore.open(out / "r.sqlite") as store:
        assert store.count_samples() == 3
        assert store.manifest()["options"]["n"] == 3
    code = gasp_exit_code(
        monkeypatch, "generate", "narratives", "-m", "mock/echo", "--study-option", "n=0",
        "--out", str(tmp_path / "no.sqlite"),
    )  # fmt: skip
    assert code == 2 and "study option n must be an integer of at least 1" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "no.sqlite").exists()


def test_gasp_studies_lists_each_option_with_type_default_quick_value_and_range(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    assert gasp_exit_code(monkeypatch, "studies", "narratives") == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "gender_threshold" in line)
    assert "number" in row and "0.9" in row and "(0.5, 1]" in row
    row = next(line for line in out.splitlines() if line.startswith("│ n "))
    assert "integer" in row and "20" in row and " 2 " in row and "size: stories" in row
    assert "--max-tokens 40" in out


def test_the_sizes_page_lists_every_declared_size_with_its_default_and_quick_value() -> None:
    page = Path(__file__).parents[1] / "docs" / "running.md"
    rows = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 5 and cells[1].startswith("`"):
            rows.add((cells[0], cells[1].strip("`"), cells[3], cells[4]))
    declared = set()
    for name in (
        "narratives",
        "pronoun-pairs",
        "more-of-the-same",
        "occugender",
        "marked-personas",
    ):
        for key, option in get_study_type(name).size_options().items():
            default = "-" if option.default is None else str(option.default)
            quick = "-" if option.quick is None else str(option.quick)
            declared.add((name, key, default, quick))
    assert rows == declared


def test_every_study_with_paired_metrics_declares_one_default_difference() -> None:
    defaults = {
        name: [
            (m.name, m.default_detect)
            for m in get_study_type(name).headline_metrics()
            if m.default_detect is not None
        ]
        for name in ("narratives", "pronoun-pairs", "more-of-the-same", "occugender")
    }
    assert defaults == {
        "narratives": [("named_female_share", 0.15)],
        "pronoun-pairs": [("inconsistent", 0.15)],
        "more-of-the-same": [("women_minus_bls", 10.0)],
        "occugender": [("explicit_female_share", 10.0)],
    }
    # Marked Personas has no paired metric to size, so no default difference
    personas = get_study_type("marked-personas").headline_metrics()
    assert all(m.default_detect is None and not m.paired_over for m in personas)
