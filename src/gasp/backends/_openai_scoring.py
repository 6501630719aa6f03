"""Approximate scores from an OpenAI-style API's first-token top log-probabilities.

The API scores nothing it is given; it only reports, for the first token it
generates, the ``top_logprobs`` most likely tokens (20 at most) and their
log-probabilities. A candidate's score is the entry whose token equals the
candidate as given, or else the candidate with its leading space removed (or
one added, where it had none): providers' tokens usually carry the space that
separates a word from the text before it. A candidate not among the top
entries gets ``logprob=None``. Every score is ``approximate=True``.

A candidate the model would write as more than one token cannot be scored this
way, and the provider cannot say how it tokenizes: such candidates are refused
before any request is sent. Without a tokenizer the rule is a guess that errs
on the side of refusing: a candidate (less one leading space) that is empty,
holds whitespace or a hyphen after its first character, or is longer than
``max_candidate_chars`` characters (default 10) is multi-token. Where the
``tiktoken`` package is installed and knows the model (its encodings are
cached locally), its token count replaces the length rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gasp.backends._faults import RequestRejectedError, TransientBackendError
from gasp.backends._messages import CandidateScore
from gasp.errors import ConfigError

#: The most top log-probabilities the OpenAI API returns.
MAX_TOP_LOGPROBS = 20

#: Default of the ``max_candidate_chars`` option of the ``openai`` backends.
DEFAULT_MAX_CANDIDATE_CHARS = 10


def _tiktoken_count(model: str, text: str) -> int | None:
    """Tokens of ``text`` for ``model`` by tiktoken, or None where it cannot tell."""
    try:
        import tiktoken

        return len(tiktoken.encoding_for_model(model).encode(text))
    except Exception:  # not installed, unknown model, or encodings not cached
        return None


def multi_token_reason(
    candidate: str, model: str = "", max_chars: int = DEFAULT_MAX_CANDIDATE_CHARS
) -> str | None:
    """Why ``candidate`` would be more than one token (None when it looks like one).

    This is the rule by which the approximate (first-token) backends refuse a
    candidate before any request; a study can apply it up front to keep only the
    candidates such a backend scores (``model`` empty: the rule without tiktoken).
    """
    body = candidate[1:] if candidate.startswith(" ") else candidate
    if not body:
        return "it is empty"
    if any(ch.isspace() for ch in body):
        return "it holds whitespace (several words are several tokens)"
    if "-" in body[1:]:
        return "it holds a hyphen (a hyphenated word is several tokens)"
    count = _tiktoken_count(model, candidate)
    if count is not None:
        return f"it is {count} tokens for {model} (tiktoken)" if count > 1 else None
    if len(body) > max_chars:
        return f"it is longer than {max_chars} characters (likely several tokens)"
    return None


def check_candidates(
    candidates: tuple[str, ...], model_id: str, model: str, max_chars: int
) -> None:
    """Raise :class:`ConfigError` naming the first candidate that is likely multi-token."""
    for candidate in candidates:
        reason = multi_token_reason(candidate, model, max_chars)
        if reason is not None:
            raise ConfigError(
                f"{model_id} scores only single-token candidates (from the first token's top"
                f" log-probabilities); candidate {candidate!r} is refused: {reason}"
            )


def chat_top_logprobs(completion: Any) -> dict[str, float]:
    """``choices[0].logprobs.content[0].top_logprobs`` of a chat completion, as a dict."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise TransientBackendError("malformed", "response without choices")
    logprobs = getattr(choices[0], "logprobs", None)
    content = getattr(logprobs, "content", None)
    if not content:
        raise RequestRejectedError(
            "no_logprobs", "the server returned no log-probabilities (does it support logprobs?)"
        )
    return {str(e.token): float(e.logprob) for e in (content[0].top_logprobs or [])}


def completion_top_logprobs(completion: Any) -> dict[str, float]:
    """``choices[0].logprobs.top_logprobs[0]`` of a (legacy) completion."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise TransientBackendError("malformed", "response without choices")
    logprobs = getattr(choices[0], "logprobs", None)
    top = getattr(logprobs, "top_logprobs", None)
    if not top:
        raise RequestRejectedError(
            "no_logprobs", "the server returned no log-probabilities (does it support logprobs?)"
        )
    return {str(k): float(v) for k, v in dict(top[0]).items()}


def match_candidates(
    candidates: tuple[str, ...], top: Mapping[str, float]
) -> tuple[CandidateScore, ...]:
    """Each candidate's top log-probability (see the module docstring)."""
    scores = []
    for candidate in candidates:
        other = candidate[1:] if candidate.startswith(" ") else " " + candidate
        token = next((t for t in (candidate, other) if t in top), None)
        scores.append(
            CandidateScore(
                candidate=candidate,
                logprob=None if token is None else top[token],
                tokens=(token if token is not None else candidate,),
                token_ids=(),
                approximate=True,
            )
        )
    return tuple(scores)
