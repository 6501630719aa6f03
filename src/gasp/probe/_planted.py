"""Planted cluster structures of known k, for checking how well a rule recovers k.

:func:`planted_clusters` draws ``k`` cluster centres at random in ``dim`` dimensions
(standard normal, times ``separation``) and around each a cluster of points with
standard normal noise; the cluster sizes vary between ``min_size`` and ``max_size``.
Since the probe scales vectors to unit length, ``separation`` is relative to the noise:
two centres lie about ``separation * sqrt(2 * dim)`` apart against a noise of 1 per
dimension.
"""

from __future__ import annotations

import numpy as np


def planted_clusters(
    k: int,
    rng: np.random.Generator,
    *,
    dim: int = 50,
    separation: float = 0.6,
    min_size: int = 15,
    max_size: int = 60,
) -> tuple[np.ndarray, np.ndarray]:
    """Points of ``k`` planted clusters and the cluster of each point."""
    centres = rng.normal(size=(k, dim)) * separation
    sizes = rng.integers(min_size, max_size + 1, size=k)
    labels = np.repeat(np.arange(k), sizes)
    points = centres[labels] + rng.normal(size=(labels.size, dim))
    return points, labels
