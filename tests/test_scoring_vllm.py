"""vLLM scoring without vLLM: the request translation and the extraction from its outputs."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import Any

import pytest

from gasp.backends import Capability, ChatMessage, ScoreRequest
from gasp.backends._hf_scoring import EncodedRequest
from gasp.backends._vllm import VLLMBackend, candidate_logprobs, score_prompts

pytest.importorskip("torch")  # the shared tokenization module imports it


class CharTokenizer:
    """One token per character (its code point); a chat template of ``<role>content``."""

    bos_token_id = None

    def __call__(self, text: str | list[str], add_special_tokens: bool = True) -> dict[str, Any]:
        if isinstance(text, list):
            return {"input_ids": [[ord(c) for c in one] for one in text]}
        return {"input_ids": [ord(c) for c in text]}

    def apply_chat_template(self, messages: list[dict[str, str]], **kwargs: Any) -> str:
        assert kwargs == {"tokenize": False, "add_generation_prompt": True}
        return "".join(f"<{m['role']}>{m['content']}" for m in messages) + "<assistant>"

    def decode(self, ids: list[int]) -> str:
        return "".join(chr(i) for i in ids)


@dataclass
class Logprob:
    logprob: float


def _lp(position: int, token: int) -> float:
    """The fake engine's log-probability of ``token`` at prompt ``position``."""
    return -0.01 * position - (token % 7) / 10


@dataclass
class FakeOutput:
    prompt_token_ids: list[int]

    @property
    def prompt_logprobs(self) -> list[dict[int, Logprob] | None]:
        ids = self.prompt_token_ids
        return [None] + [{t: Logprob(_lp(i, t))} for i, t in enumerate(ids) if i > 0]


class FakeLLM:
    def __init__(self) -> None:
        self.calls: list[tuple[list[Any], Any]] = []

    def get_tokenizer(self) -> CharTokenizer:
        return CharTokenizer()

    def generate(self, prompts: list[Any], sampling_params: Any, use_tqdm: bool) -> list[Any]:
        self.calls.append((prompts, sampling_params))
        return [FakeOutput(p["prompt_token_ids"]) for p in prompts]


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    module = types.SimpleNamespace(SamplingParams=lambda **kw: dict(kw))
    monkeypatch.setitem(sys.modules, "vllm", module)
    return module


def _expected(context: str, candidate: str) -> float:
    start = len(context)
    return sum(_lp(start + j, ord(c)) for j, c in enumerate(candidate))


def test_prompts_are_context_then_candidate_token_ids() -> None:
    encs = [EncodedRequest((1, 2), ((3,), (4, 5))), EncodedRequest((9,), ((8,),))]
    assert score_prompts(encs) == [
        {"prompt_token_ids": [1, 2, 3]},
        {"prompt_token_ids": [1, 2, 4, 5]},
        {"prompt_token_ids": [9, 8]},
    ]


def test_scores_are_summed_prompt_logprobs_at_the_candidate_positions(fake_vllm: Any) -> None:
    backend = VLLMBackend.from_spec("some/model")
    assert Capability.SCORE in backend.capabilities
    llm = FakeLLM()
    backend._llm = llm
    chat = (ChatMessage("user", "hi"),)
    requests = [ScoreRequest("raw", "Q:", (" he", " she")), ScoreRequest("chat", chat, ("x",))]
    responses = backend._score_sync(requests)
    ((prompts, params),) = llm.calls
    assert params == {"max_tokens": 1, "prompt_logprobs": 0, "temperature": 0.0}
    assert len(prompts) == 3
    raw, chat_response = responses
    assert [s.logprob for s in raw.scores] == pytest.approx(
        [_expected("Q:", " he"), _expected("Q:", " she")]
    )
    assert raw.scores[1].tokens == (" ", "s", "h", "e")
    assert raw.scores[1].token_ids == tuple(map(ord, " she"))
    assert not raw.scores[0].approximate and raw.model_id == "vllm/some/model"
    assert raw.prompt_tokens == 2
    assert chat_response.scores[0].logprob == pytest.approx(_expected("<user>hi<assistant>", "x"))


def test_a_short_output_list_is_a_malformed_answer() -> None:
    from gasp.backends import TransientBackendError

    with pytest.raises(TransientBackendError, match="1 of 2"):
        candidate_logprobs([EncodedRequest((1,), ((2,), (3,)))], [FakeOutput([1, 2])])
