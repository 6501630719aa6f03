"""Test helpers shared by the test suite and the benchmark scripts."""

from gasp.testing._fake_server import DEFAULT_TOP_LOGPROBS, FAULT_KINDS, FakeOpenAIServer

__all__ = ["DEFAULT_TOP_LOGPROBS", "FAULT_KINDS", "FakeOpenAIServer"]
