"""Exact log-probabilities of candidate continuations on a transformers model.

Tokenization (shared with the vLLM backend): the context is raw text, tokenized
with the tokenizer's special tokens (a BOS where the model uses one), or chat
messages rendered by the chat template with the generation prompt added (the
template holds its own special tokens). Context and candidate are tokenized
*together* and the candidate's tokens are what follows the context's tokens, so
the candidate is tokenized as the model would see it in running text. Where the
context's ids are not a prefix of the joint ids (a token merged across the
boundary, for example a context ending in a space), the candidate is tokenized
on its own and appended instead; this keeps the context exactly as it would be
scored alone. Such fallbacks are counted (:attr:`EncodedRequest.fallbacks`) and
logged.

A candidate's log-probability is the chain rule: the sum over its tokens of the
log-softmax of the logits at the position before each token, in float32 under
``torch.inference_mode()``. Two exact ways to compute it:

* ``cache`` (default): one forward pass over each context, then its key/value
  cache is repeated over the candidates and the candidates' tokens run as one
  right-padded batch (single-token candidates need no second pass at all);
* ``joint``: one right-padded forward pass over every context + candidate row.

Right padding needs no attention mask: under causal attention a real token never
sees the padding after it. On the embedded model the ``cache`` way was faster
(see ``bench/bench_scoring.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from gasp.backends._base import CandidateScore, ChatMessage, ScoreRequest, ScoreResponse
from gasp.backends._faults import RequestRejectedError

logger = logging.getLogger("gasp.backends")

SCORING_STRATEGIES = ("cache", "joint")

#: Rows per forward pass in the ``joint`` strategy.
JOINT_ROWS = 64


@dataclass(frozen=True)
class EncodedRequest:
    """A score request as token ids: the context's and each candidate's."""

    context_ids: tuple[int, ...]
    candidate_ids: tuple[tuple[int, ...], ...]
    fallbacks: int = 0


def context_text(tokenizer: Any, context: str | Sequence[ChatMessage]) -> tuple[str, bool]:
    """The context as text, and whether tokenizing it should add special tokens."""
    if isinstance(context, str):
        return context, True
    messages = [{"role": m.role, "content": m.content} for m in context]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return str(text), False


def _ids(tokenizer: Any, text: str, special: bool) -> list[int]:
    return list(tokenizer(text, add_special_tokens=special)["input_ids"])


def encode_request(tokenizer: Any, request: ScoreRequest) -> EncodedRequest:
    """Tokenize a request's context and candidates (see the module docstring)."""
    text, special = context_text(tokenizer, request.context)
    context_ids = _ids(tokenizer, text, special)
    if not context_ids:
        bos = getattr(tokenizer, "bos_token_id", None)
        if bos is None:
            raise RequestRejectedError(
                "empty_context", f"{request.key}: an empty context leaves nothing to score after"
            )
        context_ids = [int(bos)]
    n = len(context_ids)
    candidates = []
    fallbacks = 0
    for candidate in request.candidates:
        joint = _ids(tokenizer, text + candidate, special)
        if joint[:n] == context_ids:
            candidates.append(tuple(joint[n:]))
        else:
            fallbacks += 1
            candidates.append(tuple(_ids(tokenizer, candidate, False)))
    if fallbacks:
        logger.info(
            "%s: %d candidate(s) merged with the context's last token; tokenized separately",
            request.key,
            fallbacks,
        )
    return EncodedRequest(tuple(context_ids), tuple(candidates), fallbacks)


def _parts(model: Any) -> tuple[Any, Any]:
    """The decoder (hidden states) and the output head of a causal LM."""
    return model.get_decoder(), model.get_output_embeddings()


def _log_probs(head: Any, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    logits = head(hidden).float()
    return torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)


def _padded(rows: Sequence[Sequence[int]], pad_id: int, device: str) -> torch.Tensor:
    width = max(len(r) for r in rows)
    data = [list(r) + [pad_id] * (width - len(r)) for r in rows]
    return torch.tensor(data, dtype=torch.long, device=device)


