"""Greedy decoding with a static key/value cache, replayed as a CUDA graph on a GPU.

``model.generate`` pays a Python round trip per token per layer and grows its
key/value cache by concatenation, so a small model on a GPU decodes at a few
percent of what one forward pass computes. :class:`StaticDecoder` keeps every
tensor of a decoding step at a fixed address instead: the keys and values of
each layer in buffers of a fixed length (the prompt and the answer, rounded up
to :data:`LENGTH_STEP`), the attention mask as a boolean row per sequence, and
the step's inputs and outputs. One step (one token for every sequence) is then
captured once per batch shape as a CUDA graph and replayed; on the CPU the same
step runs eagerly, which is how the tests check it against ``model.generate``.

The arithmetic is the model's own forward pass over the same tokens, positions
and masked keys as ``model.generate``: greedy (arg-max) choices, a finished
sequence padded after its end-of-sequence token. Keys past a sequence's last
written position are masked out (they hold zeros or stale values, weighted
exactly zero). Left padding is masked as ``generate`` masks it; a padding query
attends to itself alone, so that no row of the mask is empty.

Only the ``sdpa`` and ``eager`` attention implementations take the explicit
four-dimensional mask this needs (:func:`supports`); other models keep
``model.generate``.

Grouped-query attention (fewer key/value heads than query heads, as in
SmolLM2) with a mask makes transformers copy every key and value once per query
head sharing it, at every step and layer: most of a decoding step's memory
traffic. In 16-bit dtypes the decoder's one-token steps instead pass the query
heads that share a key/value head as rows of one query (:func:`grouped_attention`),
which reads the cache once. float32 keeps transformers' own attention, so that
its greedy texts stay identical to ``model.generate``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward

from gasp.backends._hf_batching import PROBE_NEW_TOKENS, probe_prompts
from gasp.backends._hf_scoring import cache_keyword

logger = logging.getLogger("gasp.backends")

#: Cache lengths are rounded up to a multiple of this, so that batches of similar
#: prompt lengths share one captured graph.
LENGTH_STEP = 64
#: In 16-bit dtypes prompts are left-padded to a multiple of this width, so that
#: batches of similar prompts share the attention kernels' plans (built per shape).
PROMPT_STEP = 32
#: Steps between two checks (one device synchronisation) of whether every sequence ended.
CHECK_EVERY = 8
#: End-of-sequence ids a decoder holds (a model has one to three).
MAX_EOS = 8
_MASKED_IMPLEMENTATIONS = ("sdpa", "eager")
#: The name :func:`grouped_attention` is registered under in transformers.
GROUPED = "gasp_grouped_sdpa"


def grouped_attention(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Attention of one-token queries without repeating keys and values per query head.

    The ``heads / kv_heads`` query heads that share a key/value head become the
    rows of one query against it; the boolean mask (batch, 1, 1, keys) applies to
    every row alike. Longer queries (a prompt) go to transformers' ``sdpa``.
    """
    batch, heads, length, dim = query.shape
    kv_heads = key.shape[1]
    if length != 1 or heads == kv_heads:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    rows = query.reshape(batch, kv_heads, heads // kv_heads, dim)
    out = F.scaled_dot_product_attention(rows, key, value, attn_mask=attention_mask, scale=scaling)
    return out.reshape(batch, heads, 1, dim).transpose(1, 2).contiguous(), None


AttentionInterface.register(GROUPED, grouped_attention)


@contextmanager
def _attention(model: Any, name: str | None) -> Iterator[None]:
    """``model`` computing attention with implementation ``name`` inside the block."""
    if name is None:
        yield
        return
    before = model.config._attn_implementation
    model.config._attn_implementation = name
    try:
        yield
    finally:
        model.config._attn_implementation = before


def supports(model: Any) -> bool:
    """Whether ``model`` takes the explicit attention masks :class:`StaticDecoder` passes."""
    return getattr(model.config, "_attn_implementation", None) in _MASKED_IMPLEMENTATIONS


class StaticKV:
    """Keys and values of every layer in buffers of fixed shape, written in place.

    The attention layers call :meth:`update` with the new keys and values of one
    forward pass: a prompt (while :attr:`prefilling`) fills the first columns, and a
    one-token step writes the column :attr:`write_at` (a device tensor, so that a
    captured graph reads its current value).
    """

    is_compileable = True

    def __init__(self, model: Any, batch: int, length: int, device: torch.device) -> None:
        config = model.config
        heads = int(config.num_attention_heads)
        kv_heads = int(getattr(config, "num_key_value_heads", None) or heads)
        head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // heads)
        dtype = next(model.parameters()).dtype
        shape = (batch, kv_heads, length, head_dim)
        layers = int(config.num_hidden_layers)
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layers)]
        self.write_at = torch.zeros(1, dtype=torch.long, device=device)
        self.prefilling = False
        self.seen = 0

    def update(
        self, keys: torch.Tensor, values: torch.Tensor, layer_idx: int, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store one pass's keys and values of layer ``layer_idx``; all of the layer's back."""
        k, v = self.keys[layer_idx], self.values[layer_idx]
        if self.prefilling:
            n = keys.shape[2]
            k[:, :, :n].copy_(keys)
            v[:, :, :n].copy_(values)
        else:
            k.index_copy_(2, self.write_at, keys)
            v.index_copy_(2, self.write_at, values)
        return k, v

    def get_seq_length(self, layer_idx: int = 0) -> int:
        """Tokens written so far (positions are always passed explicitly)."""
        return self.seen


def _bucket(length: int) -> int:
    return -(-length // LENGTH_STEP) * LENGTH_STEP


class _Shape:
    """The buffers, and on a GPU the captured graph, of one (batch, cache length) shape."""

    def __init__(self, model: Any, batch: int, length: int, device: torch.device) -> None:
        self.batch, self.length = batch, length
        self.kv = StaticKV(model, batch, length, device)
        self.key_ok = torch.zeros((batch, length), dtype=torch.bool, device=device)
        self.tokens = torch.zeros((batch, 1), dtype=torch.long, device=device)
        self.positions = torch.zeros((batch, 1), dtype=torch.long, device=device)
        self.done = torch.zeros(batch, dtype=torch.bool, device=device)
        self.out = torch.zeros((batch, length), dtype=torch.long, device=device)
        self.eos = torch.full((MAX_EOS,), -1, dtype=torch.long, device=device)
        self.pad = torch.zeros((), dtype=torch.long, device=device)
        self.graph: Any = None


def _additive(mask: torch.Tensor, model: Any) -> torch.Tensor:
    """``mask`` as the attention implementation takes it: boolean, or additive for eager."""
    if model.config._attn_implementation == "sdpa":
        return mask
    dtype = next(model.parameters()).dtype
    zero = torch.zeros((), dtype=dtype, device=mask.device)
    return torch.where(mask, zero, torch.finfo(dtype).min)


@dataclass
class DecodeResult:
    """New tokens per sequence (padding after an end token), and the steps run."""

    tokens: list[list[int]]
    steps: int


class StaticDecoder:
    """Greedy decoding of left-padded batches for one model (see the module docstring).

    Holds the buffers of the last batch shape decoded (one at a time, to bound
    memory); a new shape frees them and, on a GPU, captures a new graph (about
    the cost of a few decoding steps).
    """

    def __init__(
        self, model: Any, *, use_graph: bool | None = None, grouped: bool | None = None
    ) -> None:
        self.model = model
        self.device = next(model.parameters()).device
        self.use_graph = self.device.type == "cuda" if use_graph is None else use_graph
        config = model.config
        shared = int(getattr(config, "num_key_value_heads", None) or config.num_attention_heads)
        if grouped is None:
            grouped = next(model.parameters()).dtype != torch.float32
        #: Whether one-token steps use :func:`grouped_attention` (see the module docstring).
        self.grouped = (
            grouped
            and config._attn_implementation == "sdpa"
            and shared < int(config.num_attention_heads)
        )
        #: Whether prompts are left-padded to a multiple of :data:`PROMPT_STEP` (16-bit
        #: dtypes; float32 keeps ``model.generate``'s shapes, and so its exact texts).
        self.pad_prompts = next(model.parameters()).dtype != torch.float32
        self.keyword = cache_keyword(model.get_decoder())
        self._shape: _Shape | None = None
        #: Why graphs were given up (None while they work or were never tried).
        self.graph_error: str | None = None

    @property
    def mode(self) -> str:
        """``cuda graph`` or ``eager``: how the decoding steps run."""
        return "cuda graph" if self.use_graph and self.graph_error is None else "eager"

    def _forward(self, s: _Shape, ids: torch.Tensor, mask: torch.Tensor, pos: torch.Tensor) -> Any:
        return self.model(
            input_ids=ids,
            attention_mask=_additive(mask, self.model),
            position_ids=pos,
            use_cache=True,
            logits_to_keep=1,
            **{self.keyword: s.kv},
        ).logits[:, -1, :]

    def _step(self, s: _Shape) -> None:
        """One token for every sequence, entirely on the device (no host synchronisation)."""
        s.key_ok.index_fill_(1, s.kv.write_at, True)
        with _attention(self.model, GROUPED if self.grouped else None):
            logits = self._forward(s, s.tokens, s.key_ok[:, None, None, :], s.positions)
        chosen = torch.where(s.done, s.pad, logits.argmax(dim=-1))
        s.done.logical_or_((chosen[:, None] == s.eos).any(dim=-1))
        s.tokens.copy_(chosen[:, None])
        s.positions.add_(1)
        s.kv.write_at.add_(1)
        s.out.index_copy_(1, s.kv.write_at, chosen[:, None])

    def _shape_for(self, batch: int, length: int) -> _Shape:
        s = self._shape
        if s is not None and s.batch == batch and s.length == length:
            return s
        self._shape = None
        del s
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        s = _Shape(self.model, batch, length, self.device)
        if self.use_graph and self.graph_error is None:
            self._capture(s)
        self._shape = s
        return s

    def _capture(self, s: _Shape) -> None:
        """Capture :meth:`_step` as a CUDA graph (after warm-up steps on a side stream)."""
        try:
            stream = torch.cuda.Stream(self.device)
            stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(stream):
                for _ in range(2):
                    self._step(s)
            torch.cuda.current_stream(self.device).wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                self._step(s)
            s.graph = graph
        except RuntimeError as exc:  # an operation that cannot be captured: decode eagerly
            self.graph_error = " ".join(str(exc).split())[:300]
            logger.warning("CUDA graph capture failed, decoding eagerly: %s", self.graph_error)

    def generate(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        max_new_tokens: int,
        eos_ids: Collection[int],
        pad_id: int,
    ) -> DecodeResult:
        """Greedy continuations of a left-padded batch, as ``model.generate`` makes them.

        With no ``eos_ids`` every sequence runs ``max_new_tokens`` steps.
        """
        if self.pad_prompts and input_ids.shape[1] % PROMPT_STEP:
            extra = PROMPT_STEP - input_ids.shape[1] % PROMPT_STEP
            input_ids = F.pad(input_ids, (extra, 0), value=pad_id)
            attention_mask = F.pad(attention_mask, (extra, 0), value=0)
        batch, prompt = input_ids.shape
        s = self._shape_for(batch, _bucket(prompt + max_new_tokens))
        real = attention_mask.to(device=self.device, dtype=torch.bool)
        ends = sorted(eos_ids)[:MAX_EOS]
        s.eos.fill_(-1)  # matches no token
        if ends:
            s.eos[: len(ends)] = torch.tensor(ends, dtype=torch.long, device=self.device)
        s.pad.fill_(pad_id)
        s.key_ok.zero_()
        s.key_ok[:, :prompt] = real
        causal = torch.ones((prompt, s.length), dtype=torch.bool, device=self.device).tril()
        mask = causal[None, None] & s.key_ok[:, None, None, :]
        mask |= torch.eye(prompt, s.length, dtype=torch.bool, device=self.device)[None, None]
        positions = attention_mask.to(self.device).long().cumsum(-1) - 1
        positions.masked_fill_(~real, 1)
        s.kv.prefilling, s.kv.seen = True, 0
        try:
            logits = self._forward(s, input_ids.to(self.device), mask, positions)
        finally:
            s.kv.prefilling = False
        s.kv.seen = prompt
        chosen = logits.argmax(dim=-1)
        s.done.copy_((chosen[:, None] == s.eos).any(dim=-1))
        s.tokens.copy_(chosen[:, None])
        s.positions.copy_(positions[:, -1:] + 1)
        s.kv.write_at.fill_(prompt)
        s.out[:, prompt] = chosen
        step: Callable[[], None] = s.graph.replay if s.graph is not None else lambda: self._step(s)
        steps = 1
        while steps < max_new_tokens:
            step()
            steps += 1
            if eos_ids and steps % CHECK_EVERY == 0 and bool(s.done.all()):
                break
        tokens = s.out[:, prompt : prompt + steps].tolist()
        return DecodeResult(tokens, steps)


def probe_runner(decoder: StaticDecoder, pad_id: int) -> Callable[[int], None]:
    """The batch probe's generation (:mod:`gasp.backends._hf_batching`) through ``decoder``."""
    model = decoder.model

    def run(batch: int) -> None:
        ids = probe_prompts(model, batch, str(decoder.device))
        with torch.inference_mode():
            decoder.generate(ids, torch.ones_like(ids), PROBE_NEW_TOKENS, (), pad_id)

    return run


@contextmanager
def matmul_precision(tf32: bool) -> Iterator[None]:
    """float32 matrix products in TF32 inside the block where ``tf32`` (process-wide)."""
    if not tf32:
        yield
        return
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)
