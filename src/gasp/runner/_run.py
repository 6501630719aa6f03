"""The runner's entry points: run a study's items against a model into a run store.

``generate`` validates everything it can before it creates or opens the store (a
bad option, an unknown provider, a missing key, a capability the backend lacks, an
unreachable server or a store made for another run leave the file untouched), then
streams requests through :class:`gasp.backends.ResilientModel` (see
:mod:`gasp.runner._loop`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console

from gasp.backends import (
    Capability,
    DecodingConfig,
    FleetBackend,
    ModelBackend,
    ResilientModel,
    ScoreRequest,
    batch_price,
    check_model_available,
    parse_model_spec,
    price_per_mtok,
    redact_url,
    require_capability,
    resolve_backend,
)
from gasp.errors import BackendError, ConfigError
from gasp.runner._batch import BatchRun, batch_client_for, check_batch_model, warn_open_batches
from gasp.runner._forms import apply_prompt_form
from gasp.runner._items import Plannable, RequestKind, StudyPlan, as_plan
from gasp.runner._loop import ItemLoop
from gasp.runner._manifest import build_manifest, check_identity, run_identity
from gasp.runner._plan import build_request, estimate_plan
from gasp.runner._signals import SignalStop, stop_on_signals
from gasp.runner._summary import RunOptions, RunSummary
from gasp.runner._sync import run_sync
from gasp.store import (
    ItemRecord,
    LockHolder,
    RunStore,
    StoreLock,
    count_answers,
    read_manifest,
    remove_store,
)

logger = logging.getLogger("gasp.runner")


def generate(
    study: StudyPlan | Plannable,
    model: str | ModelBackend,
    store_path: str | Path | None,
    options: RunOptions | None = None,
    *,
    console: Console | None = None,
) -> RunSummary:
    """Run ``study`` (a study object or its :class:`StudyPlan`) against ``model`` (a
    ``provider/model`` string or a backend), storing every answer in the SQLite file
    ``store_path``; resume where a previous run stopped.

    With ``options.dry_run`` nothing is generated or written (``store_path`` may be
    None) and the summary's ``estimate`` holds the planned requests, tokens and cost.

    Synchronous wrapper around :func:`agenerate`.
    """
    return run_sync(agenerate(study, model, store_path, options, console=console))


async def agenerate(
    study: StudyPlan | Plannable,
    model: str | ModelBackend,
    store_path: str | Path | None,
    options: RunOptions | None = None,
    *,
    console: Console | None = None,
) -> RunSummary:
    """The async runner behind :func:`generate`.

    SIGINT, SIGTERM and SIGHUP stop it cleanly (see :mod:`gasp.runner._signals`): every
    answer received is in the store, and :class:`gasp.errors.Interrupted` is raised.
    """
    with stop_on_signals() as stop:
        try:
            summary = await _agenerate(
                study, model, store_path, options, console=console, stop=stop
            )
        except asyncio.CancelledError:
            interrupted = None if stop is None else stop.interrupted()
            if interrupted is not None:
                raise interrupted from None
            raise
        interrupted = None if stop is None else stop.interrupted()
        if interrupted is not None:  # drained: every answer under way was committed
            raise interrupted
        return summary


async def _agenerate(
    study: StudyPlan | Plannable,
    model: str | ModelBackend,
    store_path: str | Path | None,
    options: RunOptions | None,
    *,
    console: Console | None,
    stop: SignalStop | None,
) -> RunSummary:
    opts = options or RunOptions()
    opts.validate()
    plan = apply_prompt_form(as_plan(study), model, opts.backend_options)
    if store_path is None and not opts.dry_run:
        raise ConfigError("a run store path is needed (only a dry run goes without one)")
    path = Path(store_path if store_path is not None else "")
    decoding = dataclasses.replace(opts.decoding, seed=opts.seed)
    spec = model if isinstance(model, str) else f"instance/{model.model_id}"
    if isinstance(model, str):
        parse_model_spec(model)
    if opts.batch is not None:
        check_batch_model(model)
    price = price_per_mtok(spec)
    if price is not None and opts.batch is not None:
        price = batch_price(price)
    if opts.max_cost is not None and price is None:
        raise ConfigError(
            f"max_cost needs a model with a known price (openai/<model>); {spec!r} has none"
        )
    identity = run_identity(plan, spec, decoding, opts.seed)
    summary = RunSummary(
        study=plan.name, store_path="" if store_path is None else str(path), model=spec
    )
    summary.batch = opts.batch is not None
    summary.prompt_form = plan.prompt_form
    if opts.dry_run:
        summary.dry_run = True
        summary.estimate = estimate_plan(plan, spec, decoding, batch=summary.batch)
        if store_path is not None and path.is_file():
            existing = read_manifest(path)
            if existing is not None:
                check_identity(existing, identity, path)
        return summary
    session = await _prepare(plan, model, path, opts, identity, summary)
    lock = StoreLock(path)
    try:
        await _lock_store(lock, opts.wait_for_lock, console)
        # Decided before the lock was held: a store with no answer of another run starts
        # afresh, unless a process that held the lock meanwhile stored answers in it.
        if session.fresh and not count_answers(path):
            _note(console, f"{path} held no answer of its earlier run; it starts afresh")
            remove_store(path)
        elif session.fresh:
            existing = read_manifest(path)
            if existing is not None:
                check_identity(existing, identity, path, session.backend.generation_engine)
        store = RunStore.open(path, create=True)
    except BaseException:
        lock.release()
        await session.aclose()
        raise
    backend, client, wrapper = session.backend, session.client, session.wrapper
    assert wrapper is not None
    try:
        if not store.has_manifest():
            store.write_manifest(
                build_manifest(
                    plan,
                    spec,
                    backend,
                    decoding,
                    seed=opts.seed,
                    base_url=opts.endpoint_urls(),
                    api_key_env=opts.api_key_env,
                )
            )
        store.write_items(item_records(plan))
        loop = ItemLoop(plan, store, wrapper, opts, decoding, summary, price, console)
        loop.stop = stop
        if client is None or opts.batch is None:
            warn_open_batches(store.batch_ledger(), console)
            await loop.run()
        else:
            await BatchRun(loop, client, store.batch_ledger(), opts.batch).run()
    finally:
        store.close()
        lock.release()
        await session.aclose()
    # a failed run (exit 1), not one with nothing to analyse; a provider batch run's
    # failed batches are its summary's (the next run submits them again)
    failure = loop.all_failed() if opts.batch is None else None
    if failure is not None:
        raise failure
    return summary


@dataclasses.dataclass
class _Session:
    """What the checks before a run made: the backend, its batch client and wrapper, and
    whether the store at the path must start afresh (it holds another run, no answer)."""

    backend: ModelBackend
    owns_backend: bool
    client: Any = None
    wrapper: ResilientModel | None = None
    fresh: bool = False

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
        if self.owns_backend:
            await (self.wrapper or self.backend).aclose()


async def _prepare(
    plan: StudyPlan,
    model: str | ModelBackend,
    path: Path,
    opts: RunOptions,
    identity: dict[str, Any],
    summary: RunSummary | None,
) -> _Session:
    """Every check before the store is created or opened; with ``summary`` None only the
    checks (no wrapper, nothing loaded)."""
    if path.is_dir():
        raise ConfigError(f"--out {path} is a directory; give a .sqlite file path")
    spec = model if isinstance(model, str) else f"instance/{model.model_id}"
    session = _Session(_make_backend(model, opts), owns_backend=isinstance(model, str))
    backend = session.backend
    try:
        check_capabilities(plan, backend, spec)
        urls = opts.endpoint_urls()
        if opts.batch is not None:
            if len(urls) > 1:
                raise ConfigError(
                    f"--batch sends a run to one provider; give one --base-url, not {len(urls)}"
                )
            session.client = batch_client_for(backend, plan)
        if len(urls) == 1:
            check_reachable(urls[0])
        elif urls:
            check_fleet(urls, backend)
        if isinstance(model, str):
            check_model_available(
                model,
                base_urls=urls,
                api_key_env=opts.api_key_env,
                options=opts.backend_options,
            )
        if isinstance(backend, FleetBackend):
            backend.call_timeout_s = opts.retry.timeout_s
        if path.exists():
            existing = read_manifest(path)
            if existing is not None:
                try:
                    check_identity(existing, identity, path, backend.generation_engine)
                except ConfigError:
                    if count_answers(path):
                        raise
                    session.fresh = True
        if summary is None:
            return session
        # A batching (local) backend runs one batch at a time on its device: calls
        # beyond the first would only queue inside the backend, where the wrapper's
        # timeout would count their waiting time.
        concurrency = 1 if backend.supports_batching else opts.max_concurrency
        session.wrapper = ResilientModel(backend, max_concurrency=concurrency, retry=opts.retry)
        if backend.supports_batching:
            summary.batch_size = session.wrapper.batch_size
            summary.batching = backend.batching_note()
    except BaseException:
        await session.aclose()
        raise
    return session


def _note(console: Console | None, line: str) -> None:
    if console is not None:
        console.print(line)
    else:
        logger.warning(line)


def check_generation(
    study: StudyPlan | Plannable,
    model: str,
    store_path: str | Path,
    options: RunOptions | None = None,
) -> None:
    """Every check :func:`generate` makes before it creates or opens the store (options,
    model, key, server, capabilities, model list, the run a store holds), without
    creating, opening or loading anything: a command runs it before it prints."""
    run_sync(_check(study, model, Path(store_path), options or RunOptions()))


async def _check(study: StudyPlan | Plannable, model: str, path: Path, opts: RunOptions) -> None:
    opts.validate()
    parse_model_spec(model)
    plan = apply_prompt_form(as_plan(study), model, opts.backend_options)
    decoding = dataclasses.replace(opts.decoding, seed=opts.seed)
    if opts.batch is not None:
        check_batch_model(model)
    if opts.max_cost is not None and price_per_mtok(model) is None:
        raise ConfigError(
            f"max_cost needs a model with a known price (openai/<model>); {model!r} has none"
        )
    identity = run_identity(plan, model, decoding, opts.seed)
    session = await _prepare(plan, model, path, opts, identity, None)
    await session.aclose()


async def _lock_store(lock: StoreLock, wait: bool, console: Console | None) -> None:
    """Take the store's lock; another holder refuses the run, or with ``wait`` delays it."""

    def tell(holder: LockHolder) -> None:
        line = f"waiting for {holder.describe()} to finish generating {lock.store}"
        if console is not None:
            console.print(line)
        else:
            logger.warning(line)

    if wait:
        # Poll without blocking the event loop (a backend may run tasks on it).
        told = False
        while (holder := lock.try_acquire()) is not None:
            if not told:
                tell(holder)
                told = True
            await asyncio.sleep(0.2)
    else:
        await asyncio.to_thread(lock.acquire)


