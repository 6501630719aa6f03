"""The run loop: feeds requests to the model's stream, stores every answer, and asks each
item's stopping rule what it needs next.

The loop is the stream's request source: :meth:`ItemLoop.take` hands out the next
requests (enforcing the request and cost budgets), and each answer that comes back
is committed (:class:`~gasp.runner._answers.AnswerWriter`), in its own transaction,
before the next answer is taken: a kill at any moment loses only requests still in
flight, and a resume asks for none of what was received.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import sqlite3
import time
from dataclasses import dataclass, field

from rich.console import Console

from gasp.backends import (
    DecodingConfig,
    FleetBackend,
    GenerationResponse,
    ResilientModel,
    ScoreResponse,
    StopReason,
    cost_usd,
)
from gasp.errors import RunFailed
from gasp.runner._answers import AnswerWriter
from gasp.runner._blocks import Member, chunks, fixed_batch_size, plan_blocks
from gasp.runner._items import CAPPED, NEED, SKIPPED, Item, ItemProgress, RequestKind, StudyPlan
from gasp.runner._plan import Request, build_request, estimate_item_cost
from gasp.runner._progress import RunProgress
from gasp.runner._signals import SignalStop
from gasp.runner._summary import RunOptions, RunSummary
from gasp.store import ItemStateRecord, RunStore, damaged_store

Response = GenerationResponse | ScoreResponse


def failure_kind(response: Response) -> str:
    """The kind a failed answer is counted under: its last fault, else ``error``."""
    return response.fault_kinds[-1] if response.fault_kinds else "error"


@dataclass
class ItemState:
    """The answers of one item so far and its stopping rule's state."""

    item: Item
    progress: ItemProgress
    #: Successful answers by sample index (generated text; "" for scores).
    answers: dict[int, str] = field(default_factory=dict)
    #: Samples whose latest attempt failed (retried in a later session).
    failed: set[int] = field(default_factory=set)

    def add(self, index: int, text: str) -> None:
        """Record a successful sample."""
        self.answers[index] = text
        self.failed.discard(index)

    def add_failure(self, index: int) -> None:
        """Record a sample whose request failed after every retry."""
        if index not in self.answers:
            self.failed.add(index)


