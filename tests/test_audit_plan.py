"""The audit's plan: power of each test kind checked against hand-computed values, a
plan printed without writing anything, sizes chosen by --detect, a plan too dear
refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom, nct, norm
from scipy.stats import t as student_t

from _cli import gasp_exit_code
from gasp.auditing import Effect, detectable, power, units_needed
from gasp.auditing._power import MCNEMAR, PAIRED_SHARE, PAIRED_UNITS
from gasp.testing import FakeOpenAIServer

ALPHA = 0.05 / 11


def _exact_mcnemar_power(n: int, p0: float, p1: float, alpha: float) -> float:
    """Sum over the number of discordant units of the chance the exact test rejects."""
    b_rate, c_rate = p1 * (1 - p0), p0 * (1 - p1)
    share_b = b_rate / (b_rate + c_rate)
    total = 0.0
    for d in range(1, n + 1):
        b = np.arange(d + 1)
        p = np.minimum(1.0, 2 * binom.cdf(np.minimum(b, d - b), d, 0.5))
        total += binom.pmf(d, n, b_rate + c_rate) * binom.pmf(b, d, share_b)[p <= alpha].sum()
    return total


def test_the_mcnemar_power_matches_the_exact_sum() -> None:
    effect = Effect(MCNEMAR, p0=0.2, lower_is_better=True)
    for n in (40, 80):
        assert power(effect, 0.3, n, ALPHA) == pytest.approx(
            _exact_mcnemar_power(n, 0.2, 0.5, ALPHA), abs=0.025
        )
    # no difference: the test rejects at most at its level
    assert power(effect, 1e-9, 200, ALPHA) <= ALPHA + 0.005


def test_the_paired_share_size_matches_the_normal_formula() -> None:
    effect = Effect(PAIRED_SHARE, p0=0.5, reference=0.5)
    p1 = effect.shifted(0.15)
    assert p1 in (0.35, 0.65)
    d = 0.15 / math.sqrt(0.25 + p1 * (1 - p1))
    normal = ((norm.ppf(1 - ALPHA / 2) + norm.ppf(0.8)) / d) ** 2
    needed = units_needed(effect, 0.15, ALPHA)
    assert needed is not None and normal <= needed <= normal * 1.03
    assert power(effect, 0.15, needed, ALPHA) >= 0.8 > power(effect, 0.15, needed - 1, ALPHA)
    assert detectable(effect, needed, ALPHA) == pytest.approx(0.15, abs=0.002)


def test_the_paired_units_power_is_the_noncentral_t() -> None:
    effect = Effect(PAIRED_UNITS, sd=0.1)
    for n in (6, 20):
        crit = student_t.ppf(1 - ALPHA / 2, n - 1)
        shift = 0.5 * math.sqrt(n)  # a difference of 0.05 over a per-unit sd of 0.1
        hand = nct.sf(crit, n - 1, shift) + nct.cdf(-crit, n - 1, shift)
        assert power(effect, 0.05, n, ALPHA) == pytest.approx(hand, abs=1e-6)


def test_the_plan_prints_cost_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-plan-only")
    out = tmp_path / "audit"
    with FakeOpenAIServer(api_key="sk-plan-only") as server:  # the key is checked there
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = gasp_exit_code(
            monkeypatch, "audit", "-m", "old=openai/gpt-4o-mini", "-m", "new=openai/gpt-4.1-mini",
            "--baseline", "old", "--studies", "narratives,pronoun-pairs", "--plan",
            "--out", str(out),
        )  # fmt: skip
        assert server.requests == 0
    stdout = capsys.readouterr().out
    assert code == 0 and not out.exists()
    assert "old/narratives: " in stdout and " requests, <= " in stdout and "USD" in stdout
    assert "1 requests/s of a server (stated)" in stdout
    assert "narratives named_female_share: " in stdout and "detectable difference" in stdout


#: Narratives on two personas models, the second writing few women.
_SKEWED_NARRATIVES = (
    "audit", "--quick", "-m", "a=mock/personas", "-m", "b=mock/personas",
    "--model-option", "b:female_share=0.05", "--baseline", "a", "--studies", "narratives",
)  # fmt: skip


def test_detect_sizes_the_study_and_a_plan_too_dear_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    args = (
        *_SKEWED_NARRATIVES, "--detect", "narratives:named_female_share=0.4",
        "--out", str(out),
    )  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args, "--max-requests", "10") == 2
    err = capsys.readouterr().err
    assert "more than --request-budget 10" in err and not out.exists()
    assert gasp_exit_code(monkeypatch, *args, "--detect", "narratives:nope=0.1") == 2
    assert "--detect" in capsys.readouterr().err
    assert gasp_exit_code(monkeypatch, *args) == 0
    shown = capsys.readouterr()
    stdout = shown.err  # the plan before an audit is progress: it goes to standard error
    assert "(asked: 0.4)" in stdout
    line = next(s for s in stdout.splitlines() if "narratives named_female_share" in s)
    stories = int(line.split(": ")[1].split(" ")[0])
    runs = json.loads((out / "audit.json").read_text(encoding="utf-8"))["runs"]
    n = runs["b/narratives"]["study_options"]["n"]
    assert stories == 4 * n  # two occupations by two openings at --quick
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    share = next(c for c in card["comparisons"] if c["metric"] == "named_female_share")
    assert 0 < share["n_shared"] <= stories  # the named stories among them
    # the same command again resumes with the sizes its first plan chose (not refused)
    assert gasp_exit_code(monkeypatch, *args) == 0
    again = capsys.readouterr()
    assert "sizes: those this folder's first plan chose for --detect" in again.err, again.out
    record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert record["runs"]["b/narratives"]["study_options"]["n"] == n
    assert record["detect"]["targets"] == ["narratives:named_female_share=0.4"]


def test_detect_sizes_the_studies_it_does_not_name_at_their_default_difference(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = (
        "audit", "-m", "a=mock/scoring", "-m", "b=mock/scoring", "--baseline", "a",
        "--studies", "narratives,pronoun-pairs,occugender",
        "--detect", "narratives:named_female_share=0.3", "--plan",
    )  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args, "--out", str(tmp_path / "x")) == 0
    lines = capsys.readouterr().out.splitlines()

    def row(name: str) -> str:
        return next(s for s in lines if s.startswith(f"  {name}: "))

    assert "(asked: 0.3)" in row("narratives named_female_share")
    default = row("pronoun-pairs inconsistent")
    assert "(the study's default difference: 0.15)" in default and "asked" not in default
    # occugender's size (job_count, at least 2 jobs) chosen for a 10-point female share
    jobs = row("occugender explicit_female_share")
    assert "(the study's default difference: 10)" in jobs and "asked" not in jobs
    assert 2 <= int(jobs.split(": ")[1].split(" ")[0]) < 40
    assert "per-unit sd of differences 10 percent (the metric's)" in jobs
    pairs = int(row("pronoun-pairs incorrect").split(": ")[1].split(" ")[0])
    assert pairs < 21000  # not the study's default 1,000 pairs
    # a size the user set is kept: the study is not resized to its default difference
    sized = (*args, "--study-option", "pronoun-pairs:pairs=3", "--out", str(tmp_path / "y"))
    assert gasp_exit_code(monkeypatch, *sized) == 0
    lines = capsys.readouterr().out.splitlines()
    assert row("pronoun-pairs incorrect").startswith("  pronoun-pairs incorrect: 63 answers")
    assert "default difference" not in row("pronoun-pairs inconsistent")
    # without --detect, every study keeps its default size
    assert gasp_exit_code(monkeypatch, *args[:-3], "--plan", "--out", str(tmp_path / "z")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert row("pronoun-pairs incorrect").startswith("  pronoun-pairs incorrect: 21000 answers")


def test_a_local_engine_is_timed_on_requests_spread_over_the_plan(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gasp import backends
    from gasp.auditing import AuditConfig, prepare_audit
    from gasp.auditing._timing import seconds_per_request

    audit = prepare_audit(
        ["a=mock/personas"], ["pronoun-pairs"], None, tmp_path / "audit", 0.05,
        AuditConfig(study_options=["pairs=5"]),
    )  # fmt: skip
    sent: list[list[str]] = []
    real = backends.resolve_backend

    def recording(spec: str, options: object = None) -> object:
        backend = real(spec, options=options)
        generate = backend.generate_batch

        async def record(requests: list) -> list:
            sent.append([r.messages[-1].content for r in requests])
            return await generate(requests)

        backend.generate_batch = record  # type: ignore[method-assign]
        return backend

    monkeypatch.setattr(backends, "resolve_backend", recording)
    seconds, how = seconds_per_request(audit.specs[0], 1.0)
    assert seconds >= 0 and "timed on mock/personas" in how
    plan_items = [item.prompt for item in audit.specs[0].build().items]
    timed = [i for batch in sent for i in batch]
    assert len(sent) == 2 and len(sent[0]) == 1  # one request that loads, then one batch
    # the batch reaches the plan's last items, not only its first ones
    assert timed[0] == plan_items[0] and timed[-1] == plan_items[-1]
    assert len(set(timed)) == len(timed) > 16


@pytest.mark.parametrize(
    ("studies", "extra", "message"),
    [
        ("marked-personas", ["--detect", "marked-personas:refusal_share=0.1"], "not paired"),
        ("narratives", ["--detect", "narratives:named_female_share=1.5"], "must be below 1"),
        (
            "narratives",
            ["--study-option", "narratives:n=2", "--detect", "narratives:named_female_share=0.1"],
            "size is set by --study-option n=2",
        ),
        (
            "narratives",
            ["--detect", "narratives:named_female_share=0.1"] * 2,
            "given twice",
        ),
        (
            "occugender",
            ["--detect", "occugender:explicit_female_share=5"],
            "--detect needs sizes the studies cannot take (occugender job_count=",
        ),
    ],
)
def test_a_detect_target_that_cannot_be_planned_is_refused_before_anything_is_written(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    studies: str,
    extra: list[str],
    message: str,
) -> None:
    out = tmp_path / "audit"
    code = gasp_exit_code(
        monkeypatch, "audit", "-m", "a=mock/personas", "-m", "b=mock/personas",
        "--baseline", "a", "--studies", studies, *extra, "--out", str(out),
    )  # fmt: skip
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("gasp: error:")]
    assert code == 2 and len(errors) == 1 and message in errors[0], err
    assert not out.exists()


def test_max_cost_counts_local_engines_as_free_and_refuses_an_unpriced_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("audit", "--quick", "--studies", "pronoun-pairs", "--baseline", "a", "--plan")
    local = ("-m", "a=mock/personas", "-m", "b=mock/echo", "--max-cost", "0.01")
    code = gasp_exit_code(monkeypatch, *args, *local, "--out", str(tmp_path / "x"))
    out = capsys.readouterr().out
    assert code == 0, out
    total = next(line for line in out.splitlines() if line.startswith("total: "))
    assert "<= 0.00 USD" in total
    server = ("-m", "a=mock/personas", "-m", "b=openai-compatible/x", "--max-cost", "5")
    with FakeOpenAIServer(models=["x"]) as fake:
        code = gasp_exit_code(
            monkeypatch, *args, *server, "--base-url", fake.base_url, "--out", str(tmp_path / "y")
        )
    err = [line for line in capsys.readouterr().err.splitlines() if "gasp: error:" in line]
    assert code == 2 and len(err) == 1 and "price of openai-compatible/x is unknown" in err[0]
    assert not (tmp_path / "y").exists()


def test_the_srb_rows_name_their_units_and_what_the_plan_counts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from gasp.studies import get_study_type

    code = gasp_exit_code(
        monkeypatch, "audit", "-m", "a=mock/personas", "-m", "b=mock/personas", "--baseline",
        "a", "--studies", "more-of-the-same", "--plan", "--out", str(tmp_path / "x"),
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "(occupation, gender) cells" not in out
    occupations = get_study_type("more-of-the-same").plan_size({}).units
    for metric in ("mean_abs_srb", "mean_abs_srb_names_removed"):
        row = next(s for s in out.splitlines() if s.startswith(f"  more-of-the-same {metric}: "))
        assert row.split(": ", 1)[1].startswith(
            f"{occupations} occupations (up to 2 (occupation, associated gender) SRB scores "
            "each; planned on 1)"
        ), row


def test_a_resumed_folder_refuses_sizes_planned_for_other_inputs_and_names_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    args = (*_SKEWED_NARRATIVES, "--out", str(out))
    target = ("--detect", "narratives:named_female_share=0.4")
    assert gasp_exit_code(monkeypatch, *args, *target) == 0
    capsys.readouterr()
    record = (out / "audit.json").read_text(encoding="utf-8")
    planned = json.loads(record)["detect"]
    assert (planned["level"], planned["comparisons"]) == (0.05, 2)
    refused = [
        (("--detect", "narratives:named_female_share=0.3"),
         "--detect narratives:named_female_share=0.4 -> narratives:named_female_share=0.3"),
        ((*target, "--level", "0.01"), "--level 0.05 -> 0.01"),
        ((), "--detect narratives:named_female_share=0.4 -> (none)"),
        ((*target, "-m", "c=mock/echo"), "comparisons 2 -> 4 (other models or studies)"),
    ]  # fmt: skip
    for extra, named in refused:
        code = gasp_exit_code(monkeypatch, *args, *extra)
        err = [line for line in capsys.readouterr().err.splitlines() if "gasp: error:" in line]
        assert code == 2 and len(err) == 1, (extra, err)
        assert f"sizes planned for other inputs: {named})" in err[0], err[0]
        assert "study_options" not in err[0] and "--redo narratives" in err[0]
        assert (out / "audit.json").read_text(encoding="utf-8") == record
    # --redo plans again at the new level: a stricter level needs more stories
    assert gasp_exit_code(monkeypatch, *args, *target, "--level", "0.01", "--redo", "all") == 0
    capsys.readouterr()
    again = json.loads((out / "audit.json").read_text(encoding="utf-8"))["detect"]
    assert again["level"] == 0.01
    assert again["sizes"]["narratives"]["n"] > planned["sizes"]["narratives"]["n"]
    # a folder of runs at their default sizes: --detect names what changed, nothing else
    plain = [str(tmp_path / "plain") if a == str(out) else a for a in args]
    assert gasp_exit_code(monkeypatch, *plain) == 0
    capsys.readouterr()
    assert gasp_exit_code(monkeypatch, *plain, *target) == 2
    err = capsys.readouterr().err
    assert "(sizes planned for other inputs: --detect (none) -> narratives:" in err
    assert "needs sizes the studies cannot take" not in err


def test_a_study_the_backend_cannot_serve_is_not_planned_nor_counted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # mock/personas cannot score continuations, which OccuGender needs; mock/scoring can
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "-m", "a=mock/scoring", "-m", "b=mock/personas",
        "--baseline", "a", "--studies", "pronoun-pairs,occugender", "--plan",
        "--out", str(tmp_path / "x"),
    )  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    jobs = [s for s in lines if s.startswith("  occugender ")]
    assert jobs and all("not served (not planned)" in s and "not served by b" in s for s in jobs)
    assert not any("not timed" in s for s in lines)
    counted = {
        s.split(":")[0].strip(): int(s.split(": ")[1].split(" ")[0])
        for s in lines
        if s.startswith("  ") and " requests, <= " in s
    }
    assert set(counted) == {"a/pronoun-pairs", "b/pronoun-pairs", "a/occugender"}
    assert any(s.startswith("  b/occugender: not served, not counted (") for s in lines)
    total = next(s for s in lines if s.startswith("total: "))
    assert total.startswith(f"total: {sum(counted.values())} requests")
    # the audit then lists the run as not served, and the gate fails
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "-m", "a=mock/scoring", "-m", "b=mock/personas",
        "--baseline", "a", "--studies", "occugender", "--fail-on", "worse",
        "--out", str(tmp_path / "y"),
    )  # fmt: skip
    assert code == 1 and "b / occugender: not served" in capsys.readouterr().err
