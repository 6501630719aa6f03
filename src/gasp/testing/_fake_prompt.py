"""The fake server's model of a prompt: tokens, ids, a chat template and a scripted table.

:class:`~gasp.testing.FakeOpenAIServer` (with ``prompt_logprobs=True``) answers a
request carrying vLLM's ``prompt_logprobs`` parameter with the log-probability of
every prompt token after the first, from this module, so tests can compute the
chain rule they expect by hand:

* tokens (:func:`fake_tokens`): a run of letters or digits with at most one space
  before it, else one character (``"A: Non-binary"`` is ``"A"``, ``":"``, ``" Non"``,
  ``"-"``, ``"binary"``); a token's id is :func:`fake_token_id`;
* a chat (:func:`render_chat`): ``<|role|>content\\n`` per message, then
  ``<|assistant|>`` for the generation prompt; a final message continued
  (``continue_final_message``) is left open, without its ``\\n``;
* the log-probability of a token after the one before it (:func:`fake_logprob`):
  :data:`PROMPT_LOGPROBS` where the pair is listed, else ``-(1 + len(token) / 10)``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gasp.backends import stable_int

_TOKEN = re.compile(r" ?[A-Za-z0-9]+|<\|[a-z]+\|>|.", re.DOTALL)

#: Scripted log-probabilities of (previous token, token) pairs.
PROMPT_LOGPROBS: Mapping[tuple[str, str], float] = {
    (":", " Male"): -1.5,
    (":", " Female"): -1.75,
    (":", " Non"): -4.5,
    (" Non", "-"): -0.25,
    ("-", "binary"): -0.5,
    ("<|assistant|>", "She"): -0.75,
    ("<|assistant|>", "Non"): -5.0,
}


def fake_tokens(text: str) -> list[str]:
    """The fake tokenizer (see the module docstring)."""
    return _TOKEN.findall(text)


def fake_token_id(token: str) -> int:
    """A token's id: a stable hash below 50 000."""
    return stable_int(token) % 50_000


def fake_logprob(previous: str, token: str) -> float:
    """The scripted log-probability of ``token`` right after ``previous``."""
    return PROMPT_LOGPROBS.get((previous, token), -(1.0 + len(token) / 10))


def render_chat(
    messages: Sequence[Mapping[str, Any]], *, add_generation_prompt: bool, continue_final: bool
) -> str:
    """The fake chat template (see the module docstring)."""
    parts = [f"<|{m['role']}|>{m['content']}\n" for m in messages]
    if continue_final and parts:
        parts[-1] = parts[-1][:-1]
    elif add_generation_prompt:
        parts.append("<|assistant|>")
    return "".join(parts)


def prompt_logprob_entries(text: str) -> list[dict[str, dict[str, Any]] | None]:
    """vLLM's ``prompt_logprobs`` of ``text``: None for the first token, then one entry per
    token, keyed by its id, with its log-probability, rank and text."""
    tokens = fake_tokens(text)
    entries: list[dict[str, dict[str, Any]] | None] = [None] if tokens else []
    for previous, token in itertools.pairwise(tokens):
        entries.append(
            {
                str(fake_token_id(token)): {
                    "logprob": fake_logprob(previous, token),
                    "rank": 1,
                    "decoded_token": token,
                }
            }
        )
    return entries


def chat_logprobs(logprobs: Mapping[str, float], text: str, top: int) -> dict[str, Any]:
    """A chat answer's ``logprobs`` field: ``text`` as one token, then ``top`` of ``logprobs``."""

    def entry(token: str, logprob: float) -> dict[str, Any]:
        return {"token": token, "logprob": logprob, "bytes": list(token.encode())}

    entries = [entry(t, lp) for t, lp in list(logprobs.items())[:top]]
    chosen = {**entry(text, logprobs.get(text, 0.0)), "top_logprobs": entries}
    return {"content": [chosen], "refusal": None}


def legacy_logprobs(logprobs: Mapping[str, float], text: str, top: int) -> dict[str, Any]:
    """The same in the legacy completions' layout."""
    return {
        "tokens": [text],
        "token_logprobs": [logprobs.get(text, 0.0)],
        "top_logprobs": [dict(list(logprobs.items())[:top])],
        "text_offset": [0],
    }


def add_prompt_logprobs(answer: dict[str, Any], body: Mapping[str, Any], legacy: bool) -> None:
    """vLLM's ``prompt_logprobs``: in the choice (completions) or the answer (chat)."""
    if legacy:
        text = str(body["prompt"])
    else:
        text = render_chat(
            body["messages"],
            add_generation_prompt=bool(body.get("add_generation_prompt", True)),
            continue_final=bool(body.get("continue_final_message", False)),
        )
    entries = prompt_logprob_entries(text)
    answer["usage"]["prompt_tokens"] = len(entries)
    answer["usage"]["total_tokens"] = len(entries) + answer["usage"]["completion_tokens"]
    if legacy:
        answer["choices"][0]["prompt_logprobs"] = entries
    else:
        answer["prompt_logprobs"] = entries