@dataclass(eq=False)
class ItemLoop:
    """Runs the items of a plan through a :class:`ResilientModel` into a :class:`RunStore`."""

    plan: StudyPlan
    store: RunStore
    model: ResilientModel
    opts: RunOptions
    decoding: DecodingConfig
    summary: RunSummary
    price: tuple[float, float] | None
    console: Console | None

    def __post_init__(self) -> None:
        plan, model, opts = self.plan, self.model, self.opts
        self.states = {item.key: ItemState(item, plan.stopping.start(item)) for item in plan.items}
        self.queue: collections.deque[tuple[ItemState, int]] = collections.deque()
        #: On a local batching engine, the batches fixed by the plan (see _blocks.py).
        self.block_size = fixed_batch_size(model)
        self.blocks: collections.deque[list[Member[ItemState]]] = collections.deque()
        #: Samples of the block being taken that are stored already, and the keys of
        #: their requests (sent only to keep the block whole; their answers are dropped).
        self.resending: set[tuple[tuple[str, ...], int]] = set()
        self.resent: set[str] = set()
        self.in_flight: dict[str, tuple[ItemState, int, float]] = {}
        self.attempted: set[tuple[tuple[str, ...], int]] = set()
        self.writer = AnswerWriter(self.store, opts.seed, self.summary)
        self.dirty: set[tuple[str, ...]] = set()
        #: The run's stop signals (:mod:`gasp.runner._signals`): once one came, no new
        #: request is taken and the answers under way are read until the drain ends.
        self.stop: SignalStop | None = None
        self.spent = 0.0
        self.committed_estimate = 0.0
        self.failed_kinds: collections.Counter[str] = collections.Counter()
        #: The last error a failed request ended with (the server's words, as told).
        self.last_error: str | None = None
        self.faults: collections.Counter[str] = collections.Counter()
        self.progress = RunProgress(
            plan.name,
            enabled=opts.progress,
            console=self.console,
            interval_s=opts.progress_interval_s,
        )
        self.expected: dict[tuple[str, ...], int] = {}
        self.started = time.monotonic()

    # -- resume

    def load(self) -> int:
        """Take the successful answers already stored; return how many there are."""
        by_id = {state.item.item_id: state for state in self.states.values()}
        stored = self.store.stored_samples()
        ok = stored[stored["stop_reason"] != str(StopReason.ERROR)]
        for iid, index, text in zip(ok["item_id"], ok["sample_index"], ok["text"], strict=True):
            state = by_id.get(str(iid))
            if state is not None:
                state.add(int(index), "" if text is None else str(text))
        resumed = len(ok)
        scores = self.store.stored_scores()
        if len(scores):
            # a scored sample is done when every candidate of it is stored without error
            bad = scores[scores["status"] != "ok"][["item_id", "sample_index"]]
            failed = set(zip(bad["item_id"], bad["sample_index"], strict=True))
            done = scores[["item_id", "sample_index"]].drop_duplicates()
            for iid, index in zip(done["item_id"], done["sample_index"], strict=True):
                state = by_id.get(str(iid))
                if state is not None and (iid, index) not in failed:
                    state.add(int(index), "")
                    resumed += 1
        if self.price is not None and len(ok):
            self.spent = cost_usd(
                self.price,
                int(ok["prompt_tokens"].fillna(0).sum()),
                int(ok["completion_tokens"].fillna(0).sum()),
            )
        return resumed

    # -- main loop

    async def run(self) -> None:
        """Request everything the items need; record the session in the store."""
        session = self.begin()
        failed, interrupted = True, False
        try:
            async for request, response in self.model.stream(self):
                self.record(request, response)
            failed = False
            interrupted = self.stop is not None and self.stop.stopping  # drained
        except (asyncio.CancelledError, KeyboardInterrupt):
            interrupted = True  # a signal: every answer received is stored already
            raise
        finally:
            self.end(session, failed=failed, interrupted=interrupted)

    def begin(self) -> int:
        """Start a session: take the stored answers, queue what the items still need and
        show progress; return the session's id (for :meth:`end`)."""
        self.started = time.monotonic()
        summary = self.summary
        summary.run_id = self.store.run_id
        summary.model_id = self.model.model_id
        try:
            session = self.store.begin_session()
            summary.resumed = self.load()
        except sqlite3.DatabaseError as exc:  # a damaged page: one line, not a traceback
            raise damaged_store(self.store.path, exc) from None
        if self.block_size is not None:
            self._plan_blocks(self.block_size)
        for state in self.states.values():
            self.schedule(state)
        self.progress.start(sum(self.expected.values()), summary.resumed)
        return session

    def end(self, session: int, *, failed: bool, interrupted: bool = False) -> None:
        """Finish a session: stop the progress display, write the item states and
        record the session's outcome (``failed``: it ended with an exception, recorded
        as ``error``; ``interrupted``: a signal stopped it). A run that failed is never
        recorded complete."""
        summary = self.summary
        self.progress.stop()
        self._finish()
        summary.elapsed_s = time.monotonic() - self.started
        if failed:
            summary.complete = False
        if interrupted and not summary.complete:
            outcome = "interrupted"
        elif failed:
            outcome = "error"
        elif summary.complete:
            outcome = "complete"
        else:
            outcome = summary.stopped or "incomplete"
        try:
            self.store.end_session(session, outcome, summary.to_dict())
        except sqlite3.Error:
            if not failed:
                raise
            # the session stays open in the store; the answers are committed already

    def take(self, limit: int) -> list[Request]:
        """Up to ``limit`` requests ready now, within the request and cost budgets."""
        if self.block_size is not None and not self.queue and self.blocks:
            # one whole block fixed by the plan (see _blocks.py)
            block = self.blocks.popleft()
            self.queue.extend((state, index) for state, index, _ in block)
            self.resending = {(s.item.key, i) for s, i, keep in block if not keep}
        requests: list[Request] = []
        opts = self.opts
        if self.stop is not None and self.stop.stopping:
            self.queue.clear()
            self.blocks.clear()
            return requests
        while self.queue and len(requests) < limit:
            if opts.max_requests is not None and self.summary.requests >= opts.max_requests:
                self.summary.stopped = f"--max-requests {opts.max_requests} reached"
                self.queue.clear()
                break
            state, index = self.queue[0]
            estimate = estimate_item_cost(
                state.item, self.price, self.plan.system_prompt, self.decoding.max_tokens
            )
            if (
                opts.max_cost is not None
                and self.spent + self.committed_estimate + estimate > opts.max_cost
            ):
                self.summary.stopped = f"--max-cost ${opts.max_cost:g} reached"
                self.queue.clear()
                break
            self.queue.popleft()
            request = build_request(
                state.item,
                index,
                decoding=self.decoding,
                run_seed=self.opts.seed,
                system_prompt=self.plan.system_prompt,
            )
            if (state.item.key, index) in self.resending:
                self.resent.add(request.key)  # stored already: its answer is dropped
                estimate = 0.0
            else:
                self.summary.requests += 1
            self.committed_estimate += estimate
            self.in_flight[request.key] = (state, index, estimate)
            requests.append(request)
        return requests

    def all_failed(self) -> RunFailed | None:
        """When every request of this session failed and the store holds no answer: the
        one-line error that says so with the server's last error (else None)."""
        summary = self.summary
        if summary.generated or summary.resumed or not summary.failed or summary.stopped:
            return None
        error = " ".join((self.last_error or "no error was told").split())[:300]
        kinds = ", ".join(f"{n} {k}" for k, n in self.failed_kinds.most_common())
        return RunFailed(
            f"every request failed ({summary.failed}: {kinds}); the last error: {error}"
        )

    def _plan_blocks(self, size: int) -> None:
        """Queue the first-round blocks with a sample still missing (see _blocks.py)."""
        stopping = self.plan.stopping
        blocks = plan_blocks(
            self.states.values(),
            lambda state: stopping.start(state.item).decide({}).missing,
            lambda state: state.answers,
            size,
        )
        for block in blocks:
            self.attempted.update((state.item.key, index) for state, index, _ in block)
        self.blocks.extend(blocks)

    # -- recording

    def record(self, request: Request, response: Response) -> None:
        """Take the answer to an in-flight request: buffer its rows, update its item."""
        if request.key in self.resent:  # stored already; sent to keep its batch whole
            self.resent.discard(request.key)
            self.in_flight.pop(request.key, None)
            return
        state, index, estimate = self.in_flight.pop(request.key)
        self.committed_estimate = max(0.0, self.committed_estimate - estimate)
        for kind in response.fault_kinds:
            self.faults[kind] += 1
        if isinstance(response, ScoreResponse):
            ok = self.writer.commit(state.item, index, response) and response.ok
            if self.price is not None:
                self.spent += cost_usd(self.price, response.prompt_tokens or 0, 1) if ok else 0.0
        else:
            ok = self.writer.commit(state.item, index, response)
            ok = ok and response.stop_reason != StopReason.ERROR
            if self.price is not None:
                if response.prompt_tokens is None and response.completion_tokens is None:
                    self.spent += estimate if ok else 0.0
                else:
                    self.spent += cost_usd(
                        self.price, response.prompt_tokens or 0, response.completion_tokens or 0
                    )
        if ok:
            self.summary.generated += 1
            state.add(index, response.text if isinstance(response, GenerationResponse) else "")
            self.progress.advance(
                state.item.key, state.progress.expected_total(), len(state.answers)
            )
        else:
            self.summary.failed += 1
            self.failed_kinds[failure_kind(response)] += 1
            self.last_error = response.error or self.last_error
            state.add_failure(index)
        self.schedule(state)
        if self.dirty and not self.writer.deferred:  # decisions the answer settled, right after it
            self.flush()

    def schedule(self, state: ItemState) -> None:
        """Queue what an item needs next (each sample at most once per session)."""
        decision = state.progress.decide(state.answers)
        key = state.item.key
        if decision.status == NEED:
            new = [i for i in decision.missing if (key, i) not in self.attempted]
            self.attempted.update((key, i) for i in new)
            if self.block_size is not None:
                self.blocks.extend(chunks([(state, i, True) for i in new], self.block_size))
            else:
                self.queue.extend((state, i) for i in new)
        else:
            self.dirty.add(key)
            self.progress.cell_finished(key)
        expected = state.progress.expected_total()
        if self.expected.get(key) != expected:
            self.expected[key] = expected
            self.progress.update_total(sum(self.expected.values()))

    # -- writing

    def flush(self) -> None:
        """Commit the changed item states (answers are committed as they arrive)."""
        if self.dirty:
            self.store.write_item_states(self._state_records(self.dirty))
            self.dirty = set()

    def _state_records(self, keys: set[tuple[str, ...]]) -> list[ItemStateRecord]:
        records = []
        for key in keys:
            state = self.states[key]
            decision = state.progress.decide(state.answers)
            status, reason = decision.status, decision.reason
            if status == NEED:
                status = "incomplete"
                if state.failed:
                    reason = f"{len(state.failed)} sample(s) failed; run again to retry them"
                else:
                    reason = self.summary.stopped or "interrupted"
            records.append(
                ItemStateRecord(
                    item_id=state.item.item_id,
                    status=status,
                    reason=reason,
                    n_samples=len(state.answers),
                    counts=dict(decision.counts) or None,
                )
            )
        return records

    def _finish(self) -> None:
        summary = self.summary
        by_status: collections.Counter[str] = collections.Counter()
        for key, state in self.states.items():
            decision = state.progress.decide(state.answers)
            if decision.status == SKIPPED:
                summary.skipped[key] = decision.reason or ""
            elif decision.status == CAPPED:
                summary.capped[key] = decision.reason or ""
            by_status["incomplete" if decision.status == NEED else decision.status] += 1
        summary.cells_by_status = dict(by_status)
        summary.complete = by_status["incomplete"] == 0
        summary.failed_by_kind = dict(self.failed_kinds)
        summary.faults_by_kind = dict(self.faults)
        summary.cost_usd = self.spent if self.price is not None else None
        if isinstance(self.model.backend, FleetBackend):
            summary.endpoints = self.model.backend.endpoint_stats()
        # the answers are safe already; item states are derived data, recomputed on resume
        with contextlib.suppress(sqlite3.Error):
            self.store.write_item_states(self._state_records(set(self.states)))


__all__ = ["ItemLoop", "ItemState", "RequestKind"]
