"""Prompt batches built from cached token ids equal the tokenizer's own padded batches."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from gasp.backends._hf_prompts import PromptEncoder  # noqa: E402
from gasp.backends._messages import ChatMessage  # noqa: E402

TEMPLATE = (
    "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant:{% endif %}"
)


def _tokenizer():  # type: ignore[no-untyped-def]
    words = "<pad> <s> </s> system user assistant: : write a story about a nurse carpenter"
    words += " you are helpful"
    vocab = {w: i for i, w in enumerate(["<unk>", *words.split()])}
    model = tokenizers.models.WordLevel(vocab, unk_token="<unk>")
    raw = tokenizers.Tokenizer(model)
    raw.pre_tokenizer = tokenizers.pre_tokenizers.Split(
        tokenizers.Regex(r"</?s>|assistant:|\w+|:"), behavior="isolated"
    )
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>")
    tok.chat_template = TEMPLATE
    tok.padding_side = "left"
    return tok


CONVERSATIONS = [
    (ChatMessage("user", "write a story about a nurse"),),
    (ChatMessage("system", "you are helpful"), ChatMessage("user", "write a story")),
    (ChatMessage("user", "carpenter"),),
    (ChatMessage("user", "write a story about a nurse"),),
]


def test_batches_equal_the_tokenizers_padded_batch_and_repeat_from_the_cache() -> None:
    tok = _tokenizer()
    encoder = PromptEncoder(tok, tok.pad_token_id)
    texts = [encoder.text(c) for c in CONVERSATIONS]
    expected = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    for _ in range(2):  # the second batch comes from the cached ids
        ids, mask, lengths = encoder.batch(CONVERSATIONS)
        assert torch.equal(ids, expected["input_ids"])
        assert torch.equal(mask, expected["attention_mask"])
        assert lengths == expected["attention_mask"].sum(dim=1).tolist()
    assert len(encoder._ids) == 3  # the repeated conversation is encoded once
    assert lengths[0] > lengths[2] > 0


def test_completions_are_tokenized_as_raw_text_beside_chats() -> None:
    from gasp.backends._messages import GenerationRequest

    tok = _tokenizer()
    encoder = PromptEncoder(tok, tok.pad_token_id)
    chat = GenerationRequest(key="c", messages=CONVERSATIONS[0])
    raw = GenerationRequest(key="r", messages=(), completion="a nurse")
    _ids, mask, lengths = encoder.batch([chat, raw])
    assert encoder.request_ids(raw) == tok("a nurse")["input_ids"]
    assert lengths == [len(encoder.ids(CONVERSATIONS[0])), len(tok("a nurse")["input_ids"])]
    assert int(mask[1].sum()) == lengths[1]


def test_an_answer_ends_at_its_end_token_or_before_its_first_stop_string() -> None:
    from gasp.backends._hf_prompts import answer_of
    from gasp.backends._messages import StopReason

    tok = _tokenizer()
    row = tok.convert_tokens_to_ids(["a", "nurse", ":", "a", "carpenter", "</s>", "story"])
    eos = frozenset({tok.convert_tokens_to_ids("</s>")})
    text, reason, used = answer_of(tok, row, eos, ())
    assert (reason, used) == (StopReason.STOP, 6) and "carpenter" in text
    text, reason, used = answer_of(tok, row, eos, (":",))
    assert (text, reason, used) == ("a nurse", StopReason.STOP, 3)
    text, reason, used = answer_of(tok, row[:2], eos, ("story",))
    assert (reason, used) == (StopReason.LENGTH, 2)
