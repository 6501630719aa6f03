"""Running a plan through a provider's batch API (``--batch``; see docs/batch.md).

The :class:`~gasp.runner.ItemLoop` keeps deciding what each item needs and records
every answer; this module only changes how requests travel. Each round, everything
the items need now goes into batches (split at the API's request and size limits).
A batch is recorded in the store before the provider is asked (``submitting``), then
with the provider's id; its answers are committed in the same transaction that marks
it ``collected``. A killed run therefore finds its open batches again and polls them
instead of submitting again, and no answer is committed twice. Samples that failed
(error lines, or an expired, failed or cancelled batch) are resubmitted alone, for at
most ``retry_rounds`` rounds per session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
import uuid
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from rich.console import Console

from gasp.backends import (
    TERMINAL_STATUSES,
    BatchClient,
    BatchResponse,
    DecodingConfig,
    ModelBackend,
    split_spec,
)
from gasp.errors import ConfigError
from gasp.runner._items import StudyPlan
from gasp.runner._loop import ItemLoop, ItemState, failure_kind
from gasp.runner._plan import Request, build_request, request_key
from gasp.runner._summary import BatchOptions
from gasp.store import BatchLedger, BatchRecord

#: The providers whose batch API ``--batch`` uses.
BATCH_PROVIDERS = ("openai", "openai-compatible")
#: The metadata key that names a submission at the provider (to find it after a kill).
SUBMISSION_KEY = "gasp_submission"


def check_batch_model(model: str | ModelBackend) -> None:
    """Raise :class:`ConfigError` (one line) unless ``model`` has a batch API."""
    if isinstance(model, str):
        provider, _ = split_spec(model)
        able = provider in BATCH_PROVIDERS
        name = model
    else:
        able = callable(getattr(model, "batch_client", None))
        name = model.model_id
    if not able:
        raise ConfigError(
            f"--batch needs a model behind a batch API (openai/<model> or "
            f"openai-compatible/<model>); {name} has none: run without --batch"
        )


def batch_client_for(backend: ModelBackend, plan: StudyPlan) -> BatchClient:
    """The batch client of ``backend``, after checking that it can carry every item."""
    check_batch_model(backend)
    client = backend.batch_client()  # type: ignore[attr-defined]  # checked just above
    assert isinstance(client, BatchClient)
    seen: set[tuple[str, bool]] = set()
    for item in plan.items:
        if (str(item.kind), item.chat) not in seen:
            seen.add((str(item.kind), item.chat))
            client.check(
                build_request(
                    item,
                    0,
                    decoding=DecodingConfig(),
                    run_seed=0,
                    system_prompt=plan.system_prompt,
                )
            )
    return client


class BatchRun:
    """Drives one session of a plan through batches, recording each in the store."""

    def __init__(
        self, loop: ItemLoop, client: BatchClient, ledger: BatchLedger, options: BatchOptions
    ) -> None:
        self.loop = loop
        self.client = client
        self.ledger = ledger
        self.options = options
        #: The requests of the batches this session waits for, by request key.
        self.requests: dict[str, Request] = {}
        #: The fault kind of each sample whose latest line failed, by request key.
        self.failures: dict[str, str] = {}
        self._last_line = ""
        self._last_shown = 0.0

    async def run(self) -> None:
        """Submit, poll and collect until the items need nothing more (or a budget stops)."""
        loop = self.loop
        session = loop.begin()
        failed = True
        try:
            await self._drive()
            failed = False
        finally:
            loop.end(session, failed=failed)

    async def _drive(self) -> None:
        waiting = await self._resume()
        rounds = 0
        while True:
            if waiting:
                await self._await(waiting)
            if rounds < self.options.retry_rounds and self._requeue_failed():
                rounds += 1
            requests = self.loop.take(sys.maxsize)
            if not requests:
                return
            for request in requests:
                self.requests[request.key] = request
            waiting = [await self._submit(chunk) for chunk in self._chunks(requests)]

    # -- resuming

    async def _resume(self) -> list[BatchRecord]:
        """The batches an earlier session left open, found again and awaited."""
        waiting = []
        for record in self.ledger.open_records():
            if record.batch_id is None:
                found = await self.client.find(SUBMISSION_KEY, record.submission)
                if found is None:  # killed before the provider created it
                    self.ledger.update(dataclasses.replace(record, status="abandoned"))
                    continue
                record = _with_batch(record, found)
                self.ledger.update(record)
            self._claim(record.request_keys)
            waiting.append(record)
        self.loop.summary.batches_resumed = len(waiting)
        return waiting

    def _claim(self, keys: Iterable[str]) -> None:
        """Take the samples of a batch already submitted out of the queue: their
        answers come from that batch."""
        wanted = set(keys)
        loop = self.loop
        kept: deque[tuple[ItemState, int]] = deque()
        for state, index in loop.queue:
            key = request_key(state.item.key, index)
            if key in wanted:
                loop.in_flight[key] = (state, index, 0.0)
                self.requests[key] = build_request(
                    state.item,
                    index,
                    decoding=loop.decoding,
                    run_seed=loop.opts.seed,
                    system_prompt=loop.plan.system_prompt,
                )
            else:
                kept.append((state, index))
        loop.queue = kept

    def _requeue_failed(self) -> bool:
        """Queue again the samples whose latest attempt failed; True when there were any.

        A sample sent again counts as a fault met (retried), no longer as a failure.
        """
        loop = self.loop
        again = False
        for state in loop.states.values():
            for index in sorted(state.failed):
                if (state.item.key, index) not in loop.attempted:
                    continue
                loop.attempted.discard((state.item.key, index))
                again = True
                kind = self.failures.pop(request_key(state.item.key, index), None)
                if kind is not None:
                    loop.summary.failed -= 1
                    loop.failed_kinds[kind] -= 1
                    if loop.failed_kinds[kind] <= 0:
                        del loop.failed_kinds[kind]
            if state.failed:
                loop.schedule(state)
        return again

    # -- submitting

    def _chunks(self, requests: list[Request]) -> Iterator[list[tuple[Request, bytes]]]:
        """The requests with their input lines, split at the batch limits."""
        chunk: list[tuple[Request, bytes]] = []
        size = 0
        for request in requests:
            line = (json.dumps(self.client.line(request), ensure_ascii=False) + "\n").encode()
            if len(line) > self.options.max_bytes:
                raise ConfigError(
                    f"request {request.key} takes {len(line):,} bytes, more than a batch "
                    f"holds ({self.options.max_bytes:,})"
                )
            if chunk and (
                len(chunk) >= self.options.max_requests or size + len(line) > self.options.max_bytes
            ):
                yield chunk
                chunk, size = [], 0
            chunk.append((request, line))
            size += len(line)
        if chunk:
            yield chunk

    async def _submit(self, chunk: list[tuple[Request, bytes]]) -> BatchRecord:
        """Record, upload and create one batch; return its record."""
        submission = uuid.uuid4().hex
        record = BatchRecord(submission=submission, request_keys=tuple(r.key for r, _ in chunk))
        self.ledger.add(record)  # committed before the provider hears of it
        file_id = await self.client.upload(b"".join(line for _, line in chunk))
        record = dataclasses.replace(record, input_file_id=file_id)
        self.ledger.update(record)
        metadata = {SUBMISSION_KEY: submission, "gasp_run": self.loop.store.run_id}
        record = _with_batch(record, await self.client.create(file_id, metadata))
        self.ledger.update(record)
        self.loop.summary.batches_submitted += 1
        return record

    # -- polling and collecting

    async def _await(self, records: list[BatchRecord]) -> None:
        """Poll the batches until each has ended; collect each as it ends."""
        waiting = {r.submission: r for r in records}
        interval = self.options.interval_s()
        while waiting:
            for submission, record in list(waiting.items()):
                assert record.batch_id is not None
                batch = await self.client.retrieve(record.batch_id)
                updated = _with_batch(record, batch)
                if updated != record:
                    self.ledger.update(updated)
                if str(batch.get("status")) in TERMINAL_STATUSES:
                    await self._collect(updated)
                    del waiting[submission]
                else:
                    waiting[submission] = updated
            self._show(list(waiting.values()))
            if waiting:
                await asyncio.sleep(interval)

    async def _collect(self, record: BatchRecord) -> None:
        """Record every line of an ended batch; commit them with its new state at once."""
        loop, client = self.loop, self.client
        lines: list[dict[str, Any]] = []
        for file_id in (record.output_file_id, record.error_file_id):
            if file_id:
                lines.extend(await client.content(file_id))
        answered: set[str] = set()
        loop.writer.deferred = True  # the answers are committed below with the batch's state
        for line in lines:
            key = str(line.get("custom_id"))
            request = self.requests.get(key)
            if request is None or key in answered or key not in loop.in_flight:
                continue  # not ours, a duplicate, or answered already
            answered.add(key)
            self._record(request, client.response(request, line))
        kind = "batch_missing" if record.status == "completed" else f"batch_{record.status}"
        why = record.error or f"the batch ended {record.status} without an answer for it"
        for key in record.request_keys:
            request = self.requests.get(key)
            if request is not None and key not in answered and key in loop.in_flight:
                self._record(request, client.failure(request, why, kind))
        loop.writer.deferred = False
        samples, scores = loop.writer.take_buffered()
        self.ledger.commit(dataclasses.replace(record, status="collected"), samples, scores)
        loop.flush()  # the item states (derived data)
        for key in record.request_keys:
            self.requests.pop(key, None)

    def _record(self, request: Request, response: BatchResponse) -> None:
        self.loop.record(request, response)
        if response.error is not None:
            self.failures[request.key] = failure_kind(response)

    def _show(self, waiting: list[BatchRecord]) -> None:
        """A progress line per poll when something changed (or every progress interval)."""
        progress = self.loop.progress
        if not progress.enabled or not waiting:
            return
        parts = []
        for record in waiting:
            counts = record.counts or {}
            parts.append(
                f"{record.batch_id} {record.status} {counts.get('completed', 0)}/"
                f"{counts.get('total', len(record.request_keys))}"
                + (f" ({counts['failed']} failed)" if counts.get("failed") else "")
            )
        line = f"{self.loop.plan.name}: waiting for {len(waiting)} batch(es): " + "; ".join(parts)
        now = time.monotonic()
        if line != self._last_line or now - self._last_shown >= progress.interval_s:
            progress.console.print(line, markup=False, highlight=False)
            self._last_line, self._last_shown = line, now


def warn_open_batches(ledger: BatchLedger, console: Console | None) -> None:
    """Say so when a run resumed without ``--batch`` leaves batches open at the provider."""
    waiting = ledger.open_records()
    if waiting:
        (console or Console(stderr=True)).print(
            f"gasp: {len(waiting)} batch(es) of this run are still open at the provider; "
            "their answers are collected only by a run with --batch",
            markup=False,
            highlight=False,
        )


def _with_batch(record: BatchRecord, batch: Mapping[str, Any]) -> BatchRecord:
    """``record`` updated from the provider's batch object."""
    errors = (batch.get("errors") or {}).get("data") or []
    error = "; ".join(f"{e.get('code')}: {e.get('message')}" for e in errors) or None
    counts = batch.get("request_counts")
    return dataclasses.replace(
        record,
        batch_id=str(batch["id"]),
        status=str(batch.get("status") or record.status),
        input_file_id=batch.get("input_file_id") or record.input_file_id,
        output_file_id=batch.get("output_file_id"),
        error_file_id=batch.get("error_file_id"),
        counts=dict(counts) if isinstance(counts, Mapping) else record.counts,
        error=error,
    )


__all__ = [
    "BATCH_PROVIDERS",
    "SUBMISSION_KEY",
    "BatchRun",
    "batch_client_for",
    "check_batch_model",
    "warn_open_batches",
]
