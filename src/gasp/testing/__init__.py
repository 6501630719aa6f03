"""Test helpers shared by the test suite and the benchmark scripts."""

from gasp.testing._coverage import (
    GROUPS,
    STATISTICS,
    PlantedWorld,
    expected_statistics,
    occupation_statistics,
    srb_from_masks,
    srb_set_sizes,
)
from gasp.testing._fake_hostile import HOSTILE_KINDS
from gasp.testing._fake_prompt import (
    PROMPT_LOGPROBS,
    fake_logprob,
    fake_token_id,
    fake_tokens,
    render_chat,
)
from gasp.testing._fake_server import DEFAULT_TOP_LOGPROBS, FAULT_KINDS, FakeOpenAIServer
from gasp.testing._paired_srb import PairedSRBWorld, paired_srb_scores

__all__ = [
    "DEFAULT_TOP_LOGPROBS",
    "FAULT_KINDS",
    "GROUPS",
    "HOSTILE_KINDS",
    "PROMPT_LOGPROBS",
    "STATISTICS",
    "FakeOpenAIServer",
    "PairedSRBWorld",
    "PlantedWorld",
    "expected_statistics",
    "fake_logprob",
    "fake_token_id",
    "fake_tokens",
    "occupation_statistics",
    "paired_srb_scores",
    "render_chat",
    "srb_from_masks",
    "srb_set_sizes",
]
