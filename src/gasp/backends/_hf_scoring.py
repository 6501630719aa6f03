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

* ``cache`` (default): one forward pass over each context into a ``DynamicCache``
  (passed as ``cache``, or ``past_key_values`` before transformers 5 renamed it),
  then the cache is repeated over the candidates and the candidates' tokens run as one
  right-padded batch (single-token candidates need no second pass at all);
* ``joint``: one right-padded forward pass over every context + candidate row.

Right padding needs no attention mask: under causal attention a real token never
sees the padding after it. ``auto`` (:func:`scoring_strategy`) takes ``cache`` on
the CPU, where it was faster on the embedded model (``bench/bench_scoring.py``),
and ``joint`` with wide passes on a GPU (``bench/bench_gpu.py``). Either way the
log-probabilities of a batch are read with one output-head product and one
transfer to the host.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache

from gasp.backends._faults import RequestRejectedError
from gasp.backends._messages import CandidateScore, ChatMessage, ScoreRequest, ScoreResponse

logger = logging.getLogger("gasp.backends")

SCORING_STRATEGIES = ("cache", "joint")

#: Rows per forward pass in the ``joint`` strategy, on the CPU and on a GPU.
JOINT_ROWS = 64
JOINT_ROWS_GPU = 1024


def scoring_strategy(strategy: str, device: str) -> str:
    """``auto`` resolved for ``device``: ``joint`` on a GPU, ``cache`` on the CPU.

    On a GPU one wide pass over many rows costs little more than one narrow pass,
    so repeating the context per candidate is cheaper than a pass per context
    (``bench/bench_gpu.py``); on the CPU the arithmetic saved by the cache wins.
    """
    if strategy != "auto":
        return strategy
    return "joint" if device.startswith("cuda") else "cache"


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
    """Tokenize a request's context and candidates (see the module docstring).

    The context and every context + candidate text go to the tokenizer in one
    call (a fast tokenizer encodes the list at once); the ids are those of one
    call per text.
    """
    text, special = context_text(tokenizer, request.context)
    texts = [text, *(text + candidate for candidate in request.candidates)]
    encoded = [list(ids) for ids in tokenizer(texts, add_special_tokens=special)["input_ids"]]
    context_ids = encoded[0]
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
    for candidate, joint in zip(request.candidates, encoded[1:], strict=True):
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


