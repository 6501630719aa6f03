"""How to run a study (:class:`RunOptions`) and what a run did (:class:`RunSummary`)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gasp.backends import (
    DecodingConfig,
    EndpointStats,
    RetryPolicy,
    check_distinct,
    refuse_credentials,
)
from gasp.errors import ConfigError
from gasp.runner._plan import PlanEstimate

#: The environment variable that sets the seconds between polls of a batch.
BATCH_POLL_ENV = "GASP_BATCH_POLL_S"
DEFAULT_BATCH_POLL_S = 30.0


@dataclass(frozen=True)
class BatchOptions:
    """How a run goes through a provider's batch API (``--batch``).

    ``max_requests`` and ``max_bytes`` bound one batch (the OpenAI Batch API takes at
    most 50,000 requests and 200 MB per input file); a run needing more is split.
    ``poll_interval_s``: seconds between polls (None: the ``GASP_BATCH_POLL_S``
    environment variable, else 30). ``retry_rounds``: how many times one session
    resubmits the samples that failed (lines with errors, an expired, failed or
    cancelled batch) before it stops, leaving them to the next run.
    """

    max_requests: int = 50_000
    max_bytes: int = 200_000_000
    poll_interval_s: float | None = None
    retry_rounds: int = 3

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an impossible setting."""
        if self.max_requests < 1 or self.max_bytes < 1:
            raise ConfigError("a batch needs room for at least one request")
        if self.retry_rounds < 0:
            raise ConfigError(f"retry_rounds must be non-negative, got {self.retry_rounds}")
        self.interval_s()

    def interval_s(self) -> float:
        """Seconds between polls: the setting, else the environment variable, else 30."""
        value: float | str | None = self.poll_interval_s
        if value is None:
            value = os.environ.get(BATCH_POLL_ENV) or DEFAULT_BATCH_POLL_S
        try:
            seconds = float(value)
        except ValueError:
            raise ConfigError(
                f"{BATCH_POLL_ENV} must be a number of seconds, got {value!r}"
            ) from None
        if not seconds >= 0:
            raise ConfigError(f"the batch poll interval must be non-negative, got {seconds}")
        return seconds


@dataclass(frozen=True)
class RunOptions:
    """How to run a study.

    ``seed`` is the run seed (per-sample seeds derive from it and the sample key);
    ``max_requests`` and ``max_cost`` (USD, priced ``openai/`` models only) stop the
    run cleanly, leaving a store the same command resumes. ``backend_options`` go to
    the backend (for example ``latency_s`` for ``mock/...``). ``progress_interval_s``:
    seconds between plain progress lines when the output is not a terminal (None: the
    ``GASP_PROGRESS_INTERVAL_S`` environment variable, else 30). ``base_url`` and
    ``base_urls`` name the servers of an ``openai-compatible/`` model: several
    spread the requests over a fleet (see :class:`gasp.backends.FleetBackend`).
    ``batch``: send the requests through the provider's batch API (half price, answers
    within 24 hours). ``wait_for_lock``: when another process is generating into the
    same store, wait for it to finish instead of refusing (see
    :class:`gasp.store.StoreLock`).
    """

    decoding: DecodingConfig = field(default_factory=DecodingConfig)
    seed: int = 0
    max_concurrency: int = 16
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_requests: int | None = None
    max_cost: float | None = None
    dry_run: bool = False
    base_url: str | None = None
    base_urls: Sequence[str] = ()
    api_key_env: str | None = None
    progress: bool = True
    progress_interval_s: float | None = None
    backend_options: Mapping[str, Any] | None = None
    batch: BatchOptions | None = None
    wait_for_lock: bool = False

    def endpoint_urls(self) -> list[str]:
        """Every server URL given: ``base_url`` first, then ``base_urls``."""
        return ([self.base_url] if self.base_url else []) + list(self.base_urls)

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an impossible option."""
        if isinstance(self.base_urls, str):
            raise ConfigError("base_urls must be a list of URLs, not one string")
        for url in self.endpoint_urls():
            refuse_credentials(url)
        check_distinct(self.endpoint_urls())
        if self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed}")
        if self.max_concurrency < 1:
            raise ConfigError(f"max_concurrency must be at least 1, got {self.max_concurrency}")
        if self.max_requests is not None and self.max_requests < 1:
            raise ConfigError(f"max_requests must be at least 1, got {self.max_requests}")
        if self.max_cost is not None and not self.max_cost > 0:
            raise ConfigError(f"max_cost must be a positive number of USD, got {self.max_cost}")
        if self.progress_interval_s is not None and not self.progress_interval_s > 0:
            raise ConfigError(
                f"progress_interval_s must be positive, got {self.progress_interval_s}"
            )
        if self.batch is not None:
            self.batch.validate()


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
    skipped: dict[tuple[str, ...], str] = field(default_factory=dict)
    capped: dict[tuple[str, ...], str] = field(default_factory=dict)
    cells_by_status: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    cost_usd: float | None = None
    #: Why the session stopped early (a budget), or None.
    stopped: str | None = None
    complete: bool = False
    elapsed_s: float = 0.0
    #: Per-server counts when the model is served by several base URLs (else empty).
    endpoints: list[EndpointStats] = field(default_factory=list)
    #: Sent through the provider's batch API; batches submitted and resumed this session.
    batch: bool = False
    #: Requests per call of a batching (local) backend, and how that size was chosen.
    batch_size: int = 0
    batching: str = ""
    batches_submitted: int = 0
    batches_resumed: int = 0
    #: How generation prompts were sent: ``chat`` or ``completion`` (see ``_forms``).
    prompt_form: str = "chat"

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form (recorded in the store's ``sessions`` table)."""
        data = dataclasses.asdict(self)
        data["skipped"] = {"/".join(k): v for k, v in self.skipped.items()}
        data["capped"] = {"/".join(k): v for k, v in self.capped.items()}
        data["estimate"] = None if self.estimate is None else dataclasses.asdict(self.estimate)
        return data
