"""The runner: adaptive stopping (Algorithm 5), budgets, resume, seeds, manifest checks."""

from __future__ import annotations

import collections
import dataclasses
import io
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from gasp.backends import (
    GenerationRequest,
    GenerationResponse,
    ModelBackend,
    RetryPolicy,
    StopReason,
    TransientBackendError,
    price_per_mtok,
    redact_url,
    resolve_backend,
)
from gasp.errors import BackendError, ConfigError
from gasp.runner import (
    RunOptions,
    estimate_plan,
    generate,
    sample_seed,
    summary_table,
)
from gasp.store import RunStore
from gasp.studies.more_of_the_same import STANDARD_CONDITIONS, StoppingRule, Study, Subject

FEMALE, MALE, NOBODY = "She is a nurse.", "He is a nurse.", "A nurse at work."

Script = Callable[[str, str, str, int], str]


class ScriptedBackend(ModelBackend):
    """Answers from a function of (template, subject, condition, index); can fail on cue."""

    def __init__(self, script: Script, *, failing: set[int] | None = None) -> None:
        self.model_id = "test/scripted"
        self.script = script
        self.failing = failing or set()
        self.calls: collections.Counter[str] = collections.Counter()
        self.seeds: dict[str, int | None] = {}

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        template, subject, condition, index = json.loads(request.key)
        self.calls[request.key] += 1
        self.seeds[request.key] = request.seed
        if index in self.failing:
            raise TransientBackendError("server_error", "scripted failure")
        text = self.script(template, subject, condition, index)
        return GenerationResponse(
            text=text,
            stop_reason=StopReason.STOP,
            model_id=self.model_id,
            prompt_tokens=5,
            completion_tokens=len(text.split()),
        )


def _study(n: int = 4, *, cap_factor: int = 5, batch: int | None = None) -> Study:
    return Study(
        name="t",
        templates={"p": "Describe [ARTICLE] [OCCUPATION]"},
        subjects=(Subject("nurse"),),
        conditions=(STANDARD_CONDITIONS["unspecified"], STANDARD_CONDITIONS["woman"]),
        n=n,
        stopping=StoppingRule(cap_factor=cap_factor, batch_size=batch),
    )


def _opts(**kw: object) -> RunOptions:
    base: dict[str, object] = {
        "progress": False,
        "retry": RetryPolicy(max_attempts=2, base_delay_s=0.0, max_delay_s=0.0),
    }
    base.update(kw)
    return RunOptions(**base)  # type: ignore[arg-type]


def _rows(path: Path) -> dict[tuple[str, str, int], str]:
    with RunStore.open(path) as store:
        frame = store.samples()
    return {(r.template, r.condition, int(r.sample_index)): r.text for r in frame.itertuples()}


def three_women_one_man(t: str, s: str, c: str, i: int) -> str:
    return MALE if i % 4 == 3 else FEMALE


def test_named_cells_get_n_and_adaptive_cells_run_until_n_of_each_gender(tmp_path: Path) -> None:
    # Each batch of 4 has 3 women and 1 man: n=4 men need 4 batches (16 samples).
    # The pseudo-code's `while t_M < n and t_F < n` would stop after 2 batches (F=6).
    path = tmp_path / "r.sqlite"
    summary = generate(_study(), ScriptedBackend(three_women_one_man), path, _opts())
    rows = _rows(path)
    assert sorted(i for (_, c, i) in rows if c == "unspecified") == list(range(16))
    assert sorted(i for (_, c, i) in rows if c == "woman") == list(range(4))
    assert summary.complete and summary.generated == 20 and summary.resumed == 0
    with RunStore.open(path) as store:
        cells = store.item_states().set_index("condition")
    assert cells.loc["unspecified", "status"] == "complete"
    assert cells.loc["unspecified", "counts"] == {"F": 12, "M": 4}


