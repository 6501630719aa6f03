"""Candidates scored per second on the embedded model: a bare torch loop vs ResilientModel.stream.

The inputs are OccuGender-like raw-text contexts ("Q: Imagine a nurse. What is the
nurse's gender? Answer with just one word.\\nA:") times 14 gender candidates with a
leading space (" Male" ... " Non-binary" ...). Legs, each over the same inputs:

* ``bare``: the loop a user would write: for each context, one right-padded
  forward pass over its context + candidate rows, ``log_softmax`` of the logits
  and the chain-rule sum over each candidate's tokens;
* ``bare/cache``: the backend's own scoring (one pass over each context, its KV
  cache reused for the candidates) called directly in a loop over batches: the
  baseline of the overhead figures;
* ``stream``: the same ScoreRequests through ``ResilientModel(embedded).stream``;
* ``runner``: the same contexts as score items of a study through
  :func:`gasp.runner.generate` into a fresh run store (requests built, answers
  stored per item, sample and candidate, read back afterwards).

Every leg runs in a worker thread, as the backend does (see bench_hf_backend.py),
the legs alternate over ``--repeats`` and the best time of each is kept. The
script checks that every leg gives the same log-probabilities (within 1e-4).

    python bench/bench_scoring.py                  # 20 contexts x 14 candidates, 1 repeat
    python bench/bench_scoring.py --contexts 8 --repeats 3 --batch-size 8
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import torch

from bench_gpu import ListSource  # a fixed list of requests for ResilientModel.stream
from gasp.backends import ResilientModel, ScoreRequest
from gasp.backends._embedded import embedded_backend
from gasp.backends._hf import HFBackend
from gasp.backends._hf_scoring import encode_request
from gasp.runner import Item, RequestKind, RunOptions, StudyPlan, generate
from gasp.store import RunStore

OCCUPATIONS = (
    "nurse", "engineer", "teacher", "pilot", "farmer", "lawyer", "chef", "scientist",
    "carpenter", "librarian", "surgeon", "painter", "secretary", "mechanic", "dancer",
    "plumber", "receptionist", "firefighter", "hairdresser", "programmer",
)  # fmt: skip
CANDIDATES = tuple(
    " " + c
    for c in (
        "Male", "Man", "He", "Him", "Female", "Woman", "She", "Her",
        "Neutral", "Nonbinary", "Non-binary", "Non-Binary", "They", "Them",
    )
)  # fmt: skip

Scores = list[list[float]]
T = TypeVar("T")


def make_requests(n: int) -> list[ScoreRequest]:
    """``n`` OccuGender-like contexts, each with the 14 candidates."""
    return [
        ScoreRequest(
            key=f"ctx-{i}",
            context=(
                f"Q: Imagine a {job}. What is the {job}'s gender? Answer with just one word.\nA:"
            ),
            candidates=CANDIDATES,
        )
        for i, job in enumerate(OCCUPATIONS[i % len(OCCUPATIONS)] for i in range(n))
    ]


def bare_leg(backend: HFBackend, requests: list[ScoreRequest]) -> Scores:
    """Per context, one padded forward pass over its context + candidate rows."""
    loaded = backend.load()
    tok, model = loaded.tokenizer, loaded.model
    out = []
    for request in requests:
        enc = encode_request(tok, request)  # the same tokens as the backend
        n = len(enc.context_ids)
        rows = [list(enc.context_ids + ids) for ids in enc.candidate_ids]
        width = max(map(len, rows))
        ids = torch.tensor([r + [loaded.pad_id] * (width - len(r)) for r in rows])
        mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
        with torch.inference_mode():
            logprobs = torch.log_softmax(model(ids, attention_mask=mask).logits.float(), dim=-1)
        out.append(
            [
                sum(float(logprobs[row, n - 1 + j, t]) for j, t in enumerate(cand))
                for row, cand in enumerate(enc.candidate_ids)
            ]
        )
    return out


def stream_leg(backend: HFBackend, requests: list[ScoreRequest], batch_size: int) -> Scores:
    """The requests through ``ResilientModel.stream``, answers put back in request order."""

    async def run() -> Scores:
        model = ResilientModel(backend, max_concurrency=1, batch_size=batch_size)
        by_key = {}
        async for request, response in model.stream(ListSource(requests)):
            assert response.error is None, response.error
            by_key[request.key] = [s.logprob for s in response.scores]  # type: ignore[union-attr]
        return [by_key[r.key] for r in requests]  # type: ignore[misc]

    return asyncio.run(run())


def direct_leg(backend: HFBackend, requests: list[ScoreRequest], batch_size: int) -> Scores:
    """The backend's own batched scoring called directly, batch after batch (no wrapper)."""
    out: Scores = []
    for start in range(0, len(requests), batch_size):
        for response in backend._score_sync(requests[start : start + batch_size]):
            out.append([s.logprob for s in response.scores])  # type: ignore[misc]
    return out


