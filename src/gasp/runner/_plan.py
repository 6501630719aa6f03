"""Turning items into requests: per-sample seeds, request keys, and what a run would cost."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    ScoreRequest,
    batch_price,
    cost_usd,
    price_per_mtok,
)
from gasp.runner._items import Item, RequestKind, StudyPlan

#: A request the runner sends: a generation or a scoring.
Request = GenerationRequest | ScoreRequest

#: Tokens a chat request adds around the prompt text (role markers), and the
#: characters per token assumed when estimating prompt tokens from text.
CHAT_OVERHEAD_TOKENS = 7
CHARS_PER_TOKEN = 4.0


def sample_seed(run_seed: int, key: Sequence[str], index: int) -> int:
    """The seed of one sample, derived from the run seed and the sample key (31 bits)."""
    material = json.dumps([run_seed, *key, index], ensure_ascii=False).encode()
    digest = hashlib.blake2b(material, digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFFFFFF


def request_key(key: Sequence[str], index: int) -> str:
    """The request key of one sample (unique within a run, sample index included)."""
    return json.dumps([*key, index], ensure_ascii=False)


def build_request(
    item: Item,
    index: int,
    *,
    decoding: DecodingConfig,
    run_seed: int,
    system_prompt: str | None,
) -> Request:
    """The request for sample ``index`` of ``item``: a generation with the prompt in the
    user role (after the system prompt) or, for a raw-text item, as text to continue
    (cut at the item's stop strings); or a scoring of the item's candidates."""
    pairs = item.messages(system_prompt)
    messages = None if pairs is None else tuple(ChatMessage(r, c) for r, c in pairs)
    key = request_key(item.key, index)
    if item.kind is RequestKind.SCORE:
        return ScoreRequest(
            key=key,
            context=item.prompt if messages is None else messages,
            candidates=item.candidates,
        )
    return GenerationRequest(
        key=key,
        messages=messages or (),
        decoding=decoding,
        seed=sample_seed(run_seed, item.key, index),
        completion=item.prompt if messages is None else None,
        stop=item.stop,
    )


def estimate_prompt_tokens(prompt: str, system_prompt: str | None = None) -> int:
    """A rough prompt-token count: characters / 4 plus the chat overhead."""
    chars = len(prompt) + len(system_prompt or "")
    extra = CHAT_OVERHEAD_TOKENS * (2 if system_prompt else 1)
    return math.ceil(chars / CHARS_PER_TOKEN) + extra


def estimate_item_cost(
    item: Item, price: tuple[float, float] | None, system_prompt: str | None, max_tokens: int
) -> float:
    """The most one request of ``item`` can cost at ``price`` (0 without a price)."""
    if price is None:
        return 0.0
    prompt = estimate_prompt_tokens(item.prompt, system_prompt)
    completion = 1 if item.kind is RequestKind.SCORE else max_tokens
    return cost_usd(price, prompt, completion)


@dataclass(frozen=True)
class PlanEstimate:
    """What a run would request: counts, tokens and (for priced models) cost ranges.

    Fixed items take exactly their n samples; adaptive items between their rule's
    bounds. ``*_min`` assume every adaptive item stops at its fewest samples and
    completions of half ``max_tokens``; ``*_max`` assume every adaptive item runs to
    its cap and every completion uses ``max_tokens``. A scoring request counts its
    prompt and one completion token.
    """

    items_fixed: int
    items_adaptive: int
    requests_fixed: int
    requests_adaptive_min: int
    requests_adaptive_max: int
    score_requests: int
    tokens_min: int
    tokens_max: int
    cost_min_usd: float | None
    cost_max_usd: float | None

    @property
    def requests_min(self) -> int:
        """Fewest requests in all."""
        return self.requests_fixed + self.requests_adaptive_min

    @property
    def requests_max(self) -> int:
        """Most requests in all."""
        return self.requests_fixed + self.requests_adaptive_max


def estimate_plan(
    plan: StudyPlan, model_spec: str, decoding: DecodingConfig, *, batch: bool = False
) -> PlanEstimate:
    """Count the requests of a plan and estimate its tokens and cost (with ``batch``, at
    the batch API's price: half the listed one)."""
    items_fixed = items_adaptive = requests_fixed = adaptive_min = adaptive_max = 0
    scores = prompt_min = prompt_max = completion_min = completion_max = 0
    half = decoding.max_tokens // 2
    for item in plan.items:
        progress = plan.stopping.start(item)
        low, high = progress.bounds()
        if progress.adaptive:
            items_adaptive += 1
            adaptive_min += low
            adaptive_max += high
        else:
            items_fixed += 1
            requests_fixed += low
        prompt = estimate_prompt_tokens(item.prompt, plan.system_prompt if item.chat else None)
        prompt_min += prompt * low
        prompt_max += prompt * high
        if item.kind is RequestKind.SCORE:
            scores += high
            completion_min += low
            completion_max += high
        else:
            completion_min += half * low
            completion_max += decoding.max_tokens * high
    price = price_per_mtok(model_spec)
    if price is not None and batch:
        price = batch_price(price)
    return PlanEstimate(
        items_fixed=items_fixed,
        items_adaptive=items_adaptive,
        requests_fixed=requests_fixed,
        requests_adaptive_min=adaptive_min,
        requests_adaptive_max=adaptive_max,
        score_requests=scores,
        tokens_min=prompt_min + completion_min,
        tokens_max=prompt_max + completion_max,
        cost_min_usd=None if price is None else cost_usd(price, prompt_min, completion_min),
        cost_max_usd=None if price is None else cost_usd(price, prompt_max, completion_max),
    )