def cache_keyword(decoder: Any) -> str:
    """The name under which ``decoder.forward`` takes a key/value cache object.

    transformers 5 renamed ``past_key_values`` to ``cache`` (the old name warns, and
    goes away in 5.40); older versions know only ``past_key_values``.
    """
    parameters = inspect.signature(decoder.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def _log_probs(head: Any, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    logits = head(hidden).float()
    return torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)


def _padded(rows: Sequence[Sequence[int]], pad_id: int, device: str) -> torch.Tensor:
    width = max(len(r) for r in rows)
    data = [list(r) + [pad_id] * (width - len(r)) for r in rows]
    return torch.tensor(data, dtype=torch.long, device=device)


@dataclass
class _Picks:
    """Positions of a batch's hidden states to read, their target tokens and their sums."""

    rows: list[int]
    positions: list[int]
    targets: list[int]
    owners: list[int]

    @classmethod
    def empty(cls) -> _Picks:
        return cls([], [], [], [])

    def add(self, row: int, first_position: int, targets: Sequence[int], owner: int) -> None:
        """Read ``targets`` from ``row`` from ``first_position`` on; sum them into ``owner``."""
        self.rows.extend([row] * len(targets))
        self.positions.extend(range(first_position, first_position + len(targets)))
        self.targets.extend(targets)
        self.owners.extend([owner] * len(targets))

    def sums(self, head: Any, hidden: torch.Tensor, n_owners: int) -> list[float]:
        """Each owner's chain-rule sum: one head product and one transfer for the batch."""
        if not self.rows:
            return [0.0] * n_owners
        return [float(v) for v in self.sums_on_device(head, hidden, n_owners).tolist()]

    def sums_on_device(self, head: Any, hidden: torch.Tensor, n_owners: int) -> torch.Tensor:
        """Each owner's chain-rule sum (float64), left on ``hidden``'s device."""
        device = hidden.device
        if not self.rows:
            return torch.zeros(n_owners, dtype=torch.float64, device=device)
        picked = hidden[
            torch.tensor(self.rows, device=device), torch.tensor(self.positions, device=device)
        ]
        values = _log_probs(head, picked, torch.tensor(self.targets, device=device))
        owners = torch.tensor(self.owners, device=device)
        totals = torch.zeros(n_owners, dtype=torch.float64, device=device)
        return totals.index_add_(0, owners, values.double())


def score_with_cache(model: Any, enc: EncodedRequest, device: str, pad_id: int) -> list[float]:
    """Chain-rule log-probabilities of one context's candidates, reusing its KV cache."""
    decoder, head = _parts(model)
    keyword = cache_keyword(decoder)
    cache = DynamicCache()
    context = torch.tensor([enc.context_ids], dtype=torch.long, device=device)
    out = decoder(input_ids=context, use_cache=True, **{keyword: cache})
    first = torch.log_softmax(head(out.last_hidden_state[0, -1]).float(), dim=-1)
    firsts = [ids[0] if ids else 0 for ids in enc.candidate_ids]
    picked = first[torch.tensor(firsts, dtype=torch.long, device=device)].tolist()
    totals = [float(v) if ids else 0.0 for v, ids in zip(picked, enc.candidate_ids, strict=True)]
    longer = [i for i, ids in enumerate(enc.candidate_ids) if len(ids) > 1]
    if not longer:
        return totals
    cache.batch_repeat_interleave(len(longer))
    inputs = _padded([enc.candidate_ids[i][:-1] for i in longer], pad_id, device)
    start = len(enc.context_ids)
    positions = torch.arange(start, start + inputs.shape[1], device=device).expand_as(inputs)
    hidden = decoder(
        input_ids=inputs, position_ids=positions, use_cache=True, **{keyword: cache}
    ).last_hidden_state
    picks = _Picks.empty()
    for row, i in enumerate(longer):
        picks.add(row, 0, enc.candidate_ids[i][1:], row)
    for i, rest in zip(longer, picks.sums(head, hidden, len(longer)), strict=True):
        totals[i] += rest
    return totals


def score_joint(
    model: Any,
    encs: Sequence[EncodedRequest],
    device: str,
    pad_id: int,
    rows_per_pass: int = JOINT_ROWS,
) -> list[list[float]]:
    """Chain-rule log-probabilities from right-padded context + candidate rows.

    Rows go into passes longest first, so that each pass's rows are of similar
    length (little padding); every pass's sums stay on the device, and come to the
    host in one transfer at the end (the host prepares the next pass meanwhile).
    """
    decoder, head = _parts(model)
    rows: list[tuple[int, int]] = []  # (request, candidate) with at least one token
    totals = [[0.0] * len(enc.candidate_ids) for enc in encs]
    for r, enc in enumerate(encs):
        rows.extend((r, c) for c, ids in enumerate(enc.candidate_ids) if ids)
    rows.sort(
        key=lambda rc: -(len(encs[rc[0]].context_ids) + len(encs[rc[0]].candidate_ids[rc[1]]))
    )
    passes: list[torch.Tensor] = []
    for start in range(0, len(rows), rows_per_pass):
        chunk = rows[start : start + rows_per_pass]
        inputs = [encs[r].context_ids + encs[r].candidate_ids[c][:-1] for r, c in chunk]
        hidden = decoder(input_ids=_padded(inputs, pad_id, device)).last_hidden_state
        picks = _Picks.empty()
        for row, (r, c) in enumerate(chunk):
            picks.add(row, len(encs[r].context_ids) - 1, encs[r].candidate_ids[c], row)
        passes.append(picks.sums_on_device(head, hidden, len(chunk)))
    if passes:
        for (r, c), value in zip(rows, torch.cat(passes).tolist(), strict=True):
            totals[r][c] = float(value)
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
            rows = JOINT_ROWS_GPU if device.startswith("cuda") else JOINT_ROWS
            values = score_joint(model, encs, device, pad_id, rows)
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