def score_with_cache(model: Any, enc: EncodedRequest, device: str, pad_id: int) -> list[float]:
    """Chain-rule log-probabilities of one context's candidates, reusing its KV cache."""
    decoder, head = _parts(model)
    context = torch.tensor([enc.context_ids], dtype=torch.long, device=device)
    out = decoder(input_ids=context, use_cache=True)
    first = torch.log_softmax(head(out.last_hidden_state[0, -1]).float(), dim=-1)
    totals = [float(first[ids[0]]) if ids else 0.0 for ids in enc.candidate_ids]
    longer = [i for i, ids in enumerate(enc.candidate_ids) if len(ids) > 1]
    if not longer:
        return totals
    cache = out.past_key_values
    cache.batch_repeat_interleave(len(longer))
    inputs = _padded([enc.candidate_ids[i][:-1] for i in longer], pad_id, device)
    start = len(enc.context_ids)
    positions = torch.arange(start, start + inputs.shape[1], device=device).expand_as(inputs)
    hidden = decoder(
        input_ids=inputs, position_ids=positions, past_key_values=cache, use_cache=True
    ).last_hidden_state
    for row, i in enumerate(longer):
        ids = enc.candidate_ids[i]
        targets = torch.tensor(ids[1:], dtype=torch.long, device=device)
        totals[i] += float(_log_probs(head, hidden[row, : len(ids) - 1], targets).sum())
    return totals


def score_joint(
    model: Any, encs: Sequence[EncodedRequest], device: str, pad_id: int
) -> list[list[float]]:
    """Chain-rule log-probabilities from right-padded context + candidate rows."""
    decoder, head = _parts(model)
    rows: list[tuple[int, int]] = []  # (request, candidate) with at least one token
    totals = [[0.0] * len(enc.candidate_ids) for enc in encs]
    for r, enc in enumerate(encs):
        rows.extend((r, c) for c, ids in enumerate(enc.candidate_ids) if ids)
    for start in range(0, len(rows), JOINT_ROWS):
        chunk = rows[start : start + JOINT_ROWS]
        inputs = [encs[r].context_ids + encs[r].candidate_ids[c][:-1] for r, c in chunk]
        hidden = decoder(input_ids=_padded(inputs, pad_id, device)).last_hidden_state
        for row, (r, c) in enumerate(chunk):
            ids = encs[r].candidate_ids[c]
            n = len(encs[r].context_ids)
            targets = torch.tensor(ids, dtype=torch.long, device=device)
            picked = hidden[row, n - 1 : n - 1 + len(ids)]
            totals[r][c] = float(_log_probs(head, picked, targets).sum())
    return totals


def score_requests(
    model: Any,
    tokenizer: Any,
    requests: Sequence[ScoreRequest],
    *,
    model_id: str,
    device: str,
    pad_id: int,
    strategy: str = "cache",
) -> list[ScoreResponse]:
    """Score every request exactly on ``model`` (see the module docstring)."""
    encs = [encode_request(tokenizer, r) for r in requests]
    with torch.inference_mode():
        if strategy == "joint":
            values = score_joint(model, encs, device, pad_id)
        else:
            values = [score_with_cache(model, enc, device, pad_id) for enc in encs]
    return [
        to_response(tokenizer, request, enc, logprobs, model_id)
        for request, enc, logprobs in zip(requests, encs, values, strict=True)
    ]


def to_response(
    tokenizer: Any,
    request: ScoreRequest,
    enc: EncodedRequest,
    logprobs: Sequence[float],
    model_id: str,
) -> ScoreResponse:
    """Exact scores of one request: tokens decoded one by one, as the model reads them."""
    scores = tuple(
        CandidateScore(
            candidate=candidate,
            logprob=float(value),
            tokens=tuple(tokenizer.decode([i]) for i in ids),
            token_ids=tuple(int(i) for i in ids),
            approximate=False,
        )
        for candidate, ids, value in zip(
            request.candidates, enc.candidate_ids, logprobs, strict=True
        )
    )
    return ScoreResponse(scores=scores, model_id=model_id, prompt_tokens=len(enc.context_ids))