def check_capabilities(plan: StudyPlan, backend: ModelBackend, spec: str) -> None:
    """Raise one clear error, before any request, when ``backend`` cannot serve ``plan``."""
    kinds = set(plan.kinds)
    if RequestKind.GENERATE in kinds:
        require_capability(backend, Capability.GENERATE, f"study {plan.name}")
    if RequestKind.SCORE in kinds:
        require_capability(backend, Capability.SCORE, f"study {plan.name}")
        check = getattr(backend, "check_score_request", None)
        if check is not None:
            checked: set[tuple[str, tuple[str, ...]]] = set()
            for item in plan.items:
                shape = (str(item.chat), item.candidates)
                if item.kind is RequestKind.SCORE and shape not in checked:
                    checked.add(shape)
                    request = build_request(
                        item,
                        0,
                        decoding=DecodingConfig(),
                        run_seed=0,
                        system_prompt=plan.system_prompt,
                    )
                    assert isinstance(request, ScoreRequest)
                    check(request)


def item_records(plan: StudyPlan) -> list[ItemRecord]:
    """The store records of a plan's items, in the plan's order."""
    return [
        ItemRecord(
            item_id=item.item_id,
            ordinal=ordinal,
            kind=str(item.kind),
            prompt=item.prompt,
            attributes=item.attributes,
            messages=item.messages(plan.system_prompt),
            candidates=item.candidates,
        )
        for ordinal, item in enumerate(plan.items)
    ]


