"""The scoring model behind ``mock/scoring``: a fixed, documented unigram table.

Candidates are split into tokens by :func:`mock_tokens` (words with their leading
whitespace, and each punctuation character on its own: ``" Non-binary"`` is
``" Non"``, ``"-"``, ``"binary"``). Every token's probability is
``table[token.strip().lower()]``, or ``unknown_p`` for a token not in the table,
whatever precedes it, so a candidate's log-probability is the sum of the logs of
its tokens' table values: hand-computable. Scores are exact (not approximate).

An optional ``boost`` makes the table depend on the context: ``"nurse:she=4"``
multiplies the probability of the token ``she`` by 4 (capped at 1) when the context
contains the word ``nurse`` (whole words, any case); factors of several matching words
multiply.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from gasp.backends._messages import CandidateScore, ScoreRequest, ScoreResponse
from gasp.errors import ConfigError

#: The default table: probability of each (lower-cased, stripped) token.
DEFAULT_TABLE: Mapping[str, float] = {
    "he": 0.20,
    "she": 0.20,
    "they": 0.10,
    "male": 0.08,
    "female": 0.08,
    "man": 0.04,
    "woman": 0.04,
    "him": 0.02,
    "her": 0.02,
    "them": 0.02,
    "neutral": 0.01,
    "non": 0.02,
    "nonbinary": 0.005,
    "-": 0.05,
    "binary": 0.05,
}

_TOKEN = re.compile(r"\s*\w+|\s*[^\w\s]")


def mock_tokens(text: str) -> tuple[str, ...]:
    """Split a candidate into the mock model's tokens (see the module docstring)."""
    return tuple(_TOKEN.findall(text))


def parse_table(value: Any, *, provider: str) -> dict[str, float]:
    """The ``table`` option: a mapping of token to probability, or ``"he=0.5,she=0.3"``."""
    if value is None:
        return dict(DEFAULT_TABLE)
    if isinstance(value, str):
        pairs: list[tuple[str, Any]] = []
        for item in value.split(","):
            token, sep, prob = item.partition("=")
            if not sep:
                raise ConfigError(
                    f"option 'table' of {provider} must be TOKEN=P,..., got {value!r}"
                )
            pairs.append((token, prob))
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    else:
        raise ConfigError(f"option 'table' of {provider} must be a mapping, got {value!r}")
    table: dict[str, float] = {}
    for token, prob in pairs:
        try:
            p = float(prob)
        except (TypeError, ValueError):
            p = math.nan
        if not 0.0 < p <= 1.0:
            raise ConfigError(
                f"option 'table' of {provider}: probability of {token!r} must be in (0, 1],"
                f" got {prob!r}"
            )
        table[str(token).strip().lower()] = p
    return table


#: One boost: the context word, the token and the factor of its probability.
Boost = tuple[str, str, float]


def parse_boost(value: Any, *, provider: str) -> tuple[Boost, ...]:
    """The ``boost`` option: ``"WORD:TOKEN=FACTOR,..."`` (none when ``value`` is None)."""
    if value is None:
        return ()
    boosts = []
    for item in str(value).split(","):
        head, sep, factor = item.partition("=")
        word, colon, token = head.partition(":")
        try:
            number = float(factor)
        except ValueError:
            number = math.nan
        if not sep or not colon or not word.strip() or not token.strip() or not number > 0:
            raise ConfigError(
                f"option 'boost' of {provider} must be WORD:TOKEN=FACTOR,... with a factor "
                f"above 0, got {item!r}"
            )
        boosts.append((word.strip().lower(), token.strip().lower(), number))
    return tuple(boosts)


class TableScorer:
    """Scores candidates with a fixed unigram table (see the module docstring)."""

    def __init__(
        self,
        model_id: str,
        table: Mapping[str, float],
        unknown_p: float,
        boosts: tuple[Boost, ...] = (),
    ) -> None:
        self.model_id = model_id
        self.table = dict(table)
        self.unknown_p = unknown_p
        self.boosts = boosts

    def token_logprob(self, token: str, context: str = "") -> float:
        """The log-probability of one token after ``context``."""
        key = token.strip().lower()
        p = self.table.get(key, self.unknown_p)
        for word, boosted, factor in self.boosts:
            if boosted == key and re.search(rf"\b{re.escape(word)}\b", context, re.IGNORECASE):
                p *= factor
        return math.log(min(p, 1.0))

    def __call__(self, request: ScoreRequest) -> ScoreResponse:
        """Score every candidate of ``request`` exactly."""
        context = request.context
        text = context if isinstance(context, str) else " ".join(m.content for m in context)
        scores = []
        for candidate in request.candidates:
            tokens = mock_tokens(candidate)
            scores.append(
                CandidateScore(
                    candidate=candidate,
                    logprob=sum(self.token_logprob(t, text) for t in tokens),
                    tokens=tokens,
                    token_ids=(),
                    approximate=False,
                )
            )
        return ScoreResponse(
            scores=tuple(scores), model_id=self.model_id, prompt_tokens=len(mock_tokens(text))
        )