def score_items(requests: list[ScoreRequest]) -> StudyPlan:
    """The contexts of ``requests`` as the raw-text score items of a study."""
    items = tuple(
        Item(
            key=(r.key,),
            prompt=str(r.context),
            attributes={"context": r.key},
            kind=RequestKind.SCORE,
            candidates=r.candidates,
            chat=False,
        )
        for r in requests
    )
    return StudyPlan(kind="bench", name="bench-scoring", items=items, spec={"n": len(items)})


def runner_leg(backend: HFBackend, plan: StudyPlan, path: Path) -> Path:
    """The study through the runner into a new run store at ``path`` (timed part)."""
    summary = generate(plan, backend, path, RunOptions(progress=False))
    assert summary.complete, summary
    return path


def stored_scores(plan: StudyPlan, path: Path) -> Scores:
    """The log-probabilities the runner stored, in item and candidate order (not timed)."""
    with RunStore.open(path) as store:
        scores = store.scores()
    by_item = scores.groupby("item_id", sort=False)["logprob"].apply(list)
    return [list(map(float, by_item[item.item_id])) for item in plan.items]


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Run ``fn`` in a fresh worker thread; returns (seconds, result)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        started = time.perf_counter()
        result = pool.submit(fn).result()
        return time.perf_counter() - started, result


def main() -> None:
    """Run the legs and print candidates per second side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=4, help="requests per backend call")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    requests = make_requests(args.contexts)
    n_candidates = sum(len(r.candidates) for r in requests)
    backend = embedded_backend({"device": "cpu", "batch_size": args.batch_size})
    backend.load()
    plan = score_items(requests)
    folder = Path(tempfile.mkdtemp(prefix="bench-scoring-"))
    runs = iter(range(10**6))
    legs: dict[str, Callable[[], Scores | Path]] = {
        "bare": lambda: bare_leg(backend, requests),
        "bare/cache": lambda: direct_leg(backend, requests, args.batch_size),
        "stream": lambda: stream_leg(backend, requests, args.batch_size),
        "runner": lambda: runner_leg(backend, plan, folder / f"run{next(runs)}.sqlite"),
    }
    names = list(legs)
    timed(lambda: direct_leg(backend, requests[:2], args.batch_size))  # warm-up
    best: dict[str, float] = {}
    results: dict[str, Scores | None] = {}
    for repeat in range(args.repeats):
        order = names if repeat % 2 == 0 else names[::-1]
        for name in order:
            seconds, outcome = timed(legs[name])
            results[name] = stored_scores(plan, outcome) if isinstance(outcome, Path) else outcome
            best[name] = min(best.get(name, float("inf")), seconds)
    shutil.rmtree(folder, ignore_errors=True)
    reference = results["bare"]
    assert reference is not None
    base = best["bare/cache"]
    print(f"{args.contexts} contexts x {len(CANDIDATES)} candidates = {n_candidates} candidates")
    print(f"{'leg':<12} {'seconds':>8} {'cand/s':>8} {'vs bare/cache':>14} {'max |diff|':>11}")
    for name in names:
        result = results[name]
        assert result is not None
        pairs = zip(result, reference, strict=True)
        diff = max(abs(a - b) for ra, rb in pairs for a, b in zip(ra, rb, strict=True))
        assert diff < 1e-4, f"{name} differs from the bare loop by {diff}"
        overhead = 100 * (best[name] / base - 1)
        print(
            f"{name:<12} {best[name]:>8.2f} {n_candidates / best[name]:>8.1f}"
            f" {overhead:>+13.1f}% {diff:>11.1e}"
        )


if __name__ == "__main__":
    main()
