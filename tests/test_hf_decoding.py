"""Static-cache greedy decoding gives ``model.generate``'s tokens, on a tiny random Llama.

The decoder's steps run eagerly on the CPU (a CUDA graph replays the same step on
a GPU). Prompts are left-padded to different lengths; answers end at an
end-of-sequence token or at the length limit.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from gasp.backends._hf_decoding import (  # noqa: E402
    LENGTH_STEP,
    StaticDecoder,
    grouped_attention,
    supports,
)

PAD = 0


def _model(attention: str):  # type: ignore[no-untyped-def]
    config = transformers.LlamaConfig(
        vocab_size=40,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        attn_implementation=attention,
    )
    torch.manual_seed(1)
    return transformers.LlamaForCausalLM(config).eval()


def _batch(prompts: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, prompts))
    ids = [[PAD] * (width - len(p)) + p for p in prompts]
    mask = [[0] * (width - len(p)) + [1] * len(p) for p in prompts]
    return torch.tensor(ids), torch.tensor(mask)


PROMPTS = [[5, 7, 9, 11, 3, 4], [8, 2], [13, 14, 15, 16, 17, 18, 19, 20, 21], [6]]


def _reference(model, ids, mask, new: int, eos: list[int]) -> list[list[int]]:  # type: ignore[no-untyped-def]
    with torch.inference_mode():
        out = model.generate(
            input_ids=ids,
            attention_mask=mask,
            max_new_tokens=new,
            min_new_tokens=0 if eos else new,
            do_sample=False,
            pad_token_id=PAD,
            eos_token_id=eos or None,
        )
    return [list(r) for r in out[:, ids.shape[1] :].tolist()]


def _until_end(row: list[int], eos: list[int]) -> list[int]:
    end = next((j for j, t in enumerate(row) if t in eos), None)
    return row if end is None else row[: end + 1]


@pytest.mark.parametrize(
    ("attention", "grouped"), [("sdpa", False), ("eager", False), ("sdpa", True)]
)
def test_greedy_tokens_equal_generate_without_an_end_token(attention: str, grouped: bool) -> None:
    model = _model(attention)
    assert supports(model)
    ids, mask = _batch(PROMPTS)
    expected = _reference(model, ids, mask, 20, [])
    decoder = StaticDecoder(model, grouped=grouped)
    assert decoder.grouped == grouped
    with torch.inference_mode():
        result = decoder.generate(ids, mask, 20, (), PAD)
    assert result.steps == 20
    assert result.tokens == expected
    assert model.config._attn_implementation == attention  # restored after the steps


def test_grouped_attention_equals_attention_over_repeated_keys() -> None:
    generator = torch.Generator().manual_seed(5)
    query = torch.randn(3, 6, 1, 8, generator=generator)  # 6 query heads
    key = torch.randn(3, 2, 10, 8, generator=generator)  # sharing 2 key/value heads
    value = torch.randn(3, 2, 10, 8, generator=generator)
    mask = torch.rand(3, 1, 1, 10, generator=generator) > 0.3
    mask[:, :, :, 0] = True
    out, _ = grouped_attention(None, query, key, value, mask, scaling=0.5)
    repeated_k = key.repeat_interleave(3, dim=1)
    repeated_v = value.repeat_interleave(3, dim=1)
    scores = (query @ repeated_k.transpose(-1, -2)) * 0.5
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    expected = (weights @ repeated_v).transpose(1, 2)
    assert out.shape == (3, 1, 6, 8)
    assert torch.allclose(out, expected, atol=1e-5)


def test_float32_keeps_the_library_attention_and_16_bit_groups() -> None:
    model = _model("sdpa")
    assert not StaticDecoder(model).grouped
    assert StaticDecoder(model.to(torch.bfloat16)).grouped
    assert not StaticDecoder(_model("eager").to(torch.bfloat16)).grouped


def _ends_in_some_rows(free_run: list[list[int]]) -> int:
    return next(t for row in free_run for t in row if any(t not in r for r in free_run))


def _ends_in_every_row(free_run: list[list[int]]) -> int:
    return next(t for t in free_run[0] if all(t in r for r in free_run))


@pytest.mark.parametrize("end", [_ends_in_some_rows, _ends_in_every_row])
def test_answers_end_at_the_end_token_and_later_batches_reuse_the_buffers(end) -> None:  # type: ignore[no-untyped-def]
    model = _model("sdpa")
    ids, mask = _batch(PROMPTS)
    free_run = _reference(model, ids, mask, 30, [])
    eos = [end(free_run)]  # the planted stop: in some rows, or in every row
    expected = _reference(model, ids, mask, 30, eos)
    decoder = StaticDecoder(model)
    with torch.inference_mode():
        first = decoder.generate(ids, mask, 30, eos, PAD)
        again = decoder.generate(ids, mask, 30, eos, PAD)  # same shape: buffers reused
        short_ids, short_mask = _batch(PROMPTS[1:3])
        other = decoder.generate(short_ids, short_mask, 30, eos, PAD)  # a new shape
    if all(eos[0] in row for row in free_run):
        assert first.steps < 30  # every answer ended: no step to the limit
    for got in (first, again):
        assert [_until_end(r, eos) for r in got.tokens] == [_until_end(r, eos) for r in expected]
        assert all(t == PAD for row in got.tokens for t in row[len(_until_end(row, eos)) :])
    short_expected = _reference(model, short_ids, short_mask, 30, eos)
    assert [_until_end(r, eos) for r in other.tokens] == [
        _until_end(r, eos) for r in short_expected
    ]


def test_the_cache_length_is_rounded_up_and_holds_prompt_and_answer() -> None:
    model = _model("sdpa")
    ids, mask = _batch(PROMPTS)
    decoder = StaticDecoder(model)
    with torch.inference_mode():
        decoder.generate(ids, mask, LENGTH_STEP, (), PAD)
    shape = decoder._shape
    assert shape is not None
    assert shape.length == 2 * LENGTH_STEP  # 9 prompt tokens + 64 new, rounded up
    assert decoder.mode == "eager"  # no graph on the CPU


def test_16_bit_prompts_are_padded_to_a_shared_width_without_changing_the_answers() -> None:
    from gasp.backends._hf_decoding import PROMPT_STEP

    model = _model("sdpa").to(torch.bfloat16)
    ids, mask = _batch(PROMPTS)
    decoder = StaticDecoder(model, use_graph=False, grouped=False)
    assert decoder.pad_prompts and ids.shape[1] % PROMPT_STEP
    got = decoder.generate(ids, mask, 12, [], PAD).tokens
    extra = PROMPT_STEP - ids.shape[1] % PROMPT_STEP
    padded = torch.nn.functional.pad(ids, (extra, 0), value=PAD)
    padded_mask = torch.nn.functional.pad(mask, (extra, 0), value=0)
    assert got == _reference(model, padded, padded_mask, 12, [])
    assert all(len(row) == 12 for row in got)
    assert not StaticDecoder(_model("sdpa")).pad_prompts
