"""OpenAI and OpenAI-compatible chat backends (``openai/...``, ``openai-compatible/...``).

Uses the official ``openai`` async client with its own retries switched off:
:class:`~gasp.backends.ResilientModel` retries. The API key lives only inside the
client; it is never logged, stored or put into an error message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

import openai
from openai.types import Completion
from openai.types.chat import ChatCompletion

from gasp.backends._base import Capability, ModelBackend
from gasp.backends._batch_client import BatchClient
from gasp.backends._bounded_http import bound_answers
from gasp.backends._faults import (
    RequestRejectedError,
    TransientBackendError,
    excerpt,
    is_connect_failure,
)
from gasp.backends._messages import (
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
    StopReason,
    cut_at_stop,
)
from gasp.backends._openai_scoring import (
    MAX_TOP_LOGPROBS,
    chat_top_logprobs,
    check_candidates,
    completion_top_logprobs,
    match_candidates,
)
from gasp.backends._options import Options
from gasp.backends._prompt_logprobs import (
    SCORING_METHODS,
    exact_response,
    probe_prompt_logprobs,
    score_bodies,
)
from gasp.backends._urls import redact_url
from gasp.errors import BackendError, ConfigError

logger = logging.getLogger("gasp.backends")

# Servers that need no key still get a bearer header; this placeholder is not a secret.
_NO_KEY = "no-key"

_FINISH_REASONS = {
    "stop": StopReason.STOP,
    "length": StopReason.LENGTH,
    "content_filter": StopReason.CONTENT_FILTER,
}


class OpenAIBackend(ModelBackend):
    """One chat completion per request through ``AsyncOpenAI``.

    ``finish_reason`` maps to :class:`StopReason` (``length`` -> ``LENGTH``,
    ``content_filter`` -> ``CONTENT_FILTER``); a ``refusal`` on the message gives
    ``REFUSAL`` with the refusal text. An empty answer that was neither
    truncated nor filtered is a transient ``"empty"`` fault (``content: null`` too), and
    a body without choices, or one that is not JSON (a proxy's HTML page), a
    ``"malformed"`` one. An answer of tool calls and no text fails its request for good
    (``"tool_calls"``: asked again, the model would answer the same). The per-request
    seed, temperature, top_p and max_tokens are sent with every call.

    Options: ``connect_timeout_s`` (default 10), ``max_tokens_param``
    (``max_tokens`` or ``max_completion_tokens`` for models that need it),
    ``top_logprobs`` (top log-probabilities asked for when scoring, 1 to 20,
    default 20), ``max_candidate_chars`` (default 10) and, on ``openai-compatible``,
    ``scoring`` (``auto``, ``prompt-logprobs`` or ``top-logprobs``).

    With ``fatal_unreachable`` (the default) a server that refuses the first
    connection is a :class:`BackendError` that stops the run; a backend serving as
    one endpoint of a fleet passes ``False`` so that the refusal is a transient
    ``connection`` fault the fleet routes around.

    Scoring is exact where an ``openai-compatible`` server returns prompt
    log-probabilities (vLLM's ``prompt_logprobs``: the chain rule over each
    candidate's tokens, :mod:`gasp.backends._prompt_logprobs`); ``scoring=auto``
    finds out with one probe request before the first score, recorded in the run
    manifest (:attr:`scoring_method`). Otherwise it is approximate: one token is
    generated (temperature 0) and each candidate is looked up among its top
    log-probabilities (see :mod:`gasp.backends._openai_scoring`). Chat contexts use
    the chat completions endpoint; raw-text contexts use the completions endpoint,
    on ``openai-compatible`` servers only (OpenAI's chat models have none).
    """

    capabilities = frozenset({Capability.GENERATE, Capability.SCORE})

    def __init__(
        self,
        model: str,
        *,
        provider: str = "openai",
        base_url: str | None = None,
        api_key: str | None = None,
        options: Mapping[str, Any] | None = None,
        fatal_unreachable: bool = True,
    ) -> None:
        opts = Options(options, provider=f"{provider}/{model}")
        connect_timeout = opts.get_float("connect_timeout_s", 10.0, minimum=0.001)
        self._max_tokens_param = opts.get_str("max_tokens_param", "max_tokens")
        if self._max_tokens_param not in {"max_tokens", "max_completion_tokens"}:
            raise BackendError("max_tokens_param must be max_tokens or max_completion_tokens")
        self.top_logprobs = opts.get_int("top_logprobs", MAX_TOP_LOGPROBS, minimum=1)
        if self.top_logprobs > MAX_TOP_LOGPROBS:
            raise ConfigError(f"top_logprobs must be at most {MAX_TOP_LOGPROBS}")
        self.max_candidate_chars = opts.get_int("max_candidate_chars", 10, minimum=1)
        scoring = opts.get_str("scoring", "auto" if provider == "openai-compatible" else "")
        opts.reject_unknown()
        if provider != "openai-compatible" and scoring not in ("", "top-logprobs"):
            raise ConfigError(f"{provider}/{model} scores from top log-probabilities only")
        if scoring and scoring not in SCORING_METHODS:
            raise ConfigError(
                f"unknown scoring {scoring!r}; choose one of: {', '.join(SCORING_METHODS)}"
            )
        #: How scores are computed: ``prompt-logprobs`` (exact) or ``top-logprobs``
        #: (approximate); None until ``scoring=auto`` has probed the server.
        self.scoring_method: str | None = None if scoring == "auto" else scoring or "top-logprobs"
        #: Why :attr:`scoring_method` was chosen (the option, or what the probe found).
        self.scoring_note = "" if scoring == "auto" else "scoring option"
        self.provider = provider
        self.model = model
        self.model_id = f"{provider}/{model}"
        self.base_url = base_url
        self._api_key = api_key
        self._reached = not fatal_unreachable
        self._client = openai.AsyncOpenAI(
            api_key=api_key or _NO_KEY,
            base_url=base_url,
            max_retries=0,
            timeout=openai.Timeout(None, connect=connect_timeout),
            http_client=_http_client(),
        )

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """Send one chat completion (a text completion for a request's completion form);
        transient faults raise for the wrapper to retry."""
        started = time.perf_counter()
        if request.completion is not None:
            body = self.completion_body(request)
            answer = await self._post("/completions", body, Completion)
            return self.text_response(answer, request, time.perf_counter() - started)
        completion = await self._post("/chat/completions", self.chat_body(request), ChatCompletion)
        latency = time.perf_counter() - started
        return self.generation_response(completion, latency)

    def completion_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The text completion body of a completion-form request (raw text to continue)."""
        decoding = request.decoding
        seed = request.seed if request.seed is not None else decoding.seed
        body: dict[str, Any] = {
            "model": self.model,
            "prompt": request.completion,
            "temperature": decoding.temperature,
            "top_p": decoding.top_p,
            "max_tokens": decoding.max_tokens,
        }
        if request.stop:
            body["stop"] = list(request.stop)[:4]  # the API takes up to four
        if seed is not None:
            body["seed"] = seed
        return body

    def text_response(
        self, completion: Any, request: GenerationRequest, latency: float | None
    ) -> GenerationResponse:
        """A text completion as a :class:`GenerationResponse` (cut at the request's stop
        strings, which a server may not have applied all of)."""
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise TransientBackendError("malformed", "response without choices")
        choice = choices[0]
        text, cut = cut_at_stop(str(getattr(choice, "text", "") or ""), request.stop)
        finish = getattr(choice, "finish_reason", None) or "stop"
        stop = StopReason.STOP if cut else _FINISH_REASONS.get(str(finish), StopReason.STOP)
        usage = getattr(completion, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        return GenerationResponse(
            text=text.strip(),
            stop_reason=stop,
            model_id=f"{self.provider}/{getattr(completion, 'model', None) or self.model}",
            prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else None,
            completion_tokens=completion_tokens if isinstance(completion_tokens, int) else None,
            latency_s=latency,
        )

    def chat_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The chat completion body of one generation (the batch API sends the same)."""
        if request.completion is not None:
            raise ConfigError(
                f"{self.model_id}: the batch API sends chat requests only; run the completion"
                " form without --batch, or use --study-option prompt_form=chat"
            )
        decoding = request.decoding
        seed = request.seed if request.seed is not None else decoding.seed
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": decoding.temperature,
            "top_p": decoding.top_p,
            self._max_tokens_param: decoding.max_tokens,
        }
        if seed is not None:
            body["seed"] = seed
        return body

    def resolve_scoring(self) -> str:
        """The scoring method; with ``scoring=auto`` one probe request decides it first."""
        if self.scoring_method is None:
            if self.base_url is None:
                supported, note = False, "no server URL to probe"
            else:
                supported, note = probe_prompt_logprobs(self.base_url, self.model, self._api_key)
            self.scoring_method = "prompt-logprobs" if supported else "top-logprobs"
            self.scoring_note = f"probe: {note}"
            if not supported:
                logger.warning(
                    "%s: scores are approximate (first-token top log-probabilities): %s",
                    self.model_id,
                    note,
                )
        return self.scoring_method

    @property
    def exact_scoring(self) -> bool:
        """True once scoring is known to use the server's prompt log-probabilities."""
        return self.scoring_method == "prompt-logprobs"

    def check_score_request(self, request: ScoreRequest) -> None:
        """Refuse raw text on ``openai/`` and, where scoring is approximate, candidates
        likely to be several tokens."""
        if isinstance(request.context, str) and self.provider == "openai":
            raise ConfigError(
                f"{self.model_id} cannot score a raw-text context (the chat API always applies"
                " the chat template); give chat messages instead"
            )
        if self.resolve_scoring() == "prompt-logprobs":
            return
        check_candidates(request.candidates, self.model_id, self.model, self.max_candidate_chars)

    async def score(self, request: ScoreRequest) -> ScoreResponse:
        """Score the candidates: exactly from prompt log-probabilities where the server
        returns them, else from the first token's top log-probabilities (approximate)."""
        if self.scoring_method is None:
            await asyncio.to_thread(self.resolve_scoring)
        self.check_score_request(request)
        if self.exact_scoring:
            return await self._score_exact(request)
        path, body = self.score_body(request)
        started = time.perf_counter()
        cast_to = Completion if path == "/completions" else ChatCompletion
        completion = await self._post(path, body, cast_to)
        return self.score_response(request, completion, time.perf_counter() - started)

    async def _score_exact(self, request: ScoreRequest) -> ScoreResponse:
        started = time.perf_counter()
        answers = await asyncio.gather(
            *(self._post(path, body, object) for path, body in score_bodies(self.model, request))
        )
        model_id = f"{self.provider}/{self.model}"
        return exact_response(request, answers, model_id, time.perf_counter() - started)

    def score_body(self, request: ScoreRequest) -> tuple[str, dict[str, Any]]:
        """The endpoint path and body that score ``request`` (one token, top log-probabilities)."""
        common: dict[str, Any] = {"model": self.model, "temperature": 0.0}
        if isinstance(request.context, str):
            return "/completions", {
                **common,
                "prompt": request.context,
                "max_tokens": 1,
                "logprobs": self.top_logprobs,
            }
        return "/chat/completions", {
            **common,
            "messages": [{"role": m.role, "content": m.content} for m in request.context],
            self._max_tokens_param: 1,
            "logprobs": True,
            "top_logprobs": self.top_logprobs,
        }

    def score_response(
        self, request: ScoreRequest, completion: Any, latency: float | None
    ) -> ScoreResponse:
        """The candidates' scores read from a completion's first-token top log-probabilities."""
        if isinstance(completion, Completion):
            top = completion_top_logprobs(completion)
        else:
            top = chat_top_logprobs(completion)
        prompt_tokens = getattr(getattr(completion, "usage", None), "prompt_tokens", None)
        return ScoreResponse(
            scores=match_candidates(request.candidates, top),
            model_id=f"{self.provider}/{getattr(completion, 'model', None) or self.model}",
            prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else None,
            latency_s=latency,
        )

    async def _post(self, path: str, body: dict[str, Any], cast_to: type[Any]) -> Any:
        """Post ``body``; a server never reached is a :class:`BackendError`."""
        try:
            # The body is already plain JSON, so it is posted as it is: the client's
            # per-request parameter transformation would cost more than the rest of
            # the call at high request rates.
            result = await self._client.post(path, body=body, cast_to=cast_to)
        except openai.APIConnectionError as exc:
            if not self._reached and is_connect_failure(exc):
                where = redact_url(self.base_url) if self.base_url else "the OpenAI API"
                raise BackendError(f"{self.model_id}: cannot reach {where}") from None
            raise
        self._reached = True
        if isinstance(result, str):  # the client hands back a body that is not JSON as text
            raise TransientBackendError("malformed", f"the answer is not JSON: {excerpt(result)!r}")
        return result

    async def ping(self) -> None:
        """List the server's models: returns when the server answers with any HTTP status,
        raises when it cannot be reached, times out or answers with a server error."""
        try:
            await self._client.get("/models", cast_to=object)
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise

    def generation_response(self, completion: Any, latency: float | None) -> GenerationResponse:
        """A chat completion as a :class:`GenerationResponse`; raises
        :class:`TransientBackendError` for an answer without choices or an empty one."""
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise TransientBackendError("malformed", "response without choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise TransientBackendError("malformed", "choice without a message")
        usage = getattr(completion, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        model_id = f"{self.provider}/{completion.model or self.model}"
        refusal = getattr(message, "refusal", None)
        calls = getattr(message, "tool_calls", None)
        if calls and not refusal and not (message.content or "").strip():
            raise RequestRejectedError("tool_calls", _tool_calls_error(calls))
        if refusal:
            stop, text = StopReason.REFUSAL, str(refusal)
        else:
            text = message.content or ""
            finish = getattr(choice, "finish_reason", None) or "stop"
            stop = _FINISH_REASONS.get(str(finish), StopReason.STOP)
            if stop is StopReason.STOP and not text.strip():
                said = "the answer's content is null" if message.content is None else "empty answer"
                raise TransientBackendError("empty", said)
        return GenerationResponse(
            text=text,
            stop_reason=stop,
            model_id=model_id,
            prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else None,
            completion_tokens=completion_tokens if isinstance(completion_tokens, int) else None,
            latency_s=latency,
        )

    def batch_client(self) -> BatchClient:
        """A client of this model's batch API (``--batch``), with the same key and options."""
        return BatchClient(self, api_key=self._api_key)

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()


def _tool_calls_error(calls: Any) -> str:
    """What an answer of tool calls and no text is refused with (the tools' names cut
    short: they are the model's text)."""
    names = [str(getattr(getattr(c, "function", None), "name", "") or "?") for c in calls]
    shown = ", ".join(excerpt(name, 40) for name in names[:3]) + (", ..." if len(names) > 3 else "")
    return f"the model answered with tool calls ({shown}), not text"


def _http_client() -> Any:
    """The openai client's HTTP client, its answers read within
    :data:`~gasp.backends._bounded_http.MAX_ANSWER_BYTES`: over aiohttp where it is
    installed (several times faster than the default at high concurrency)."""
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return bound_answers(openai.DefaultAsyncHttpxClient())
    return bound_answers(openai.DefaultAioHttpClient())
