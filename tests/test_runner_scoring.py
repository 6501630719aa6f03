"""Scoring requests through the runner: stored per (item, sample index, candidate) with
the tokens used, resumed without duplicates, refused before any request where the
backend cannot serve them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gasp.errors import BackendError, ConfigError
from gasp.runner import Item, RequestKind, RunOptions, StudyPlan, generate
from gasp.store import RunStore

CANDIDATES = (" He", " She", " They", " Non-binary")
#: The default table of ``mock/scoring`` (gasp.backends._mock_scoring.DEFAULT_TABLE).
TABLE = {"he": 0.20, "she": 0.20, "they": 0.10, "non": 0.02, "-": 0.05, "binary": 0.05}


def _plan(
    jobs: tuple[str, ...] = ("nurse", "pilot", "engineer"), *, chat: bool = False
) -> StudyPlan:
    items = tuple(
        Item(
            key=("implicit", job),
            prompt=f"Q: Talk about the last time you met a {job}.\nA: I recently met a {job}.",
            attributes={"job": job, "task": "implicit"},
            kind=RequestKind.SCORE,
            candidates=CANDIDATES,
            chat=chat,
        )
        for job in jobs
    )
    return StudyPlan(kind="scoring-test", name="scoring-test", items=items, spec={"jobs": jobs})


def _opts(**kwargs: object) -> RunOptions:
    return RunOptions(progress=False, **kwargs)  # type: ignore[arg-type]


def test_scores_are_stored_per_item_sample_and_candidate_with_their_tokens(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    summary = generate(_plan(), "mock/scoring", path, _opts())
    assert summary.complete and summary.generated == 3 and summary.failed == 0
    with RunStore.open(path) as store:
        scores = store.scores()
        manifest = store.manifest()
    assert manifest["study_kind"] == "scoring-test" and manifest["request_kinds"] == ["score"]
    assert len(scores) == 3 * len(CANDIDATES)
    assert list(scores["job"].unique()) == ["nurse", "pilot", "engineer"]  # study order
    row = scores[(scores["job"] == "pilot") & (scores["candidate"] == " Non-binary")].iloc[0]
    expected = math.log(TABLE["non"]) + math.log(TABLE["-"]) + math.log(TABLE["binary"])
    assert row["logprob"] == pytest.approx(expected, abs=1e-12)
    assert list(row["tokens"]) == [" Non", "-", "binary"] and row["n_tokens"] == 3
    assert not bool(row["approximate"])
    she = scores[(scores["job"] == "nurse") & (scores["candidate"] == " She")].iloc[0]
    assert she["logprob"] == pytest.approx(math.log(TABLE["she"]))


def test_a_stopped_scoring_run_resumes_with_nothing_lost_or_doubled(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    plan = _plan(tuple(f"job{i}" for i in range(9)))
    first = generate(plan, "mock/scoring", path, _opts(max_requests=4))
    assert first.stopped and not first.complete and first.generated == 4
    second = generate(plan, "mock/scoring", path, _opts())
    assert second.complete and second.resumed == 4 and second.generated == 5
    third = generate(plan, "mock/scoring", path, _opts())
    assert third.requests == 0 and third.resumed == 9
    with RunStore.open(path) as store:
        scores = store.scores()
        assert store.integrity_check() == "ok"
    assert len(scores) == 9 * len(CANDIDATES)
    assert not scores.duplicated(["item_id", "sample_index", "candidate"]).any()


def test_a_backend_that_cannot_score_is_refused_before_any_request(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with pytest.raises(BackendError, match=r"cannot score.*study scoring-test"):
        generate(_plan(), "mock/echo", path, _opts())
    assert not path.exists()


def test_multi_token_candidates_are_refused_on_openai_backends_before_any_request(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    # nothing listens on port 9: with the approximate method chosen, the refusal must
    # come before any connection is tried
    with pytest.raises(ConfigError, match="Non-binary"):
        generate(
            _plan(chat=True),
            "openai-compatible/some-model",
            path,
            _opts(base_url="http://127.0.0.1:9/v1", backend_options={"scoring": "top-logprobs"}),
        )
    assert not path.exists()
    # left to find out (scoring=auto), the probe finds no server: one line, no store
    with pytest.raises(BackendError, match="cannot reach"):
        generate(
            _plan(chat=True),
            "openai-compatible/some-model",
            path,
            _opts(base_url="http://127.0.0.1:9/v1"),
        )
    assert not path.exists()


def test_dry_run_counts_scoring_requests(tmp_path: Path) -> None:
    summary = generate(_plan(), "mock/scoring", None, _opts(dry_run=True))
    assert summary.estimate is not None
    assert summary.estimate.score_requests == 3 and summary.estimate.requests_max == 3
