"""Exact scores from an OpenAI-compatible server's prompt log-probabilities (vLLM).

vLLM answers its ``prompt_logprobs`` request parameter with the log-probability of
every prompt token given the tokens before it (``None`` for the first), keyed by the
token's id. That is what exact scoring needs, computed on the server:

* one request scores the context alone (raw text on ``/completions``; chat messages
  on ``/chat/completions`` with the generation prompt added), giving its ``n``
  tokens;
* one request per candidate scores context + candidate (raw text: the two strings
  joined; chat: the candidate as the start of the assistant's answer, with vLLM's
  ``continue_final_message``), so the candidate is tokenized as in running text,
  exactly like the local backends (:mod:`gasp.backends._hf_scoring`);
* the context's tokens must be a prefix of the joint tokens (the local backends'
  check); a candidate that merges with the context's last token (a context ending
  in a space) is refused, since the server scores only what it tokenizes;
* the candidate's log-probability is the chain rule: the sum of the joint request's
  prompt log-probabilities from position ``n`` on. Scores are not approximate.

Whether a server answers ``prompt_logprobs`` is found with one probe request
(:func:`probe_prompt_logprobs`), or set with the ``scoring`` model option.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from gasp.backends._faults import RequestRejectedError, TransientBackendError
from gasp.backends._messages import CandidateScore, ScoreRequest, ScoreResponse
from gasp.backends._urls import redact_url
from gasp.errors import BackendError

#: Values of the ``scoring`` option of the ``openai-compatible`` backend.
SCORING_METHODS = ("auto", "prompt-logprobs", "top-logprobs")

#: The text the probe asks the server to score.
PROBE_PROMPT = "The nurse said that"

#: One prompt token: its id, its text and its log-probability given the tokens before it.
Entry = tuple[int, str, float]


def probe_prompt_logprobs(
    base_url: str, model: str, api_key: str | None, timeout_s: float = 120.0
) -> tuple[bool, str]:
    """Ask the server to score :data:`PROBE_PROMPT`; whether it answered prompt
    log-probabilities, and what it answered (for the manifest)."""
    body = {
        "model": model,
        "prompt": PROBE_PROMPT,
        "max_tokens": 1,
        "temperature": 0.0,
        "prompt_logprobs": 0,
    }
    request = urllib.request.Request(
        f"{base_url.rstrip('/')}/completions",
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {api_key or 'no-key'}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as reply:
            answer = json.loads(reply.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        return False, f"the probe got HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        if isinstance(getattr(exc, "reason", None), ConnectionRefusedError) or isinstance(
            exc, ConnectionRefusedError
        ):
            raise BackendError(f"{model}: cannot reach {redact_url(base_url)}") from None
        return False, f"the probe failed: {type(exc).__name__}"
    except ValueError:
        return False, "the probe's answer is not JSON"
    try:
        entries = read_entries(answer)
    except (RequestRejectedError, TransientBackendError):
        return False, "the server returned no prompt log-probabilities"
    if len(entries) < 2:
        return False, "the server returned no prompt log-probabilities"
    return True, f"the server scored the probe's {len(entries)} prompt tokens"


def score_bodies(model: str, request: ScoreRequest) -> list[tuple[str, dict[str, Any]]]:
    """The requests that score ``request``: the context alone, then context + each candidate."""
    common: dict[str, Any] = {
        "model": model,
        "max_tokens": 1,
        "temperature": 0.0,
        "prompt_logprobs": 0,
    }
    if isinstance(request.context, str):
        texts = [request.context, *(request.context + c for c in request.candidates)]
        return [("/completions", {**common, "prompt": t}) for t in texts]
    messages = [{"role": m.role, "content": m.content} for m in request.context]
    bodies = [("/chat/completions", {**common, "messages": messages})]
    for candidate in request.candidates:
        bodies.append(
            (
                "/chat/completions",
                {
                    **common,
                    "messages": [*messages, {"role": "assistant", "content": candidate}],
                    "add_generation_prompt": False,
                    "continue_final_message": True,
                },
            )
        )
    return bodies


def read_entries(answer: Any) -> list[Entry | None]:
    """The prompt log-probabilities of an answer (in its choice, or at its top for chat)."""
    if not isinstance(answer, Mapping):
        raise TransientBackendError("malformed", "the answer is not a JSON object")
    raw = answer.get("prompt_logprobs")
    choices = answer.get("choices")
    if raw is None and isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        raw = choices[0].get("prompt_logprobs")
    if not isinstance(raw, list) or not raw:
        raise RequestRejectedError(
            "no_prompt_logprobs",
            "the server returned no prompt log-probabilities (use scoring=top-logprobs)",
        )
    entries: list[Entry | None] = []
    for position, item in enumerate(raw):
        if item is None and position == 0:
            entries.append(None)
            continue
        if not isinstance(item, Mapping) or len(item) != 1:
            raise TransientBackendError(
                "malformed", f"prompt log-probabilities: position {position} is not one token"
            )
        ((key, value),) = item.items()
        if not isinstance(value, Mapping) or not isinstance(value.get("logprob"), int | float):
            raise TransientBackendError(
                "malformed", f"prompt log-probabilities: position {position} has no logprob"
            )
        entries.append((int(key), str(value.get("decoded_token") or ""), float(value["logprob"])))
    return entries


def exact_response(
    request: ScoreRequest,
    answers: Sequence[Any],
    model_id: str,
    latency_s: float | None,
) -> ScoreResponse:
    """The chain-rule scores of ``request`` from the answers to :func:`score_bodies`."""
    context = read_entries(answers[0])
    n = len(context)
    scores = []
    for candidate, answer in zip(request.candidates, answers[1:], strict=True):
        joint = read_entries(answer)
        if len(joint) < n or _ids(joint[1:n]) != _ids(context[1:]):
            raise RequestRejectedError(
                "merged_candidate",
                f"{request.key}: candidate {candidate!r} merges with the context's last token;"
                " end the context without a trailing space",
            )
        own = [e for e in joint[n:] if e is not None]
        scores.append(
            CandidateScore(
                candidate=candidate,
                logprob=sum(e[2] for e in own),
                tokens=tuple(e[1] for e in own),
                token_ids=tuple(e[0] for e in own),
                approximate=False,
            )
        )
    return ScoreResponse(
        scores=tuple(scores), model_id=model_id, prompt_tokens=n, latency_s=latency_s
    )


def _ids(entries: Sequence[Entry | None]) -> list[int | None]:
    return [None if e is None else e[0] for e in entries]
