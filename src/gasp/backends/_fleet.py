"""Several servers of one model behind one backend: a fleet of endpoints.

:class:`FleetBackend` sends each call to the serving endpoint with the fewest
calls outstanding (ties go round the endpoints in turn), so a slow server gets
fewer requests than a fast one. An endpoint whose calls fail ``drain_after``
times in a row with a transport fault (a refused or dropped connection, a
timeout, a 5xx answer) is *drained*: it gets no new calls, and the failed calls
raise as usual so that :class:`~gasp.backends.ResilientModel` retries them, on
another endpoint. A drained endpoint is probed (``GET /models``) after
``probe_after_s`` seconds, then after twice as long each time it still does not
answer (at most ``probe_max_s``), and serves again once it answers. When every
endpoint is drained, calls go to all of them (as a single server would get
them) and the first one that answers serves again.

The fleet only routes: retries, back-off, rate limits and the per-call timeout
stay with the wrapper, so a request is answered once, however many endpoints
it went to on the way.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from gasp.backends._base import Capability, ModelBackend
from gasp.backends._faults import classify_error
from gasp.backends._messages import (
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
)
from gasp.backends._options import Options
from gasp.backends._urls import redact_url
from gasp.errors import ConfigError

logger = logging.getLogger("gasp.backends")

T = TypeVar("T")

#: Fault kinds that count towards draining an endpoint (the server, not the request).
DRAIN_KINDS = frozenset({"connection", "timeout", "server_error", "unavailable"})

#: Backend options the fleet reads itself (the others go to every endpoint's backend).
FLEET_OPTIONS = ("drain_after", "probe_after_s", "probe_max_s", "probe_timeout_s")


@dataclasses.dataclass
class EndpointStats:
    """What one endpoint of a fleet did since the backend was made."""

    #: The endpoint's URL without user information, query or fragment.
    url: str
    #: Calls sent to it (every attempt counts, retries included).
    sent: int = 0
    #: Calls that came back with an answer.
    succeeded: int = 0
    #: Calls that raised a fault (retried by the wrapper, on another endpoint where
    #: one serves), by kind in ``failed_by_kind``.
    failed: int = 0
    failed_by_kind: dict[str, int] = dataclasses.field(default_factory=dict)
    #: Calls cancelled before an answer for another reason than the call timeout
    #: (the run stopping with calls under way).
    cancelled: int = 0
    #: Times it was drained, and seconds it spent drained.
    drained: int = 0
    drained_s: float = 0.0
    #: Whether it is drained now.
    drained_now: bool = False


class _Endpoint:
    """One server of the fleet and its routing state."""

    def __init__(self, index: int, url: str, backend: ModelBackend) -> None:
        self.index = index
        self.url = url
        self.backend = backend
        self.outstanding = 0
        self.streak = 0
        self.drained_at: float | None = None
        self.probe: asyncio.Task[None] | None = None
        self.stats = EndpointStats(url=redact_url(url) or url)


class FleetBackend(ModelBackend):
    """One model served by several endpoints; see the module docstring.

    Args:
        endpoints: ``(url, backend)`` pairs, one backend per server of the same
            model. A backend with an async ``ping()`` is probed with it while
            drained; one without serves again after the back-off.
        drain_after: consecutive transport faults that drain an endpoint.
        probe_after_s: seconds from draining to the first probe.
        probe_max_s: the longest wait between two probes.
        probe_timeout_s: how long a probe may take.
        clock: monotonic seconds (tests pass their own).

    ``call_timeout_s`` (set by the runner to the retry policy's timeout) tells
    a call cut short by the wrapper's timeout, which counts as a ``timeout``
    fault of its endpoint, from one cancelled because the run is stopping.
    """

    def __init__(
        self,
        endpoints: Sequence[tuple[str, ModelBackend]],
        *,
        drain_after: int = 3,
        probe_after_s: float = 2.0,
        probe_max_s: float = 60.0,
        probe_timeout_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if len(endpoints) < 1:
            raise ConfigError("a fleet needs at least one endpoint")
        check_distinct([url for url, _ in endpoints])
        if drain_after < 1:
            raise ConfigError(f"drain_after must be at least 1, got {drain_after}")
        if not 0 < probe_after_s <= probe_max_s:
            raise ConfigError("probe_after_s must be positive and at most probe_max_s")
        self._endpoints = [_Endpoint(i, url, b) for i, (url, b) in enumerate(endpoints)]
        self.drain_after = drain_after
        self.probe_after_s = probe_after_s
        self.probe_max_s = probe_max_s
        self.probe_timeout_s = probe_timeout_s
        self.call_timeout_s: float | None = None
        self._clock = clock
        self._turn = 0
        first = self._endpoints[0].backend
        self.model_id = first.model_id
        capabilities: frozenset[Capability] = first.capabilities
        for endpoint in self._endpoints[1:]:
            capabilities &= endpoint.backend.capabilities
        self.capabilities = capabilities

    @property
    def base_urls(self) -> tuple[str, ...]:
        """The endpoints' URLs, in the order given."""
        return tuple(e.url for e in self._endpoints)

    # -- calls -------------------------------------------------------------------

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """Generate on the least busy serving endpoint; its faults raise for the wrapper."""
        return await self._route(lambda backend: backend.generate(request))

    def check_score_request(self, request: ScoreRequest) -> None:
        """Refuse what the endpoints' backend cannot score (they all serve one model); the
        first endpoint's scoring method (exact or approximate) holds for all of them."""
        first = self._endpoints[0].backend
        first.check_score_request(request)
        method = getattr(first, "scoring_method", None)
        for endpoint in self._endpoints[1:]:
            if method is not None and getattr(endpoint.backend, "scoring_method", 0) is None:
                endpoint.backend.scoring_method = method  # type: ignore[attr-defined]
                endpoint.backend.scoring_note = "as the fleet's first endpoint"  # type: ignore[attr-defined]

    @property
    def scoring_method(self) -> str | None:
        """The first endpoint's scoring method (see :meth:`check_score_request`)."""
        return getattr(self._endpoints[0].backend, "scoring_method", None)

    @property
    def scoring_note(self) -> str:
        """Why the first endpoint scores as it does."""
        return str(getattr(self._endpoints[0].backend, "scoring_note", ""))

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        """Score on the least busy serving endpoint; its faults raise for the wrapper."""
        return await self._route(lambda backend: backend.score(request))

    async def aclose(self) -> None:
        """Stop the probes and close every endpoint's connections."""
        probes = [e.probe for e in self._endpoints if e.probe is not None]
        for probe in probes:
            probe.cancel()
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(p for p in probes if p.get_loop() is loop), return_exceptions=True)
        for endpoint in self._endpoints:
            endpoint.probe = None
            await endpoint.backend.aclose()

    # -- state -------------------------------------------------------------------

    def endpoint_stats(self) -> list[EndpointStats]:
        """A snapshot of every endpoint's counts, in the order the URLs were given."""
        now = self._clock()
        snapshot = []
        for endpoint in self._endpoints:
            stats = dataclasses.replace(
                endpoint.stats, failed_by_kind=dict(endpoint.stats.failed_by_kind)
            )
            if endpoint.drained_at is not None:
                stats.drained_s += now - endpoint.drained_at
                stats.drained_now = True
            snapshot.append(stats)
        return snapshot

    def mark_down(self, url: str) -> None:
        """Drain the endpoint at ``url`` now (for example: it refused connections at start)."""
        for endpoint in self._endpoints:
            if endpoint.url == url and endpoint.drained_at is None:
                self._drain(endpoint, "does not accept connections")
                return

    # -- routing -----------------------------------------------------------------

    def _pick(self) -> _Endpoint:
        serving = [e for e in self._endpoints if e.drained_at is None]
        pool = serving or self._endpoints
        count = len(self._endpoints)
        start = self._turn
        self._turn = (self._turn + 1) % count
        return min(pool, key=lambda e: (e.outstanding, (e.index - start) % count))

    async def _route(self, call: Callable[[ModelBackend], Awaitable[T]]) -> T:
        self._ensure_probes()
        endpoint = self._pick()
        endpoint.outstanding += 1
        endpoint.stats.sent += 1
        started = self._clock()
        try:
            result = await call(endpoint.backend)
        except asyncio.CancelledError:
            limit = self.call_timeout_s
            if limit is not None and self._clock() - started >= 0.9 * limit:
                self._failed(endpoint, "timeout")
            else:
                endpoint.stats.cancelled += 1
            raise
        except Exception as exc:
            self._failed(endpoint, classify_error(exc).kind)
            raise
        finally:
            endpoint.outstanding -= 1
        self._answered(endpoint)
        return result

    def _failed(self, endpoint: _Endpoint, kind: str) -> None:
        stats = endpoint.stats
        stats.failed += 1
        stats.failed_by_kind[kind] = stats.failed_by_kind.get(kind, 0) + 1
        if kind not in DRAIN_KINDS:
            endpoint.streak = 0  # the server answered; the fault is the request's
            return
        endpoint.streak += 1
        if endpoint.streak >= self.drain_after and endpoint.drained_at is None:
            self._drain(endpoint, f"{endpoint.streak} {kind} faults in a row")

    def _answered(self, endpoint: _Endpoint) -> None:
        endpoint.stats.succeeded += 1
        endpoint.streak = 0
        if endpoint.drained_at is not None:
            self._rejoin(endpoint)

    def _drain(self, endpoint: _Endpoint, why: str) -> None:
        endpoint.drained_at = self._clock()
        endpoint.stats.drained += 1
        logger.warning(
            "%s: endpoint %s drained (%s); probing it in %g s",
            self.model_id,
            endpoint.stats.url,
            why,
            self.probe_after_s,
        )
        self._start_probe(endpoint)

    def _rejoin(self, endpoint: _Endpoint) -> None:
        if endpoint.drained_at is None:
            return
        endpoint.stats.drained_s += self._clock() - endpoint.drained_at
        endpoint.drained_at = None
        endpoint.streak = 0
        probe, endpoint.probe = endpoint.probe, None
        if probe is not None and probe is not asyncio.current_task():
            probe.cancel()
        logger.warning("%s: endpoint %s serves again", self.model_id, endpoint.stats.url)

    # -- probes ------------------------------------------------------------------

    def _ensure_probes(self) -> None:
        for endpoint in self._endpoints:
            if endpoint.drained_at is not None:
                self._start_probe(endpoint)

    def _start_probe(self, endpoint: _Endpoint) -> None:
        """Start the endpoint's probe in the running loop unless one runs there already."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet: the first call in one starts it
            return
        probe = endpoint.probe
        if probe is not None and not probe.done() and probe.get_loop() is loop:
            return
        endpoint.probe = loop.create_task(self._probe(endpoint))

    async def _probe(self, endpoint: _Endpoint) -> None:
        delay = self.probe_after_s
        while endpoint.drained_at is not None:
            await asyncio.sleep(delay)
            if endpoint.drained_at is None:
                return
            if await self._answers(endpoint):
                self._rejoin(endpoint)
                return
            delay = min(2.0 * delay, self.probe_max_s)

    async def _answers(self, endpoint: _Endpoint) -> bool:
        ping = getattr(endpoint.backend, "ping", None)
        if ping is None:
            return True
        try:
            async with asyncio.timeout(self.probe_timeout_s):
                await ping()
        except Exception:  # any failure means: not yet
            return False
        return True


def check_distinct(urls: Sequence[str]) -> None:
    """Raise :class:`ConfigError` when a URL is given twice."""
    repeated = next((u for i, u in enumerate(urls) if u in urls[:i]), None)
    if repeated is not None:
        raise ConfigError(f"base URL {redact_url(repeated)} is given twice")


def split_fleet_options(
    options: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` split into the fleet's own (:data:`FLEET_OPTIONS`) and the rest."""
    given = dict(options or {})
    own = {k: v for k, v in given.items() if k in FLEET_OPTIONS}
    return own, {k: v for k, v in given.items() if k not in FLEET_OPTIONS}


