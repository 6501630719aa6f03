"""A study's own option with a flag of its own: declared once in the study's package,
compiled for the command line, and taken by every step of ``gasp run`` and ``gasp.run``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gasp
from _cli import gasp_exit_code
from gasp.errors import GaspError
from gasp.pipeline._study_flags import FLAGS_FILE, compile_study_flags
from gasp.store import read_manifest
from gasp.studies import StudyOption, get_study_type, study_names

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_compiled_flags_are_the_studies_declarations() -> None:
    recorded = json.loads(FLAGS_FILE.read_text())
    assert recorded == compile_study_flags(), (
        f"the studies' flags changed: run `python scripts/declared.py` and commit {FLAGS_FILE.name}"
    )


def test_the_options_page_is_made_from_the_declarations() -> None:
    from gasp._api._options_page import options_page

    page = SRC.parent / "docs" / "options.md"
    assert page.read_text() == options_page(), "run `python scripts/declared.py`"
    assert "`--min-share`" in page.read_text() and "## narratives" in page.read_text()


def test_each_flag_of_gasp_run_is_a_declared_study_option_or_a_generic_setting() -> None:
    flagged = {
        name
        for study in study_names()
        for name, option in get_study_type(study).study_options.items()
        if isinstance(option, StudyOption) and option.flag
    }
    settings = {s.name: s for s in gasp.declared_settings("shape", "analysis", "probe")}
    assert flagged <= set(settings)
    assert {n for n, s in settings.items() if s.study_option} == flagged
    # no study's option is declared by the generic table as well
    generic = {s.name for s in settings.values() if not s.study_option}
    assert not generic & {n for s in study_names() for n in get_study_type(s).study_options}


def test_no_generic_module_names_more_of_the_same_s_own_options() -> None:
    own = ("min_share", "min_samples", "per_template", "srb_embeddings", "probe_embeddings",
           "k_rule", "n_init", "cap_factor", "conditions", "permutations")  # fmt: skip
    for module in ("pipeline/_settings.py", "pipeline/_run.py", "pipeline/_analysis.py",
                   "_api/_run.py", "_api/_analyze.py", "cli/_run.py",
                   "interop/_plan.py"):  # fmt: skip
        text = (SRC / "gasp" / module).read_text()
        assert not [name for name in own if f'"{name}"' in text], module


def test_flags_reach_the_analysis_and_the_probe_and_are_recorded(tmp_path: Path) -> None:
    result = gasp.run(
        "more-of-the-same", "mock/personas", out=tmp_path / "run", quick=True,
        min_share=0.2, plain=True, k_rule="paper", n_init=2, probe_embeddings="glove",
    )  # fmt: skip
    assert result.ok, result.lines
    settings = json.loads((result.results_dir / "results.json").read_text())["meta"]["settings"]
    assert settings["sampling"]["min_share"] == 0.2
    assert settings["marked_words"]["method"] == "plain"
    probe = settings["probe"]
    assert (probe["k_rule"], probe["n_init"], probe["embeddings"]) == ("paper", 2, "glove")
    options = (read_manifest(tmp_path / "run" / "run.sqlite") or {})["options"]
    assert (options["min_share"], options["plain"]) == (0.2, True)


def test_the_command_line_takes_a_study_s_flag_like_its_study_option(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    common = ["run", "more-of-the-same", "-m", "mock/personas", "--quick", "--quiet"]
    assert gasp_exit_code(monkeypatch, *common, "--out", str(tmp_path / "a"),
                          "--min-share", "0.2", "--plain") == 0  # fmt: skip
    assert gasp_exit_code(monkeypatch, *common, "--out", str(tmp_path / "b"),
                          "--study-option", "min_share=0.2", "--study-option",
                          "plain=true") == 0  # fmt: skip
    a = json.loads((tmp_path / "a/results/results.json").read_text())
    b = json.loads((tmp_path / "b/results/results.json").read_text())
    assert a["meta"]["settings"] == b["meta"]["settings"]
    assert a["meta"]["settings"]["sampling"]["min_share"] == 0.2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["narratives", "--min-share", "0.2"], "--min-share"),
        (["more-of-the-same", "--min-share", "0.7"], "--min-share must lie in [0, 0.5)"),
        (["more-of-the-same", "--k-rule", "widest"], "--k-rule must be one of"),
        (["more-of-the-same", "--probe-embeddings", "no-such-vectors"], "no-such-vectors"),
        (["occugender", "--n", "2"], "n"),
    ],
)
def test_a_bad_or_foreign_flag_is_one_line_before_any_work(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    words: str,
) -> None:
    out = tmp_path / "run"
    code = gasp_exit_code(monkeypatch, "run", *args, "-m", "mock/personas", "--quick",
                          "--out", str(out))  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err.startswith("gasp: error:") and "\n" not in err and words in err
    assert not out.exists()


def test_python_keywords_of_a_flag_are_checked_in_python_words(tmp_path: Path) -> None:
    with pytest.raises(GaspError, match=r"min_share") as caught:
        gasp.run("more-of-the-same", "mock/personas", out=tmp_path / "r", min_share="lots")
    assert "--" not in str(caught.value)
    assert not (tmp_path / "r").exists()
    with pytest.warns(DeprecationWarning, match="srb_embeddings"):
        result = gasp.run("more-of-the-same", "mock/personas", out=tmp_path / "old",
                          quick=True, skip="probe", embeddings="glove")  # fmt: skip
    assert result.ok