def _make_backend(model: str | ModelBackend, opts: RunOptions) -> ModelBackend:
    if not isinstance(model, str):
        return model
    return resolve_backend(
        model,
        base_url=opts.endpoint_urls(),
        api_key_env=opts.api_key_env,
        options=opts.backend_options,
    )


def check_fleet(urls: Sequence[str], backend: ModelBackend, timeout_s: float = 5.0) -> None:
    """Check every server of a fleet: a malformed URL, or none accepting connections,
    raises :class:`BackendError`; a server that is down now starts drained."""
    down: list[tuple[str, BackendError]] = []
    for url in urls:
        _host_and_port(url)
        try:
            check_reachable(url, timeout_s)
        except BackendError as refused:
            down.append((url, refused))
    if len(down) == len(urls):
        raise down[0][1]
    for url, error in down:
        logger.warning("%s; it starts drained and is probed until it answers", error)
        if isinstance(backend, FleetBackend):
            backend.mark_down(url)


def check_reachable(base_url: str, timeout_s: float = 5.0) -> None:
    """Raise :class:`BackendError` when nothing accepts connections at ``base_url``."""
    host, port = _host_and_port(base_url)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise BackendError(f"cannot reach {redact_url(base_url)}: {reason}") from None


def _host_and_port(base_url: str) -> tuple[str, int]:
    """The host and port of ``base_url``; :class:`BackendError` when it is not an HTTP URL."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BackendError(
            f"base URL must look like http://host:port/v1, got {redact_url(base_url)}"
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise BackendError(f"base URL has an invalid port: {redact_url(base_url)}") from None
    return parts.hostname, port


__all__ = [
    "RunOptions",
    "RunSummary",
    "agenerate",
    "check_capabilities",
    "check_generation",
    "generate",
]
