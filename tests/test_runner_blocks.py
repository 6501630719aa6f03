"""Batches fixed by the plan: a resumed run on a batching backend sends the batches an
uninterrupted run sends, so an engine whose text depends on the batch generates the
same texts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gasp.backends import GenerationRequest, GenerationResponse, make_mock_backend
from gasp.runner import RunOptions, generate
from gasp.store import RunStore
from gasp.studies.more_of_the_same import STANDARD_CONDITIONS, StoppingRule, Study, Subject


def _study(n: int) -> Study:
    return Study(
        name="t",
        templates={
            "p": "Describe [ARTICLE] [OCCUPATION]",
            "q": "Tell about [ARTICLE] [OCCUPATION]",
        },
        subjects=(Subject("nurse"), Subject("pilot")),
        conditions=(STANDARD_CONDITIONS["unspecified"],),
        n=n,
        stopping=StoppingRule(cap_factor=5),
    )


def _recording(**options: Any) -> tuple[Any, list[list[str]]]:
    backend = make_mock_backend("personas", {"batching": True, "batch_size": 4, **options})
    batches: list[list[str]] = []
    original = backend.generate_batch

    async def generate_batch(requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        batches.append([r.key for r in requests])
        return await original(requests)

    backend.generate_batch = generate_batch  # type: ignore[method-assign]
    return backend, batches


def _opts(**kw: Any) -> RunOptions:
    return RunOptions(progress=False, **kw)


def _texts(path: Path) -> dict[tuple[str, int], str]:
    with RunStore.open(path) as store:
        frame = store.samples()
    assert not frame.duplicated(["item_id", "sample_index"]).any()
    return {(r.item_id, int(r.sample_index)): r.text for r in frame.itertuples()}


def test_a_resumed_run_sends_the_uninterrupted_run_s_batches(tmp_path: Path) -> None:
    study = _study(n=3)  # 4 items of 3 samples: blocks of 4 cut across items
    backend, whole = _recording()
    generate(study, backend, tmp_path / "whole.sqlite", _opts())
    # the first round in blocks of 4 across items; the stopping rule's later rounds in
    # blocks of one item each
    sizes = [len(b) for b in whole]
    assert sizes[:3] == [4, 4, 4] and len(sizes) > 3

    # stop after 6 requests: the second block is cut after its second sample
    first, before = _recording()
    stopped = generate(study, first, tmp_path / "resumed.sqlite", _opts(max_requests=6))
    assert not stopped.complete
    again, after = _recording()
    summary = generate(study, again, tmp_path / "resumed.sqlite", _opts())
    assert summary.complete and summary.generated == sum(sizes) - 6
    # the cut block is sent whole again (its two stored samples' answers are dropped);
    # the first round's blocks go in the plan's order, the later rounds' blocks (one
    # item each) in the order their items' first rounds finished, which concurrency sets
    assert after[:2] == whole[1:3]
    assert sorted(map(tuple, after)) == sorted(map(tuple, whole[1:]))
    assert before[0] == whole[0] and set(before[1]) < set(whole[1])
    assert _texts(tmp_path / "resumed.sqlite") == _texts(tmp_path / "whole.sqlite")


def test_the_manifest_says_whether_batches_are_fixed(tmp_path: Path) -> None:
    backend, _ = _recording()
    generate(_study(n=2), backend, tmp_path / "fixed.sqlite", _opts())
    plain = make_mock_backend("personas", {})
    generate(_study(n=2), plain, tmp_path / "single.sqlite", _opts())
    with RunStore.open(tmp_path / "fixed.sqlite") as store:
        fixed = store.manifest()["model"]["batches"]
    with RunStore.open(tmp_path / "single.sqlite") as store:
        single = store.manifest()["model"]["batches"]
    assert fixed.startswith("fixed by the plan") and single.startswith("one request per call")
