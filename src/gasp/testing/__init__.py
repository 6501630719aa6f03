"""Test helpers shared by the test suite and the benchmark scripts."""

from gasp.testing._fake_server import FAULT_KINDS, FakeOpenAIServer

__all__ = ["FAULT_KINDS", "FakeOpenAIServer"]
