"""Turning a study into requests: cell plans, per-sample seeds, request bounds and costs."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

from gasp.backends import ChatMessage, DecodingConfig, GenerationRequest
from gasp.studies import Cell, Study


@dataclass(frozen=True)
class CellPlan:
    """How one cell is generated.

    Named cells (and every cell of a non-adaptive study) get exactly ``n`` samples.
    Adaptive cells are generated in batches of ``batch_size`` until each of
    ``genders`` has ``n`` associated samples, skipped when one of them is below
    ``min_share`` of the first batch, and stopped at ``cap`` samples.
    """

    cell: Cell
    named_gender: str | None
    adaptive: bool
    n: int
    batch_size: int
    cap: int
    min_share: float
    genders: tuple[str, ...]

    @property
    def key(self) -> tuple[str, str, str]:
        """(template, subject, condition)."""
        return self.cell.key

    @property
    def min_requests(self) -> int:
        """Fewest samples the cell can take (an adaptive cell skipped after one batch)."""
        return self.batch_size if self.adaptive else self.n

    @property
    def max_requests(self) -> int:
        """Most samples the cell can take."""
        return self.cap if self.adaptive else self.n


def plan_study(study: Study) -> list[CellPlan]:
    """One :class:`CellPlan` per cell of ``study``, in study order."""
    rule = study.stopping
    plans = []
    for cell in study.cells():
        adaptive = study.is_adaptive(cell.condition)
        plans.append(
            CellPlan(
                cell=cell,
                named_gender=cell.condition.named_gender,
                adaptive=adaptive,
                n=study.n,
                batch_size=rule.first_batch(study.n) if adaptive else study.n,
                cap=rule.cap(study.n) if adaptive else study.n,
                min_share=rule.min_share,
                genders=rule.genders,
            )
        )
    return plans


def sample_seed(run_seed: int, key: tuple[str, str, str], index: int) -> int:
    """The seed of one sample, derived from the run seed and the sample key (31 bits)."""
    material = json.dumps([run_seed, *key, index], ensure_ascii=False).encode()
    digest = hashlib.blake2b(material, digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFFFFFF


def request_key(key: tuple[str, str, str], index: int) -> str:
    """The request key of one sample (unique within a run, sample index included)."""
    return json.dumps([*key, index], ensure_ascii=False)


def build_request(
    plan: CellPlan,
    index: int,
    *,
    decoding: DecodingConfig,
    run_seed: int,
    system_prompt: str | None,
) -> GenerationRequest:
    """The request for sample ``index`` of a cell (the prompt in the user role)."""
    messages: tuple[ChatMessage, ...] = (ChatMessage("user", plan.cell.prompt),)
    if system_prompt:
        messages = (ChatMessage("system", system_prompt), *messages)
    return GenerationRequest(
        key=request_key(plan.key, index),
        messages=messages,
        decoding=decoding,
        seed=sample_seed(run_seed, plan.key, index),
    )


# -- budgets and cost ---------------------------------------------------------------

#: USD per million (input, output) tokens for OpenAI models, as listed on OpenAI's
#: pricing page (standard tier). A dated model name (``gpt-4o-mini-2024-07-18``)
#: takes the price of its longest listed prefix. Other providers have no price:
#: dry runs report tokens only and ``max_cost`` is refused.
OPENAI_PRICES_PER_MTOK: Mapping[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
}

#: Tokens a chat request adds around the prompt text (role markers), and the
#: characters per token assumed when estimating prompt tokens from text.
CHAT_OVERHEAD_TOKENS = 7
CHARS_PER_TOKEN = 4.0


def price_per_mtok(model_spec: str) -> tuple[float, float] | None:
    """The (input, output) USD price per million tokens of ``openai/<model>``, or None."""
    provider, _, name = model_spec.strip().partition("/")
    if provider.lower() != "openai":
        return None
    matches = [p for p in OPENAI_PRICES_PER_MTOK if name == p or name.startswith(p + "-")]
    if not matches:
        return None
    return OPENAI_PRICES_PER_MTOK[max(matches, key=len)]


def estimate_prompt_tokens(prompt: str, system_prompt: str | None = None) -> int:
    """A rough prompt-token count: characters / 4 plus the chat overhead."""
    chars = len(prompt) + len(system_prompt or "")
    extra = CHAT_OVERHEAD_TOKENS * (2 if system_prompt else 1)
    return math.ceil(chars / CHARS_PER_TOKEN) + extra


def cost_usd(price: tuple[float, float], prompt_tokens: int, completion_tokens: int) -> float:
    """Cost of the given token counts at ``price`` (USD per million tokens)."""
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6


@dataclass(frozen=True)
class PlanEstimate:
    """What a run would request: counts, tokens and (for priced models) cost ranges.

    ``*_min`` assume every adaptive cell is skipped after its first batch and
    completions of half ``max_tokens``; ``*_max`` assume every adaptive cell runs to
    its cap and every completion uses ``max_tokens``.
    """

    cells_named: int
    cells_adaptive: int
    requests_named: int
    requests_adaptive_min: int
    requests_adaptive_max: int
    tokens_min: int
    tokens_max: int
    cost_min_usd: float | None
    cost_max_usd: float | None

    @property
    def requests_min(self) -> int:
        """Fewest requests in all."""
        return self.requests_named + self.requests_adaptive_min

    @property
    def requests_max(self) -> int:
        """Most requests in all."""
        return self.requests_named + self.requests_adaptive_max


def estimate_plan(
    plans: list[CellPlan], study: Study, model_spec: str, decoding: DecodingConfig
) -> PlanEstimate:
    """Count the requests of a plan and estimate its tokens and cost."""
    named = [p for p in plans if not p.adaptive]
    adaptive = [p for p in plans if p.adaptive]
    prompt_min = prompt_max = 0
    completion_min = completion_max = 0
    half = decoding.max_tokens // 2
    for p in plans:
        prompt = estimate_prompt_tokens(p.cell.prompt, study.system_prompt)
        prompt_min += prompt * p.min_requests
        prompt_max += prompt * p.max_requests
        completion_min += half * p.min_requests
        completion_max += decoding.max_tokens * p.max_requests
    tokens_min = prompt_min + completion_min
    tokens_max = prompt_max + completion_max
    price = price_per_mtok(model_spec)
    return PlanEstimate(
        cells_named=len(named),
        cells_adaptive=len(adaptive),
        requests_named=sum(p.n for p in named),
        requests_adaptive_min=sum(p.min_requests for p in adaptive),
        requests_adaptive_max=sum(p.max_requests for p in adaptive),
        tokens_min=tokens_min,
        tokens_max=tokens_max,
        cost_min_usd=None if price is None else cost_usd(price, prompt_min, completion_min),
        cost_max_usd=None if price is None else cost_usd(price, prompt_max, completion_max),
    )
