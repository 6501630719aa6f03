"""The batch size of the hf backend: fixed, or chosen by timing on a GPU (``batch_size=auto``);
and batches split in two where they run out of GPU memory (:class:`MemorySplitter`).

On a GPU a small model's decoding step costs about the same for 1 or 100
sequences (it is bound by kernel launches and weight reads, not arithmetic), so
tokens per second grow with the batch until the device is busy. ``auto``
measures that curve once per loaded model: greedy generation of
:data:`PROBE_NEW_TOKENS` tokens after :data:`PROBE_PROMPT_TOKENS` prompt tokens,
the way the backend generates, at batch sizes doubling from :data:`FIRST_BATCH`.
Each size is measured warm: one untimed generation at that size (kernel choice,
allocator growth, graph capture), then the median of :data:`PROBE_REPEATS` timed
ones; a doubling that seems not to pay is measured again with its smaller size.
The search stops when doubling gains less than :data:`MIN_GAIN` or the next
size would not fit in the memory share :data:`MEMORY_SHARE` of the free device
memory (key/value cache of a :data:`PLANNED_TOKENS`-token sequence per request,
with a margin). The chosen
size is the last one whose doubling still paid. On the CPU ``auto`` is
:data:`CPU_BATCH`: threads are busy from small batches on.

A bigger batch is not free: it runs until its longest answer ends, and a killed
run redoes at most the batches under way. The cap :data:`MAX_BATCH` bounds both.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import torch

from gasp.backends._messages import AnyRequest, AnyResponse, error_response

logger = logging.getLogger("gasp.backends")

#: The fault kind of a request that does not fit in device memory alone.
OUT_OF_MEMORY = "out_of_memory"

Req = TypeVar("Req", bound=AnyRequest)
Resp = TypeVar("Resp", bound=AnyResponse)

#: ``batch_size=auto`` on the CPU: ``bench/bench_embedded.py`` measured more tokens/s at 32
#: than at 16 for both engines on two 2-core machines (CTranslate2 1.05x and 1.45x,
#: transformers 1.23x and 1.44x), and a 135M model's batch of 32 needs little memory.
CPU_BATCH = 32
#: The probe's prompt length, new tokens per sequence, and first batch size.
PROBE_PROMPT_TOKENS = 64
PROBE_NEW_TOKENS = 16
FIRST_BATCH = 8
#: Timed probe generations per batch size (after one untimed warm-up); their median counts.
PROBE_REPEATS = 3
#: Doubling the batch must raise tokens/s by at least this factor to be kept.
MIN_GAIN = 1.10
#: The largest batch ``auto`` chooses, and the sequence length its memory bound plans for.
MAX_BATCH = 4096
PLANNED_TOKENS = 512
#: Share of the free device memory the key/value caches of a batch may take.
MEMORY_SHARE = 0.5


@dataclass(frozen=True)
class BatchChoice:
    """A batch size and how it was chosen: the probe's tokens/s by batch size, if timed."""

    size: int
    device: str
    rates: tuple[tuple[int, float], ...] = ()
    seconds: float = 0.0

    def describe(self) -> str:
        """One line for the run summary, e.g. ``256 per batch (auto on cuda: 8: 410 tok/s ...)``."""
        if not self.rates:
            return f"{self.size} requests per batch on {self.device}"
        curve = ", ".join(f"{b}: {rate:,.0f}" for b, rate in self.rates)
        return (
            f"{self.size} requests per batch, chosen on {self.device} in {self.seconds:.1f} s"
            f" (tokens/s by batch size: {curve})"
        )