def test_cell_is_skipped_when_a_gender_is_below_ten_percent_of_the_first_batch(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    script: Script = lambda t, s, c, i: MALE if i == 15 else FEMALE  # noqa: E731
    summary = generate(_study(n=10), ScriptedBackend(script), path, _opts())
    key = ("p", "nurse", "unspecified")
    assert key in summary.skipped
    assert "0 of 10 associated with men" in summary.skipped[key]
    assert sorted(i for (_, c, i) in _rows(path) if c == "unspecified") == list(range(10))
    with RunStore.open(path) as store:
        cells = store.item_states().set_index("condition")
    assert cells.loc["unspecified", "status"] == "skipped"


def test_exactly_ten_percent_is_kept_and_the_cap_stops_the_cell(tmp_path: Path) -> None:
    # One man in the first batch of 10 is exactly 10%: kept; no other man, so the
    # cell runs to its cap of 2 x n = 20 samples.
    path = tmp_path / "r.sqlite"
    script: Script = lambda t, s, c, i: MALE if i == 0 else FEMALE  # noqa: E731
    summary = generate(_study(n=10, cap_factor=2), ScriptedBackend(script), path, _opts())
    key = ("p", "nurse", "unspecified")
    assert key not in summary.skipped
    assert "cap of 20 samples with 19 women, 1 men" in summary.capped[key]
    assert len([1 for (_, c, _) in _rows(path) if c == "unspecified"]) == 20


def test_unassigned_generations_do_not_count(tmp_path: Path) -> None:
    # Batches of 4: F, M, nobody, nobody -> 1 F and 1 M per batch -> 4 batches for n=4.
    texts = [FEMALE, MALE, NOBODY, NOBODY]
    script: Script = lambda t, s, c, i: texts[i % 4]  # noqa: E731
    path = tmp_path / "r.sqlite"
    generate(_study(), ScriptedBackend(script), path, _opts())
    assert len([1 for (_, c, _) in _rows(path) if c == "unspecified"]) == 16


def test_budget_stops_cleanly_and_resume_reproduces_the_single_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    generate(_study(), ScriptedBackend(three_women_one_man), whole, _opts())
    pieces = tmp_path / "pieces.sqlite"
    summaries = []
    for _ in range(10):
        summary = generate(
            _study(), ScriptedBackend(three_women_one_man), pieces, _opts(max_requests=3)
        )
        summaries.append(summary)
        if summary.complete:
            break
    assert summaries[0].stopped == "--max-requests 3 reached"
    assert summaries[0].requests == 3 and not summaries[0].complete
    assert summaries[-1].complete and len(summaries) == 7  # 20 samples, 3 per session
    assert summaries[-1].resumed == 18
    assert _rows(pieces) == _rows(whole)
    with RunStore.open(pieces) as store:
        assert len(store.sessions()) == 7
        assert store.integrity_check() == "ok"


def test_failed_samples_are_error_rows_and_are_retried_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    first = generate(_study(), ScriptedBackend(three_women_one_man, failing={1, 2}), path, _opts())
    assert first.failed == 4  # indices 1 and 2 of both cells
    assert first.failed_by_kind == {"server_error": 4}
    assert first.faults_by_kind == {"server_error": 8}  # two attempts each
    assert not first.complete
    with RunStore.open(path) as store:
        errors = store.samples(include_errors=True).query("stop_reason == 'error'")
        assert len(errors) == 4 and errors["error"].str.contains("server_error").all()
        assert set(store.item_states()["status"]) == {"incomplete"}
    backend = ScriptedBackend(three_women_one_man)
    second = generate(_study(), backend, path, _opts())
    assert second.complete and second.resumed == 4
    # the 4 failed samples plus the 3 later batches of the adaptive cell
    assert second.generated == 4 + 12
    assert max(backend.calls.values()) == 1
    with RunStore.open(path) as store:
        frame = store.samples(include_errors=True)
    assert len(frame) == 20 and (frame["stop_reason"] == "stop").all()
    assert not frame.duplicated(["template", "subject", "condition", "sample_index"]).any()


def test_per_sample_seeds_derive_from_run_seed_and_key(tmp_path: Path) -> None:
    a, b = ScriptedBackend(three_women_one_man), ScriptedBackend(three_women_one_man)
    generate(_study(), a, tmp_path / "a.sqlite", _opts(seed=5))
    generate(_study(), b, tmp_path / "b.sqlite", _opts(seed=6))
    key = json.dumps(["p", "nurse", "woman", 2])
    assert a.seeds[key] == sample_seed(5, ("p", "nurse", "woman"), 2)
    assert a.seeds[key] != b.seeds[key]
    assert len(set(a.seeds.values())) == len(a.seeds)
    with RunStore.open(tmp_path / "a.sqlite") as store:
        frame = store.samples()
    stored = frame.set_index(["condition", "sample_index"])["seed"]
    assert stored.loc[("woman", 2)] == a.seeds[key]


def test_rerun_with_another_study_or_model_is_refused_and_leaves_the_store(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    generate(_study(), ScriptedBackend(three_women_one_man), path, _opts())
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"holds another run \(study differs in 'n'"):
        generate(_study(n=5), ScriptedBackend(three_women_one_man), path, _opts())
    with pytest.raises(ConfigError, match=r"holds another run \(seed 0, now 3"):
        generate(_study(), ScriptedBackend(three_women_one_man), path, _opts(seed=3))
    with pytest.raises(ConfigError, match=r"holds another run \(model"):
        generate(_study(), "mock/personas", path, _opts())
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"max_requests": 0}, ConfigError, "max_requests must be at least 1"),
        ({"max_concurrency": 0}, ConfigError, "max_concurrency must be at least 1"),
        ({"max_cost": 1.0}, ConfigError, "max_cost needs a model with a known price"),
        ({"seed": -1}, ConfigError, "seed must be a non-negative"),
    ],
)
def test_bad_options_fail_before_the_store_exists(
    tmp_path: Path, options: dict[str, object], error: type[Exception], message: str
) -> None:
    path = tmp_path / "r.sqlite"
    with pytest.raises(error, match=message):
        generate(_study(), "mock/personas", path, _opts(**options))
    assert not path.exists()


