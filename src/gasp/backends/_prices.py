"""What OpenAI models cost: the price table and the cost of given token counts."""

from __future__ import annotations

from collections.abc import Mapping

from gasp.backends._resolve import split_spec

#: USD per million (input, output) tokens for OpenAI models, as listed on OpenAI's
#: pricing page (standard tier). A dated model name (``gpt-4o-mini-2024-07-18``)
#: takes the price of its longest listed prefix. Other providers have no price.
OPENAI_PRICES_PER_MTOK: Mapping[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
}


def price_per_mtok(model_spec: str) -> tuple[float, float] | None:
    """The (input, output) USD price per million tokens of ``openai/<model>``, or None."""
    provider, name = split_spec(model_spec)
    if provider != "openai":
        return None
    matches = [p for p in OPENAI_PRICES_PER_MTOK if name == p or name.startswith(p + "-")]
    if not matches:
        return None
    return OPENAI_PRICES_PER_MTOK[max(matches, key=len)]


#: The share of the listed price that the batch API charges.
BATCH_PRICE_FACTOR = 0.5


def batch_price(price: tuple[float, float]) -> tuple[float, float]:
    """The (input, output) USD price per million tokens through the batch API: half."""
    return (price[0] * BATCH_PRICE_FACTOR, price[1] * BATCH_PRICE_FACTOR)


def cost_usd(price: tuple[float, float], prompt_tokens: int, completion_tokens: int) -> float:
    """Cost of the given token counts at ``price`` (USD per million tokens)."""
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6
