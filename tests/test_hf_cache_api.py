"""Cached scoring uses transformers' current cache API and stays exact.

A tiny random Llama (built in memory, no file) is scored three ways: the cached
strategy, the joint strategy and a plain forward pass per token. No deprecation
warning about ``past_key_values`` may come from gasp's calls (the suite's
``filterwarnings`` makes one an error as well).
"""

from __future__ import annotations

import warnings

import pytest

from gasp.backends._hf_scoring import EncodedRequest, cache_keyword, score_joint, score_with_cache

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

CONTEXT = (1, 5, 9, 2, 7)
CANDIDATES = ((3,), (4, 8, 6), (11, 12), (), (3, 3, 3, 3))


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    config = transformers.LlamaConfig(
        vocab_size=32,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config).eval()


def _manual(model, ids: tuple[int, ...]) -> float:  # type: ignore[no-untyped-def]
    total = 0.0
    prefix = list(CONTEXT)
    with torch.inference_mode():
        for token in ids:
            logits = model(torch.tensor([prefix])).logits[0, -1].float()
            total += float(torch.log_softmax(logits, dim=-1)[token])
            prefix.append(token)
    return total


def test_cached_and_joint_scores_equal_the_chain_rule_without_deprecation_warnings(
    model,  # type: ignore[no-untyped-def]
) -> None:
    enc = EncodedRequest(CONTEXT, CANDIDATES)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*past_key_values.*")
        warnings.filterwarnings("error", category=FutureWarning)
        with torch.inference_mode():
            cached = score_with_cache(model, enc, "cpu", pad_id=0)
            (joint,) = score_joint(model, [enc], "cpu", pad_id=0)
    expected = [_manual(model, ids) for ids in CANDIDATES]
    assert expected[3] == 0.0 and all(v < 0 for i, v in enumerate(expected) if i != 3)
    assert cached == pytest.approx(expected, abs=1e-5)
    assert joint == pytest.approx(expected, abs=1e-5)


def test_the_cache_goes_under_the_name_this_transformers_takes(model) -> None:  # type: ignore[no-untyped-def]
    import inspect

    parameters = inspect.signature(model.get_decoder().forward).parameters
    keyword = cache_keyword(model.get_decoder())
    assert keyword in parameters
    # the deprecated name only where the current one does not exist
    assert (keyword == "past_key_values") == ("cache" not in parameters)


def test_joint_passes_sorted_by_length_keep_each_score_with_its_candidate(model) -> None:  # type: ignore[no-untyped-def]
    encs = [
        EncodedRequest(CONTEXT, CANDIDATES),
        EncodedRequest((4, 4), ((7, 1, 2, 3, 5, 6), (9,))),
        EncodedRequest((2, 8, 10, 12, 14, 16, 18), ((1,), (), (13, 3))),
    ]
    with torch.inference_mode():
        joint = score_joint(model, encs, "cpu", pad_id=0, rows_per_pass=2)
        cached = [score_with_cache(model, enc, "cpu", pad_id=0) for enc in encs]
    for got, expected in zip(joint, cached, strict=True):
        assert got == pytest.approx(expected, abs=1e-5)
    assert joint[2][1] == 0.0  # the empty candidate
