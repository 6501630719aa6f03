"""The runner: turns a study into requests, stores every answer, decides when a cell is done.

``generate`` validates everything it can before it creates or opens the store (a
bad option, an unknown provider, a missing key, an unreachable server or a store
made for another run leave the file untouched), then streams requests through
:class:`gasp.backends.ResilientModel`. Answers are buffered briefly and committed
in atomic transactions by the one writer (the event loop), so a crash loses at most
the uncommitted answers, which a resumed run requests again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import platform
import socket
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console

from gasp.backends import (
    PROVIDERS,
    DecodingConfig,
    GenerationResponse,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    StopReason,
    redact_url,
    resolve_backend,
)
from gasp.errors import BackendError, ConfigError
from gasp.runner._adaptive import CAPPED, COMPLETE, NEED, SKIPPED, CellState
from gasp.runner._plan import (
    CellPlan,
    PlanEstimate,
    build_request,
    cost_usd,
    estimate_plan,
    estimate_prompt_tokens,
    plan_study,
    price_per_mtok,
    sample_seed,
)
from gasp.runner._progress import RunProgress
from gasp.store import CellRecord, RunStore, SampleRecord, read_manifest
from gasp.store._sqlite import utc_now
from gasp.studies import Study

#: Packages whose versions the manifest records (where installed).
RECORDED_PACKAGES = (
    "gasp",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "torch",
    "transformers",
    "openai",
    "vllm",
)


@dataclass(frozen=True)
class RunOptions:
    """How to run a study.

    ``seed`` is the run seed (per-sample seeds derive from it and the sample key);
    ``max_requests`` and ``max_cost`` (USD, priced ``openai/`` models only) stop the
    run cleanly, leaving a store the same command resumes. ``backend_options`` go to
    the backend (for example ``latency_s`` for ``mock/...``).
    """

    decoding: DecodingConfig = field(default_factory=DecodingConfig)
    seed: int = 0
    max_concurrency: int = 16
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_requests: int | None = None
    max_cost: float | None = None
    dry_run: bool = False
    base_url: str | None = None
    api_key_env: str | None = None
    progress: bool = True
    backend_options: Mapping[str, Any] | None = None
    commit_rows: int = 512
    commit_interval_s: float = 0.25

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an impossible option."""
        if self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed}")
        if self.max_concurrency < 1:
            raise ConfigError(f"max_concurrency must be at least 1, got {self.max_concurrency}")
        if self.max_requests is not None and self.max_requests < 1:
            raise ConfigError(f"max_requests must be at least 1, got {self.max_requests}")
        if self.max_cost is not None and not self.max_cost > 0:
            raise ConfigError(f"max_cost must be a positive number of USD, got {self.max_cost}")
        if self.commit_rows < 1 or self.commit_interval_s < 0:
            raise ConfigError("commit_rows must be at least 1 and commit_interval_s non-negative")