def kv_bytes_per_token(config: Any, element_bytes: int) -> int:
    """Bytes of key/value cache one token takes in every layer of a decoder ``config``."""
    layers = int(config.num_hidden_layers)
    heads = int(config.num_attention_heads)
    kv_heads = int(getattr(config, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // heads)
    return 2 * layers * kv_heads * head_dim * element_bytes


def memory_cap(model: Any, device: str) -> int:
    """The most sequences of :data:`PLANNED_TOKENS` tokens whose caches fit the memory share.

    Each sequence is charged one and a half times its cache, and its logits row:
    on SmolLM2-135M (float32, H100) a generating batch's peak memory was 67 kB per
    token of sequence against 46 kB of cache.
    """
    free, _total = torch.cuda.mem_get_info(torch.device(device))
    element_bytes = next(model.parameters()).element_size()
    per_sequence = 3 * kv_bytes_per_token(model.config, element_bytes) * PLANNED_TOKENS // 2
    per_sequence += 4 * int(model.config.vocab_size)
    return max(1, int(free * MEMORY_SHARE) // per_sequence)


def measure_rate(
    run: Callable[[int], object],
    batch: int,
    *,
    repeats: int = PROBE_REPEATS,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Tokens/s of ``run(batch)`` (one probe generation, device drained), measured warm.

    One untimed call at this size first (kernel choice, allocator growth, graph
    capture all happen there), then the median of ``repeats`` timed calls.
    """
    run(batch)
    times = []
    for _ in range(repeats):
        started = clock()
        run(batch)
        times.append(clock() - started)
    return batch * PROBE_NEW_TOKENS / max(statistics.median(times), 1e-9)


def pick_batch_size(rate_of: Callable[[int], float], first: int, cap: int) -> BatchChoice:
    """Double the batch from ``first`` while it raises ``rate_of(batch)`` by :data:`MIN_GAIN`.

    A doubling that seems not to pay is measured again, with its smaller size,
    before the search stops on it (one slow measurement is no curve). The chosen
    size is the last one whose doubling paid, never above ``cap``; the curve
    holds each size's last measurement. ``device`` and ``seconds`` of the result
    are left for the caller to fill.
    """
    batch = max(1, min(first, cap))
    rates: dict[int, float] = {}
    chosen = previous = batch
    while True:
        rates[batch] = rate_of(batch)
        if batch != previous and rates[batch] < MIN_GAIN * rates[previous]:
            rates[previous] = rate_of(previous)
            rates[batch] = rate_of(batch)
            if rates[batch] < MIN_GAIN * rates[previous]:
                break
        chosen = batch
        if batch * 2 > cap:
            break
        previous, batch = batch, batch * 2
    return BatchChoice(chosen, "", tuple(rates.items()))


def choose_batch_size(
    model: Any, device: str, pad_id: int, run: Callable[[int], object] | None = None
) -> BatchChoice:
    """The batch size for ``model`` on ``device`` (see the module docstring).

    ``run(batch)`` generates :data:`PROBE_NEW_TOKENS` greedy tokens after
    :data:`PROBE_PROMPT_TOKENS` for ``batch`` sequences the way the backend
    generates (default: ``model.generate``), and drains the device. Leaves
    torch's global random state untouched (the probe draws from its own generator
    and decodes greedily).
    """
    if not device.startswith("cuda"):
        return BatchChoice(CPU_BATCH, device)
    started = time.perf_counter()
    cap = min(MAX_BATCH, memory_cap(model, device))
    if run is None:
        run = lambda batch: generate_probe(model, batch, pad_id, device)  # noqa: E731
    choice = pick_batch_size(lambda b: measure_rate(run, b), FIRST_BATCH, cap)
    torch.cuda.empty_cache()
    return dataclasses.replace(choice, device=device, seconds=time.perf_counter() - started)


def probe_prompts(model: Any, batch: int, device: str) -> torch.Tensor:
    """``batch`` random prompts of :data:`PROBE_PROMPT_TOKENS` tokens (seeded by ``batch``)."""
    generator = torch.Generator().manual_seed(batch)
    vocab = int(model.config.vocab_size)
    ids = torch.randint(0, vocab, (batch, PROBE_PROMPT_TOKENS), generator=generator)
    return ids.to(device)


def generate_probe(model: Any, batch: int, pad_id: int, device: str) -> None:
    """One probe generation through ``model.generate`` (greedy, no early end)."""
    ids = probe_prompts(model, batch, device)
    with torch.inference_mode():
        model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=PROBE_NEW_TOKENS,
            min_new_tokens=PROBE_NEW_TOKENS,
            do_sample=False,
            temperature=None,
            top_p=None,
            top_k=None,
            pad_token_id=pad_id,
        )
    torch.cuda.synchronize(torch.device(device))


class MemorySplitter:
    """Runs batches on a GPU, halving a batch that runs out of device memory.

    The batch size ``auto`` plans for sequences of :data:`PLANNED_TOKENS` tokens; a
    study with longer prompts or answers (or a fixed ``batch_size`` set too high) can
    still run out of memory. Then the batch is split in two and each half run
    (recursively), and every later batch is cut to the size that last fitted, so the
    run goes on without a second failure at the same size. A single request that
    does not fit alone becomes a failed answer (kind ``out_of_memory``, retried on
    resume) while the rest of its batch is kept.
    """

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id
        #: The largest batch run since the last split (None: no split yet).
        self.limit: int | None = None

    def run(self, batch: Sequence[Req], call: Callable[[list[Req]], list[Resp]]) -> list[Resp]:
        """``call(batch)``'s answers, one per request, splitting on out-of-memory errors."""
        limit = self.limit
        if limit is not None and len(batch) > limit:
            out: list[Resp] = []
            for start in range(0, len(batch), limit):
                out.extend(self.run(batch[start : start + limit], call))
            return out
        try:
            return call(list(batch))
        except torch.cuda.OutOfMemoryError:
            pass  # retried below, once the error's traceback no longer holds the batch's tensors
        torch.cuda.empty_cache()
        if len(batch) == 1:
            why = f"{OUT_OF_MEMORY}: out of GPU memory for this request alone"
            # the answer's kind follows the request's: a generation or a score
            return [cast(Resp, error_response(batch[0], self.model_id, why, (OUT_OF_MEMORY,)))]
        self.limit = len(batch) // 2
        logger.warning(
            "%s: out of GPU memory at %d requests per batch; going on with %d",
            self.model_id,
            len(batch),
            self.limit,
        )
        return self.run(batch, call)
