"""Every option each study declares goes through every step of a run: generate, analyze,
probe and report, from ``gasp.run`` on a mock backend, none refused after generation.

Each study runs once (or twice, where its file options replace others) with every one of
its options set to a value that is not its default; each (study, option) is then its own
test: the run finished every step and the store's manifest records the value given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gasp
from gasp.store import read_manifest
from gasp.studies import get_study_type, study_names

MOCK = {"occugender": "mock/scoring"}


def _files(folder: Path) -> dict[str, str]:
    """Small input files of each kind a study option may name."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "jobs.csv": "job,group,bls_pct_female,bls_year\n"
        "midwife,female-dominated,97.0,2023\nwelder,male-dominated,5.5,2023\n",
        "templates.toml": '[[templates]]\nid = "imp-2"\ntask = "implicit"\n'
        'question = "Q: Describe a day with a [JOB]."\n'
        'answer = "A: I spent the day with a [JOB]."\n',
        "expressions.yaml": "explicit: {male: [Male], female: [Female], diverse: [Nonbinary]}\n"
        "implicit: {male: [He], female: [She], diverse: [They, Xe]}\n",
        "names.csv": "Name,Gender,Count\nMary,F,5000\nJohn,M,5000\nSarah,F,4000\nDavid,M,4000\n",
        "occupations.csv": "occupation\nnurse\nroofer\npilot\nbaker\n",
        "age.toml": 'study = "marked-personas"\nn = 3\n[[axes]]\nname = "age"\nunmarked = "young"\n'
        'values = [{ value = "young", phrase = "a young person" }, '
        '{ value = "old", phrase = "an old person" }]\n',
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {name: str(folder / name) for name in files}


#: Per study, the runs that together set every declared option (a value other than the
#: default); a file option goes in a run of its own where it replaces other options.
def _runs(files: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    return {
        "more-of-the-same": [
            {"occupations": "nurse,engineer", "occupation_count": 1, "n": 3, "cap_factor": 2,
             "templates": "persona", "conditions": "unspecified,woman,man", "prompt_form": "chat",
             "min_samples": 2, "min_share": 0.2, "per_template": True, "plain": True,
             "srb_embeddings": "minilm", "permutations": 10, "probe_embeddings": "glove",
             "k_rule": "paper", "n_init": 2},
            {"occupations_file": files["occupations.csv"], "n": 2},
        ],
        "marked-personas": [
            {"n": 2, "texts": "personas", "prompts": "describe", "race": "a White,a Black",
             "gender": "M,W", "they_verb": "are", "anonymizer": "clean", "svm_seed": 7,
             "min_df": 0.01, "refusal_patterns": "as an ai", "exclude_refusals": True,
             "lexicon_counting": "authors", "resilience_counting": "substrings",
             "prompt_form": "chat"},
            {"n": 2, "texts": "personas", "study_file": files["age.toml"]},
        ],
        "occugender": [
            {"mode": "chat", "jobs": "nurse,pilot", "job_count": 2, "article": "a",
             "case_variants": False, "expressions": "single-token", "max_candidate_chars": 12,
             "debiasing": "none,5"},
            {"occupations": "nurse", "templates": "implicit-1", "n": 1, "debiasing": "none"},
            {"jobs_file": files["jobs.csv"], "templates_file": files["templates.toml"],
             "expressions_file": files["expressions.yaml"], "debiasing": "none"},
            {"occupations_file": files["jobs.csv"], "debiasing": "none"},
        ],
        "pronoun-pairs": [
            {"pairs": 2, "pair_seed": 1, "n": 1, "templates": "late", "occupations": "nurse,pilot",
             "prompt_form": "chat"},
            {"pairs": 2, "occupations_file": files["occupations.csv"]},
        ],
        "narratives": [
            {"n": 2, "occupations": "roofer", "templates": "once", "names_file": files["names.csv"],
             "gender_threshold": 0.8, "name_min_count": 50, "top_names": 3, "prompt_form": "chat"},
            {"n": 1, "occupations_file": files["occupations.csv"]},
        ],
    }  # fmt: skip


def _cases() -> list[tuple[str, str]]:
    return [(s, o) for s in study_names() for o in get_study_type(s).study_options]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each study's runs: option -> (the result, the manifest's recorded options, value)."""
    root = tmp_path_factory.mktemp("every-option")
    files = _files(root / "files")
    found: dict[str, dict[str, Any]] = {}
    for study, runs in _runs(files).items():
        for index, options in enumerate(runs):
            out = root / f"{study}-{index}"
            model = MOCK.get(study, "mock/personas")
            result = gasp.run(study, model, out=out, quick=True, study_options=options)
            recorded = (read_manifest(out / "run.sqlite") or {}).get("options", {})
            for name, value in options.items():
                found.setdefault(study, {})[name] = (result, recorded, value)
    return found


def test_the_runs_set_every_declared_option() -> None:
    files = {name: name for name in ("jobs.csv", "templates.toml", "expressions.yaml",
                                      "names.csv", "age.toml", "occupations.csv")}  # fmt: skip
    given = {(s, o) for s, runs in _runs(files).items() for run in runs for o in run}
    assert set(_cases()) <= given, sorted(set(_cases()) - given)


@pytest.mark.parametrize(("study", "option"), _cases(), ids=lambda v: str(v))
def test_every_step_takes_the_option(
    finished: dict[str, dict[str, Any]], study: str, option: str
) -> None:
    result, recorded, value = finished[study][option]
    assert result.ok, result.lines
    assert result.report is not None and result.report.is_file()
    assert (result.results_dir / "results.json").is_file()
    if option in recorded:  # the manifest records what shaped the study
        assert str(recorded[option]).lower() == str(value).lower() or recorded[option] == value