@dataclass
class RunSummary:
    """What one invocation of the runner did (or, for a dry run, would do)."""

    study: str
    store_path: str
    model: str
    run_id: str = ""
    model_id: str = ""
    dry_run: bool = False
    estimate: PlanEstimate | None = None
    #: New successful samples stored in this session.
    generated: int = 0
    #: Successful samples already in the store when the session started.
    resumed: int = 0
    #: Samples whose request failed after every retry in this session (retried on resume).
    failed: int = 0
    failed_by_kind: dict[str, int] = field(default_factory=dict)
    #: Every fault met, retried ones included, by kind.
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    skipped: dict[tuple[str, str, str], str] = field(default_factory=dict)
    capped: dict[tuple[str, str, str], str] = field(default_factory=dict)
    cells_by_status: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    cost_usd: float | None = None
    #: Why the session stopped early (a budget), or None.
    stopped: str | None = None
    complete: bool = False
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form (recorded in the store's ``sessions`` table)."""
        data = dataclasses.asdict(self)
        data["skipped"] = {"/".join(k): v for k, v in self.skipped.items()}
        data["capped"] = {"/".join(k): v for k, v in self.capped.items()}
        data["estimate"] = None if self.estimate is None else dataclasses.asdict(self.estimate)
        return data


def generate(
    study: Study,
    model: str | ModelBackend,
    store_path: str | Path | None,
    options: RunOptions | None = None,
    *,
    console: Console | None = None,
) -> RunSummary:
    """Run ``study`` against ``model`` (a ``provider/model`` string or a backend), storing
    every answer in the SQLite file ``store_path``; resume where a previous run stopped.

    With ``options.dry_run`` nothing is generated or written (``store_path`` may be
    None) and the summary's ``estimate`` holds the planned requests, tokens and cost.

    Synchronous wrapper around :func:`agenerate`.
    """
    return asyncio.run(agenerate(study, model, store_path, options, console=console))


async def agenerate(
    study: Study,
    model: str | ModelBackend,
    store_path: str | Path | None,
    options: RunOptions | None = None,
    *,
    console: Console | None = None,
) -> RunSummary:
    """The async runner behind :func:`generate`."""
    opts = options or RunOptions()
    opts.validate()
    if store_path is None and not opts.dry_run:
        raise ConfigError("a run store path is needed (only a dry run goes without one)")
    path = Path(store_path if store_path is not None else "")
    decoding = dataclasses.replace(opts.decoding, seed=opts.seed)
    spec = model if isinstance(model, str) else f"instance/{model.model_id}"
    if isinstance(model, str):
        _check_provider(model)
    price = price_per_mtok(spec)
    if opts.max_cost is not None and price is None:
        raise ConfigError(
            f"max_cost needs a model with a known price (openai/<model>); {spec!r} has none"
        )
    plans = plan_study(study)
    summary = RunSummary(
        study=study.name, store_path="" if store_path is None else str(path), model=spec
    )
    if opts.dry_run:
        summary.dry_run = True
        summary.estimate = estimate_plan(plans, study, spec, decoding)
        if store_path is not None and path.is_file():
            existing = read_manifest(path)
            if existing is not None:
                _check_identity(existing, _identity(study, spec, decoding, opts.seed), path)
        return summary
    if path.is_dir():
        raise ConfigError(f"--out {path} is a directory; give a .sqlite file path")
    backend = _make_backend(model, opts)
    owns_backend = isinstance(model, str)
    try:
        if opts.base_url:
            _check_reachable(opts.base_url)
        if path.exists():
            existing = read_manifest(path)
            if existing is not None:
                _check_identity(existing, _identity(study, spec, decoding, opts.seed), path)
        # A batching (local) backend runs one batch at a time on its device: calls
        # beyond the first would only queue inside the backend, where the wrapper's
        # timeout would count their waiting time.
        concurrency = 1 if backend.supports_batching else opts.max_concurrency
        wrapper = ResilientModel(backend, max_concurrency=concurrency, retry=opts.retry)
        store = RunStore.open(path, create=True)
    except BaseException:
        if owns_backend:
            await backend.aclose()
        raise
    try:
        if not store.has_manifest():
            store.write_manifest(_manifest(study, spec, backend, decoding, opts))
        runner = _Runner(plans, study, store, wrapper, opts, decoding, summary, price, console)
        await runner.run()
    finally:
        store.close()
        if owns_backend:
            await wrapper.aclose()
    return summary


# -- validation ---------------------------------------------------------------------


def _check_provider(spec: str) -> None:
    provider = spec.strip().partition("/")[0].lower()
    if provider not in PROVIDERS:
        raise BackendError(
            f"unknown model provider {provider!r} in {spec!r}; valid: {', '.join(PROVIDERS)}"
        )


def _make_backend(model: str | ModelBackend, opts: RunOptions) -> ModelBackend:
    if not isinstance(model, str):
        return model
    return resolve_backend(
        model,
        base_url=opts.base_url,
        api_key_env=opts.api_key_env,
        options=opts.backend_options,
    )


def _check_reachable(base_url: str, timeout_s: float = 5.0) -> None:
    """Raise :class:`BackendError` when nothing accepts connections at ``base_url``."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BackendError(
            f"base URL must look like http://host:port/v1, got {redact_url(base_url)}"
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise BackendError(f"base URL has an invalid port: {redact_url(base_url)}") from None
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise BackendError(f"cannot reach {redact_url(base_url)}: {reason}") from None


def _identity(study: Study, spec: str, decoding: DecodingConfig, seed: int) -> dict[str, Any]:
    return {
        "study": study.to_dict(),
        "model": spec,
        "decoding": dataclasses.asdict(decoding),
        "seed": seed,
    }


def _check_identity(manifest: Mapping[str, Any], identity: Mapping[str, Any], path: Path) -> None:
    stored = {
        "study": manifest.get("study"),
        "model": manifest.get("model", {}).get("spec"),
        "decoding": manifest.get("decoding"),
        "seed": manifest.get("seed"),
    }
    for key in ("study", "model", "seed", "decoding"):
        if stored[key] != identity[key]:
            if key == "study":
                detail = f"study {_study_difference(stored[key], identity[key])}"
            elif key == "decoding" and isinstance(stored[key], Mapping):
                old, new = stored[key], identity[key]
                keys = [*new, *(k for k in old if k not in new)]
                name = next(k for k in keys if old.get(k) != new.get(k))
                detail = f"{name} {old.get(name)!r}, now {new.get(name)!r}"
            else:
                detail = f"{key} {stored[key]!r}, now {identity[key]!r}"
            raise ConfigError(
                f"{path} holds another run ({detail}); "
                "use a new --out path or the original settings"
            )


def _study_difference(old: Any, new: Mapping[str, Any]) -> str:
    if not isinstance(old, Mapping):
        return "missing"
    for key in new:
        if old.get(key) != new.get(key):
            return f"differs in {key!r}"
    return "differs"


def _manifest(
    study: Study, spec: str, backend: ModelBackend, decoding: DecodingConfig, opts: RunOptions
) -> dict[str, Any]:
    versions: dict[str, str] = {"python": platform.python_version()}
    for package in RECORDED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return {
        "study": study.to_dict(),
        "model": {
            "spec": spec,
            "provider": spec.partition("/")[0],
            "model_id": backend.model_id,
            "backend": type(backend).__name__,
            "base_url": redact_url(opts.base_url),
            "api_key_env": opts.api_key_env,
        },
        "decoding": dataclasses.asdict(decoding),
        "seed": opts.seed,
        "packages": versions,
        "platform": platform.platform(),
        "started_at": utc_now(),
    }


# -- the run loop --------------------------------------------------------------------

_Item = tuple[CellState, int]


class _Runner:
    """Schedules requests cell by cell, writes answers, and applies the stopping rule."""

    def __init__(
        self,
        plans: list[CellPlan],
        study: Study,
        store: RunStore,
        model: ResilientModel,
        opts: RunOptions,
        decoding: DecodingConfig,
        summary: RunSummary,
        price: tuple[float, float] | None,
        console: Console | None,
    ) -> None:
        self.study = study
        self.store = store
        self.model = model
        self.opts = opts
        self.decoding = decoding
        self.summary = summary
        self.price = price
        self.states = {p.key: CellState(p) for p in plans}
        self.queue: collections.deque[_Item] = collections.deque()
        self.attempted: set[tuple[tuple[str, str, str], int]] = set()
        self.buffer: list[SampleRecord] = []
        self.dirty: set[tuple[str, str, str]] = set()
        self.last_flush = time.monotonic()
        self.spent = 0.0
        self.committed_estimate = 0.0
        self.failed_kinds: collections.Counter[str] = collections.Counter()
        self.faults: collections.Counter[str] = collections.Counter()
        self.progress = RunProgress(study.name, enabled=opts.progress, console=console)
        self.expected: dict[tuple[str, str, str], int] = {}
        batching = model.backend.supports_batching
        self.unit_size = max(1, model.batch_size) if batching else 1

    # -- setup

    def _load(self) -> int:
        stored = self.store.stored_samples()
        ok = stored[stored["stop_reason"] != str(StopReason.ERROR)]
        for template, subject, condition, index, text in zip(
            ok["template"],
            ok["subject"],
            ok["condition"],
            ok["sample_index"],
            ok["text"],
            strict=True,
        ):
            state = self.states.get((str(template), str(subject), str(condition)))
            if state is not None:
                state.add(int(index), "" if text is None else str(text))
        if self.price is not None and len(ok):
            self.spent = cost_usd(
                self.price,
                int(ok["prompt_tokens"].fillna(0).sum()),
                int(ok["completion_tokens"].fillna(0).sum()),
            )
        return len(ok)

    # -- main loop

    async def run(self) -> None:
        started = time.monotonic()
        summary = self.summary
        summary.run_id = self.store.run_id
        summary.model_id = self.model.model_id
        session = self.store.begin_session()
        summary.resumed = self._load()
        for state in self.states.values():
            self._schedule(state)
        self.progress.start(sum(self.expected.values()), summary.resumed)
        failed = True
        try:
            await self._loop()
            failed = False
        finally:
            self.progress.stop()
            self._finish()
            summary.elapsed_s = time.monotonic() - started
            if failed:
                outcome = "error"
            elif summary.complete:
                outcome = "complete"
            else:
                outcome = summary.stopped or "incomplete"
            self.store.end_session(session, outcome, summary.to_dict())

    async def _loop(self) -> None:
        # units in flight: twice the concurrency, so the next call is always ready
        window = 2 * self.model.max_concurrency
        pending: set[asyncio.Task[tuple[list[_Item], list[GenerationResponse]]]] = set()
        try:
            while True:
                while len(pending) < window and self.queue:
                    unit = self._next_unit()
                    if not unit:
                        break
                    pending.add(asyncio.create_task(self._call(unit)))
                if not pending:
                    break
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                # Record every answer that came back before raising a failure, so a
                # fatal error does not discard answers already received.
                failures = []
                for task in done:
                    exc = task.exception()
                    if exc is None:
                        self._record(*task.result())
                    else:
                        failures.append(exc)
                if failures:
                    raise failures[0]
                self._maybe_flush()
        finally:
            for task in pending:
                task.cancel()
            if pending:
                results = await asyncio.gather(*pending, return_exceptions=True)
                for result in results:
                    if isinstance(result, tuple):
                        self._record(*result)
            self._flush()

    def _next_unit(self) -> list[_Item]:
        unit: list[_Item] = []
        opts = self.opts
        while self.queue and len(unit) < self.unit_size:
            if opts.max_requests is not None and self.summary.requests >= opts.max_requests:
                self.summary.stopped = f"--max-requests {opts.max_requests} reached"
                self.queue.clear()
                break
            state, index = self.queue[0]
            estimate = self._estimate_cost(state)
            if (
                opts.max_cost is not None
                and self.spent + self.committed_estimate + estimate > opts.max_cost
            ):
                self.summary.stopped = f"--max-cost ${opts.max_cost:g} reached"
                self.queue.clear()
                break
            self.queue.popleft()
            self.committed_estimate += estimate
            self.summary.requests += 1
            unit.append((state, index))
        return unit

    async def _call(self, unit: list[_Item]) -> tuple[list[_Item], list[GenerationResponse]]:
        requests = [
            build_request(
                state.plan,
                index,
                decoding=self.decoding,
                run_seed=self.opts.seed,
                system_prompt=self.study.system_prompt,
            )
            for state, index in unit
        ]
        if len(requests) == 1 and self.unit_size == 1:
            return unit, [await self.model.generate(requests[0])]
        # One unit of at most batch_size requests: the wrapper answers it in order.
        responses = [r async for r in self.model.generate_many(requests)]
        if len(responses) != len(requests):
            raise RuntimeError(f"{len(responses)} responses for {len(requests)} requests")
        return unit, responses

    def _record(self, unit: list[_Item], responses: list[GenerationResponse]) -> None:
        now = utc_now()
        touched: dict[tuple[str, str, str], CellState] = {}
        for (state, index), response in zip(unit, responses, strict=True):
            plan = state.plan
            is_error = response.stop_reason == StopReason.ERROR
            estimate = self._estimate_cost(state)
            self.committed_estimate = max(0.0, self.committed_estimate - estimate)
            if self.price is not None:
                if response.prompt_tokens is None and response.completion_tokens is None:
                    self.spent += 0.0 if is_error else estimate
                else:
                    self.spent += cost_usd(
                        self.price, response.prompt_tokens or 0, response.completion_tokens or 0
                    )
            for kind in response.fault_kinds:
                self.faults[kind] += 1
            if is_error:
                self.summary.failed += 1
                kind = response.fault_kinds[-1] if response.fault_kinds else "error"
                self.failed_kinds[kind] += 1
                state.add_failure(index)
            else:
                self.summary.generated += 1
                state.add(index, response.text)
            self.buffer.append(
                SampleRecord(
                    template=plan.key[0],
                    subject=plan.key[1],
                    condition=plan.key[2],
                    sample_index=index,
                    named_gender=plan.named_gender,
                    prompt=plan.cell.prompt,
                    seed=sample_seed(self.opts.seed, plan.key, index),
                    text=None if is_error else response.text,
                    stop_reason=str(response.stop_reason),
                    error=response.error,
                    fault_kinds=",".join(response.fault_kinds) or None,
                    model_id=response.model_id,
                    prompt_tokens=response.prompt_tokens,
                    completion_tokens=response.completion_tokens,
                    latency_s=response.latency_s,
                    attempts=response.attempts,
                    created_at=now,
                )
            )
            touched[plan.key] = state
            if not is_error:
                self.progress.advance(plan.key, state.expected_total, len(state.texts))
        for state in touched.values():
            self._schedule(state)

    def _schedule(self, state: CellState) -> None:
        """Queue what a cell needs next (each sample at most once per session)."""
        decision = state.decide()
        key = state.plan.key
        if decision.status == NEED:
            for index in decision.missing:
                if (key, index) not in self.attempted:
                    self.attempted.add((key, index))
                    self.queue.append((state, index))
        else:
            self.dirty.add(key)
            self.progress.cell_finished(key)
        expected = state.expected_total
        if self.expected.get(key) != expected:
            self.expected[key] = expected
            self.progress.update_total(sum(self.expected.values()))

    def _estimate_cost(self, state: CellState) -> float:
        if self.price is None:
            return 0.0
        prompt = estimate_prompt_tokens(state.plan.cell.prompt, self.study.system_prompt)
        return cost_usd(self.price, prompt, self.decoding.max_tokens)

    # -- writing

    def _maybe_flush(self) -> None:
        if (
            len(self.buffer) >= self.opts.commit_rows
            or time.monotonic() - self.last_flush >= self.opts.commit_interval_s
        ):
            self._flush()

    def _flush(self) -> None:
        records, self.buffer = self.buffer, []
        if records:
            self.store.write_samples(records)
        if self.dirty:
            self.store.write_cells(self._cell_records(self.dirty))
            self.dirty = set()
        self.last_flush = time.monotonic()

    def _cell_records(self, keys: set[tuple[str, str, str]]) -> list[CellRecord]:
        records = []
        for key in keys:
            state = self.states[key]
            decision = state.decide()
            status, reason = decision.status, decision.reason
            if status == NEED:
                status = "incomplete"
                if state.failed:
                    reason = f"{len(state.failed)} sample(s) failed; run again to retry them"
                else:
                    reason = self.summary.stopped or "interrupted"
            counts = decision.counts
            records.append(
                CellRecord(
                    template=key[0],
                    subject=key[1],
                    condition=key[2],
                    status=status,
                    reason=reason,
                    n_samples=len(state.texts),
                    n_female=counts.get("F") if state.plan.adaptive else None,
                    n_male=counts.get("M") if state.plan.adaptive else None,
                )
            )
        return records

    def _finish(self) -> None:
        summary = self.summary
        by_status: collections.Counter[str] = collections.Counter()
        for key, state in self.states.items():
            decision = state.decide()
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
        # the samples are safe already; cells are derived data, recomputed on resume
        with contextlib.suppress(sqlite3.Error):
            self.store.write_cells(self._cell_records(set(self.states)))


__all__ = ["COMPLETE", "RunOptions", "RunSummary", "agenerate", "generate"]
