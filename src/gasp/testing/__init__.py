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
from gasp.testing._paired_srb import PairedSRBWorld, paired_srb_scores

__all__ = [
    "DEFAULT_TOP_LOGPROBS",
    "FAULT_KINDS",
    "GROUPS",
    "STATISTICS",
    "FakeOpenAIServer",
    "PairedSRBWorld",
    "PlantedWorld",
    "expected_statistics",
    "occupation_statistics",
    "paired_srb_scores",
    "srb_from_masks",
]
