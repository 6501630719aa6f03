"""How often and how patiently the wrapper retries a failed call."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gasp.errors import ConfigError


@dataclass(frozen=True)
class RetryPolicy:
    """Retries with exponential backoff and jitter, and a timeout per call.

    The delay after the ``n``-th failed attempt is
    ``min(max_delay_s, base_delay_s * 2 ** (n - 1))``, shrunk by a random share of
    at most ``jitter`` (``0`` keeps it exact, ``1`` is "full jitter"). A rate-limit
    answer waits at least the server's ``Retry-After`` (capped at ``max_delay_s``).
    ``timeout_s`` bounds one call to the backend (one request, or one batch per
    request in it for batching backends), counted from when the call reaches the
    model (not while it waits for the model's lock); ``None`` disables it.
    ``deadline_s`` bounds one request as a whole, its attempts and the waits between
    them included, from its first attempt: no attempt starts past it, and none runs
    beyond it (a server that trickles its answer a byte a second is given up on at the
    deadline, not after ``max_attempts`` timeouts); ``None`` disables it.
    """

    max_attempts: int = 5
    base_delay_s: float = 0.5
    max_delay_s: float = 60.0
    jitter: float = 0.5
    timeout_s: float | None = 120.0
    deadline_s: float | None = 300.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be at least 1, got {self.max_attempts}")
        for name in ("base_delay_s", "max_delay_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ConfigError(f"{name} must be a non-negative number, got {value}")
        if not (0.0 <= self.jitter <= 1.0):
            raise ConfigError(f"jitter must be between 0 and 1, got {self.jitter}")
        for name in ("timeout_s", "deadline_s"):
            value = getattr(self, name)
            if value is not None and not (value > 0 and math.isfinite(value)):
                raise ConfigError(f"{name} must be a positive number or None, got {value}")

    def backoff_s(self, failures: int, u: float = 0.0) -> float:
        """The delay after ``failures`` failed attempts; ``u`` is a uniform draw in [0, 1)."""
        raw = min(self.max_delay_s, self.base_delay_s * 2.0 ** max(0, failures - 1))
        return raw * (1.0 - self.jitter * u)

    def wait_s(self, failures: int, u: float = 0.0, retry_after_s: float | None = None) -> float:
        """The delay before the next attempt, honouring a server's ``Retry-After``."""
        backoff = self.backoff_s(failures, u)
        if retry_after_s is None:
            return backoff
        return min(self.max_delay_s, max(backoff, retry_after_s))