def openai_fleet(
    model: str,
    *,
    provider: str,
    base_urls: Sequence[str],
    api_key: str | None,
    options: Mapping[str, Any] | None,
) -> FleetBackend:
    """A fleet of :class:`~gasp.backends._openai.OpenAIBackend` endpoints, one per URL.

    The fleet's own options (``drain_after``, ``probe_after_s``, ``probe_max_s``,
    ``probe_timeout_s``) are read here; the others go to every endpoint.
    """
    from gasp.backends._openai import OpenAIBackend

    check_distinct(base_urls)
    own, rest = split_fleet_options(options)
    opts = Options(own, provider=f"{provider}/{model}")
    drain_after = opts.get_int("drain_after", 3, minimum=1)
    probe_after_s = opts.get_float("probe_after_s", 2.0, minimum=0.001)
    probe_max_s = opts.get_float("probe_max_s", 60.0, minimum=0.001)
    probe_timeout_s = opts.get_float("probe_timeout_s", 5.0, minimum=0.001)
    endpoints: list[tuple[str, ModelBackend]] = [
        (
            url,
            OpenAIBackend(
                model,
                provider=provider,
                base_url=url,
                api_key=api_key,
                options=rest,
                fatal_unreachable=False,
            ),
        )
        for url in base_urls
    ]
    return FleetBackend(
        endpoints,
        drain_after=drain_after,
        probe_after_s=probe_after_s,
        probe_max_s=probe_max_s,
        probe_timeout_s=probe_timeout_s,
    )
