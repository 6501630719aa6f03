"""Test helpers shared by the test suite and the benchmark scripts."""

from gasp.testing._coverage import (
    GROUPS,
    STATISTICS,
    PlantedWorld,
    expected_statistics,
    occupation_statistics,
    srb_from_masks,
)
from gasp.testing._fake_server import DEFAULT_TOP_LOGPROBS, FAULT_KINDS, FakeOpenAIServer

__all__ = [
    "DEFAULT_TOP_LOGPROBS",
    "FAULT_KINDS",
    "GROUPS",
    "STATISTICS",
    "FakeOpenAIServer",
    "PlantedWorld",
    "expected_statistics",
    "occupation_statistics",
    "srb_from_masks",
]