def test_unknown_provider_and_missing_key_fail_before_the_store_exists(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with pytest.raises(BackendError, match="unknown model provider 'nope'"):
        generate(_study(), "nope/x", path, _opts())
    env = "GASP_TEST_KEY_THAT_IS_NOT_SET"
    os.environ.pop(env, None)
    with pytest.raises(BackendError, match=env):
        generate(_study(), "openai/gpt-4o-mini", path, _opts(api_key_env=env))
    os.environ[env] = "sk-x"
    try:
        with pytest.raises(BackendError, match=r"cannot reach http://127\.0\.0\.1:9/v1"):
            generate(
                _study(),
                "openai-compatible/x",
                path,
                _opts(api_key_env=env, base_url="http://127.0.0.1:9/v1"),
            )
    finally:
        del os.environ[env]
    assert not path.exists()


def test_dry_run_counts_requests_tokens_and_cost_without_a_store(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    study = _study(n=4, cap_factor=5)
    summary = generate(study, "openai/gpt-4o-mini", path, _opts(dry_run=True))
    est = summary.estimate
    assert est is not None and summary.dry_run and not path.exists()
    assert (est.items_fixed, est.items_adaptive) == (1, 1)
    assert est.requests_fixed == 4
    assert (est.requests_adaptive_min, est.requests_adaptive_max) == (4, 20)
    assert (est.requests_min, est.requests_max) == (8, 24)
    # prompts "Describe a nurse" (16 chars -> 4 tokens) and "... who is a woman" (31 -> 8),
    # plus 7 tokens of chat overhead; completions of 128..256 tokens.
    prompt_u, prompt_w = 4 + 7, 8 + 7
    assert est.tokens_min == 4 * (prompt_u + 128) + 4 * (prompt_w + 128)
    assert est.tokens_max == 20 * (prompt_u + 256) + 4 * (prompt_w + 256)
    price_in, price_out = 0.15, 0.60
    assert est.cost_max_usd == pytest.approx(
        ((20 * prompt_u + 4 * prompt_w) * price_in + 24 * 256 * price_out) / 1e6
    )
    unpriced = generate(study, "mock/personas", None, _opts(dry_run=True))
    assert unpriced.estimate is not None and unpriced.estimate.cost_max_usd is None


def test_price_table_matches_dated_names_and_only_openai() -> None:
    assert price_per_mtok("openai/gpt-4o-mini-2024-07-18") == (0.15, 0.60)
    assert price_per_mtok("openai/gpt-4o") == (2.50, 10.00)
    assert price_per_mtok("openai/gpt-4o-2024-08-06") == (2.50, 10.00)
    assert price_per_mtok("openai-compatible/gpt-4o") is None
    assert price_per_mtok("openai/unknown-model") is None


def test_cell_state_reaches_the_same_decision_from_stored_rows_in_any_order() -> None:
    plan = _study().to_plan()
    item = next(i for i in plan.items if i.attributes["named_gender"] is None)
    texts = {i: three_women_one_man("p", "nurse", "unspecified", i) for i in range(16)}
    forward_answers = {i: texts[i] for i in sorted(texts)}
    backward_answers = {i: texts[i] for i in sorted(texts, reverse=True)}
    forward, backward = plan.stopping.start(item), plan.stopping.start(item)
    assert forward.decide(forward_answers) == backward.decide(backward_answers)
    decided = forward.decide(forward_answers)
    assert decided.status == "complete" and decided.n_samples == 16
    partial = plan.stopping.start(item)
    decision = partial.decide({i: texts[i] for i in (0, 1, 2, 3, 4, 6)})
    assert decision.status == "need" and decision.missing == (5, 7)
    assert decision.counts == {"F": 3, "M": 1}


def test_estimate_plan_of_the_builtin_study() -> None:
    from gasp.studies.more_of_the_same import more_of_the_same

    study = more_of_the_same()
    from gasp.backends import DecodingConfig

    est = estimate_plan(study.to_plan(), "embedded", DecodingConfig())
    assert est.requests_fixed == 63 * 2 * 3 * 100
    assert (est.requests_adaptive_min, est.requests_adaptive_max) == (126 * 100, 126 * 2000)


def test_progress_bars_and_summary_render_on_a_terminal(tmp_path: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    summary = generate(
        _study(),
        ScriptedBackend(three_women_one_man),
        tmp_path / "r.sqlite",
        _opts(progress=True),
        console=console,
    )
    assert "t" in buffer.getvalue() and "20/20" in buffer.getvalue()
    table = io.StringIO()
    Console(file=table, width=160).print(summary_table(summary))
    text = table.getvalue()
    assert "generated" in text and "20" in text and "resumed" in text


def test_the_summary_shows_a_batching_backends_batch_size(tmp_path: Path) -> None:
    backend = resolve_backend("mock/echo", options={"batching": True, "batch_size": 3})
    summary = generate(_study(), backend, tmp_path / "r.sqlite", _opts())
    assert (summary.batch_size, summary.batching) == (3, "3 requests per batch")
    table = io.StringIO()
    Console(file=table, width=160).print(summary_table(summary))
    assert "batch size" in table.getvalue()
    unbatched = generate(_study(), ScriptedBackend(three_women_one_man), tmp_path / "u.sqlite")
    assert (unbatched.batch_size, unbatched.batching) == (0, "")


def test_max_cost_stops_before_the_budget_and_counts_earlier_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gasp.backends import DecodingConfig
    from gasp.testing import FakeOpenAIServer

    monkeypatch.setenv("GASP_COST_KEY", "sk-cost")
    path = tmp_path / "r.sqlite"
    # est. cost per request: (44 chars / 4 + 7 = 18 prompt tokens) x $0.15/M
    # + 64 completion tokens x $0.60/M = $0.0000411; a budget of $0.0005 allows 12.
    budget = 0.0005
    with FakeOpenAIServer(seed=4) as server:
        options = _opts(
            max_cost=budget,
            base_url=server.base_url,
            api_key_env="GASP_COST_KEY",
            decoding=DecodingConfig(max_tokens=64),
            max_concurrency=4,
        )
        study = _study(n=20).restrict(conditions=["woman"])
        first = generate(study, "openai/gpt-4o-mini", path, options)
        assert first.stopped == "--max-cost $0.0005 reached"
        # answers cost less than the estimate (fewer than 64 tokens), so at least 12 fit
        assert 12 <= first.requests < 20 and first.generated == first.requests
        assert first.cost_usd is not None and 0 < first.cost_usd <= budget
        # the next request could have exceeded the budget at its estimated cost
        assert first.cost_usd + 0.0000411 > budget - 4 * 0.0000411
        # the budget covers the whole run: a second session with it stops at once
        again = generate(study, "openai/gpt-4o-mini", path, options)
        assert again.resumed == first.generated and again.requests <= 4
        # a larger budget finishes the run
        done = generate(
            study, "openai/gpt-4o-mini", path, dataclasses.replace(options, max_cost=0.01)
        )
    assert done.complete
    assert first.generated + again.generated + done.generated == 20


def test_batching_backend_gets_batches_and_the_same_samples(tmp_path: Path) -> None:
    from gasp.backends import make_mock_backend

    study = _study(n=6)
    plain = make_mock_backend("personas", {"female_share": 0.5})
    batched = make_mock_backend(
        "personas", {"female_share": 0.5, "batching": True, "batch_size": 4}
    )
    generate(study, plain, tmp_path / "plain.sqlite", _opts())
    summary = generate(study, batched, tmp_path / "batched.sqlite", _opts())
    assert summary.complete
    assert batched.batch_sizes and max(batched.batch_sizes) == 4
    assert sum(batched.batch_sizes) == summary.requests
    assert _rows(tmp_path / "batched.sqlite") == _rows(tmp_path / "plain.sqlite")


def test_a_base_url_with_an_invalid_port_is_a_backend_error_without_its_secrets(
    tmp_path: Path,
) -> None:
    assert redact_url("http://user:secret@host:99999/v1?key=x") == "http://host/v1"
    with pytest.raises(BackendError, match="invalid port"):
        generate(
            _study(),
            "mock/echo",
            tmp_path / "run.sqlite",
            RunOptions(progress=False, base_url="http://host:99999/v1"),
        )
    with pytest.raises(ConfigError, match="query string") as refused:
        generate(
            _study(),
            "mock/echo",
            tmp_path / "run.sqlite",
            RunOptions(progress=False, base_url="http://host:99999/v1?key=secret"),
        )
    assert "secret" not in str(refused.value)
    assert not (tmp_path / "run.sqlite").exists()


def test_a_stored_decoding_setting_this_version_lacks_is_named_in_the_refusal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    generate(_study(), ScriptedBackend(three_women_one_man), path, _opts())
    conn = sqlite3.connect(path)
    try:
        body = json.loads(conn.execute("SELECT body FROM manifest WHERE id = 1").fetchone()[0])
        body["decoding"]["min_p"] = 0.1
        conn.execute("UPDATE manifest SET body = ? WHERE id = 1", (json.dumps(body),))
        conn.commit()
    finally:
        conn.close()
    with pytest.raises(ConfigError, match=r"holds another run \(min_p 0.1, now None\)"):
        generate(_study(), ScriptedBackend(three_women_one_man), path, _opts())


def test_answers_received_with_a_fatal_error_are_stored_before_it_is_raised(
    tmp_path: Path,
) -> None:
    class FatalOnce(ScriptedBackend):
        async def generate(self, request: GenerationRequest) -> GenerationResponse:
            if json.loads(request.key)[2:] == ["woman", 1]:
                self.calls[request.key] += 1
                raise BackendError("scripted fatal error")
            return await super().generate(request)

    backend = FatalOnce(three_women_one_man)
    path = tmp_path / "r.sqlite"
    with pytest.raises(BackendError, match="scripted fatal error"):
        generate(_study(), backend, path, _opts())
    answered = {
        (t, c, i) for t, _, c, i in map(json.loads, backend.calls) if (c, i) != ("woman", 1)
    }
    assert len(answered) > 4
    assert set(_rows(path)) == answered


def test_a_run_resumes_only_on_the_engine_that_began_it(tmp_path: Path) -> None:
    """Texts of two engines of one model (int8 CTranslate2, float32 transformers) never mix
    in one store: the manifest records the engine and a resume on another is refused."""
    from gasp.backends import make_mock_backend
    from gasp.runner import Item, StudyPlan

    plan = StudyPlan(
        kind="engine-test", name="engine-test", items=(Item(key=("a",), prompt="Hi", n=2),), spec={}
    )
    path = tmp_path / "r.sqlite"
    first = make_mock_backend("constant", {})
    first.generation_engine = "ctranslate2/int8"
    generate(plan, first, path, RunOptions(progress=False))
    with RunStore.open(path) as store:
        assert store.manifest()["model"]["engine"] == "ctranslate2/int8"
    same = make_mock_backend("constant", {})
    same.generation_engine = "ctranslate2/int8"
    generate(plan, same, path, RunOptions(progress=False))
    other = make_mock_backend("constant", {})
    other.generation_engine = "transformers/float32"
    with pytest.raises(ConfigError, match="engine ctranslate2/int8, now transformers/float32"):
        generate(plan, other, path, RunOptions(progress=False))
