"""Chat prompts of the hf backend, rendered and tokenized once per distinct conversation.

A study asks the same conversation many times (``n`` answers per prompt, the same
prompt for every model of an audit), and rendering a chat template is the slowest
step on the host: on a GPU it took about a fifth of a batch's time. A
:class:`PromptEncoder` keeps each conversation's token ids and builds a batch by
left padding them, exactly as the tokenizer pads a batch of the rendered texts. A
completion (raw text to continue, a base model's prompt) is tokenized as it is, with the
tokenizer's special tokens (a BOS where the model uses one) and no template.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from gasp.backends._messages import ChatMessage, GenerationRequest, StopReason, cut_at_stop

#: Distinct conversations kept; the cache starts again past this many.
MAX_CONVERSATIONS = 200_000


class PromptEncoder:
    """Token ids of chat conversations for one tokenizer, padded on the left into batches."""

    def __init__(self, tokenizer: Any, pad_id: int) -> None:
        self.tokenizer = tokenizer
        self.pad_id = pad_id
        self._ids: dict[tuple[tuple[str, str], ...], list[int]] = {}
        self._completions: dict[str, list[int]] = {}

    def text(self, messages: Sequence[ChatMessage]) -> str:
        """The conversation rendered by the tokenizer's chat template, ready for an answer."""
        rendered = self.tokenizer.apply_chat_template(
            [{"role": m.role, "content": m.content} for m in messages],
            tokenize=False,
            add_generation_prompt=True,
        )
        return str(rendered)

    def ids(self, messages: Sequence[ChatMessage]) -> list[int]:
        """The conversation's token ids (no special tokens beyond the template's)."""
        key = tuple((m.role, m.content) for m in messages)
        found = self._ids.get(key)
        if found is None:
            if len(self._ids) >= MAX_CONVERSATIONS:
                self._ids.clear()
            encoded = self.tokenizer(self.text(messages), add_special_tokens=False)
            found = self._ids[key] = list(encoded["input_ids"])
        return found

    def completion_ids(self, text: str) -> list[int]:
        """The token ids of raw text to continue (with the tokenizer's special tokens)."""
        found = self._completions.get(text)
        if found is None:
            if len(self._completions) >= MAX_CONVERSATIONS:
                self._completions.clear()
            encoded = self.tokenizer(text, add_special_tokens=True)
            found = self._completions[text] = list(encoded["input_ids"])
        return found

    def request_ids(self, prompt: GenerationRequest | Sequence[ChatMessage]) -> list[int]:
        """The prompt token ids of a request (its completion text, else its conversation)
        or of a conversation."""
        if not isinstance(prompt, GenerationRequest):
            return self.ids(prompt)
        if prompt.completion is not None:
            return self.completion_ids(prompt.completion)
        return self.ids(prompt.messages)

    def batch(
        self, prompts: Sequence[GenerationRequest | Sequence[ChatMessage]]
    ) -> tuple[torch.Tensor, torch.Tensor, list[int]]:
        """Input ids and attention mask, left-padded to the longest, and each prompt's length
        (``prompts``: requests or conversations)."""
        rows = [self.request_ids(prompt) for prompt in prompts]
        lengths = [len(row) for row in rows]
        width = max(lengths, default=0)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            if row:
                ids[i, width - len(row) :] = torch.tensor(row, dtype=torch.long)
                mask[i, width - len(row) :] = 1
        return ids, mask, lengths


def answer_of(
    tokenizer: Any, row: list[int], eos_ids: frozenset[int], stop: Sequence[str]
) -> tuple[str, StopReason, int]:
    """The answer in a generated ``row``: its text (up to the first end token, cut before
    the first ``stop`` string), why it ended and the tokens it used (an end token, or the
    token a stop string begins in, counts)."""
    end = next((j for j, t in enumerate(row) if t in eos_ids), None)
    if end is None:
        ids, reason, used = row, StopReason.LENGTH, len(row)
    else:
        ids, reason, used = row[:end], StopReason.STOP, end + 1
    text, cut = cut_at_stop(tokenizer.decode(ids, skip_special_tokens=True), stop)
    if cut:
        reason, used = StopReason.STOP, len(ids)
        for n in range(len(ids) + 1):
            if len(tokenizer.decode(ids[:n], skip_special_tokens=True)) > len(text):
                used = n
                break
    return text.strip(), reason, used
