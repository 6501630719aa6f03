"""A fake OpenAI-compatible chat completion server that injects faults on purpose.

It runs an aiohttp app on ``127.0.0.1`` (a free port) in a background thread with
its own event loop, so synchronous tests and benchmark scripts can use it as a
context manager::

    with FakeOpenAIServer(fault_rate=0.3, seed=1) as server:
        backend = resolve_backend("openai-compatible/fake-model", base_url=server.base_url)
        ...
    server.faults  # Counter of injected faults by kind

Fault kinds: ``rate_limit`` (429 with ``Retry-After``), ``server_error`` (500),
``unavailable`` (503), ``timeout`` (answers only after ``hang_s``, past the
client's timeout), ``connection`` (closes the connection without answering),
``malformed`` (truncated JSON), ``empty`` (empty content) and
``content_filter`` (empty content with ``finish_reason="content_filter"``); drawn only
when named, the answers of :data:`~gasp.testing._fake_hostile.ANSWER_KINDS`.

Asked for ``logprobs`` (with ``top_logprobs``), a chat completion carries
``choices[0].logprobs.content[0].top_logprobs`` taken from a known table
(:data:`DEFAULT_TOP_LOGPROBS`, or the ``logprobs`` argument): its ``top_logprobs``
highest entries, highest first; the generated token is the highest entry. The
legacy ``/v1/completions`` endpoint (a ``prompt`` instead of ``messages``)
answers the same way with ``choices[0].logprobs.top_logprobs[0]``. Faults are
injected on both endpoints alike. The batch API's endpoints are served by
``server.batch`` (:mod:`gasp.testing._fake_batch`).
"""

from __future__ import annotations

import asyncio
import collections
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any

import numpy as np
from aiohttp import web

from gasp.backends import PersonaMix, persona_text, stable_int
from gasp.testing._fake_batch import FakeBatchAPI, error_reply
from gasp.testing._fake_hostile import ANSWER_KINDS, HOSTILE_KINDS, HOSTILE_TEXT, hostile_answer
from gasp.testing._fake_prompt import (
    add_prompt_logprobs,
    chat_logprobs,
    legacy_logprobs,
)

FAULT_KINDS = (
    "rate_limit",
    "server_error",
    "unavailable",
    "timeout",
    "connection",
    "malformed",
    "empty",
    "content_filter",
    *ANSWER_KINDS,
)

TextFn = Callable[[str, np.random.Generator], str]


#: The next-token log-probabilities the server reports when asked for them.
DEFAULT_TOP_LOGPROBS: Mapping[str, float] = {
    " He": -1.0,
    " She": -1.25,
    "He": -1.5,
    "She": -1.75,
    " They": -2.0,
    " Male": -2.5,
    " Female": -2.75,
    " Man": -3.0,
    " Woman": -3.25,
    " Neutral": -4.0,
    " Non": -4.5,
    " Him": -5.0,
    " Her": -5.25,
    " Them": -5.5,
    "Male": -6.0,
    "Female": -6.25,
    "They": -6.5,
    " The": -7.0,
    " A": -7.5,
    " It": -8.0,
    " I": -8.5,
    " We": -9.0,
}


def _default_text(prompt: str, rng: np.random.Generator) -> str:
    return persona_text(prompt, rng, PersonaMix())


class FakeOpenAIServer:
    """A loopback OpenAI-compatible server with configurable latency and faults.

    Args:
        fault_rate: probability that a chat completion request gets a fault.
        faults: which fault kinds to draw, as a sequence (equal weights) or a
            mapping of kind to weight; default every kind but ``content_filter``.
        latency_s: delay before every answer.
        seed: seeds the fault draws and the generated text.
        retry_after_s: the ``Retry-After`` sent with 429 answers.
        hang_s: how long a ``timeout`` fault waits before answering.
        api_key: when set, requests must carry it as a bearer token (else 401).
        models: model names served and listed at ``/models`` (others get 404);
            ``None`` accepts any and lists none (``/models`` answers 404).
        text: ``text(prompt, rng)`` makes the answer; default persona-like text.
        logprobs: the token log-probabilities reported when asked for them.
        serve_logprobs: ``False`` ignores requests for log-probabilities, like a
            server that does not support them.
        prompt_logprobs: answer vLLM's ``prompt_logprobs`` parameter with the
            log-probabilities of the prompt's tokens from a scripted table
            (:mod:`gasp.testing._fake_prompt`); ``False`` ignores it.
        port: the loopback port (0: a free one); :meth:`start` after :meth:`stop` reuses it.
        hang_after: answer this many completion requests, then hang on every later one
            until :meth:`stop`; :attr:`answered_at` holds each answer's monotonic time,
            :attr:`answered_seeds` its request's ``seed``.
        models_status: ``/models`` answers this status whatever the key, like a server
            without that endpoint (404, or 405); None: the list, as ``models`` says.
        usage: replaces the ``usage`` of every answer (``10**30`` counts, say); None:
            counts of the prompt's and answer's words.
        model_root: the weights behind the served models, listed at ``/models`` as
            vLLM lists them (``root``); None: not listed.

    A chat completion with no message is refused (400) after the key is checked, as
    the OpenAI API refuses it: it is not counted in :attr:`requests`.
    """

    def __init__(
        self,
        *,
        fault_rate: float = 0.0,
        faults: Sequence[str] | Mapping[str, float] | None = None,
        latency_s: float = 0.0,
        seed: int = 0,
        retry_after_s: float = 0.01,
        hang_s: float = 5.0,
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        text: TextFn = _default_text,
        logprobs: Mapping[str, float] = DEFAULT_TOP_LOGPROBS,
        serve_logprobs: bool = True,
        prompt_logprobs: bool = False,
        port: int = 0,
        hang_after: int | None = None,
        models_status: int | None = None,
        usage: Mapping[str, Any] | None = None,
        model_root: str | None = None,
    ) -> None:
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be between 0 and 1, got {fault_rate}")
        if faults is None:
            faults = [k for k in FAULT_KINDS if k not in HOSTILE_KINDS]
        weights = dict(faults) if isinstance(faults, Mapping) else dict.fromkeys(faults, 1.0)
        unknown = set(weights) - set(FAULT_KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}; known: {FAULT_KINDS}")
        self.fault_rate = fault_rate
        self._kinds = list(weights)
        self._weights = [float(w) for w in weights.values()]
        self.latency_s = latency_s
        self.seed = seed
        self.retry_after_s = retry_after_s
        self.hang_s = hang_s
        self._api_key = api_key
        self.models = tuple(models) if models is not None else None
        self._text = text
        self.logprobs = dict(sorted(logprobs.items(), key=lambda kv: -kv[1]))
        self.serve_logprobs = serve_logprobs
        self.prompt_logprobs = prompt_logprobs
        self.hang_after = hang_after
        self.models_status = models_status
        self.answered_at: list[float] = []
        self.answered_seeds: list[object] = []
        self.usage = None if usage is None else dict(usage)
        self.model_root = model_root
        #: Request bodies received (both endpoints), in order.
        self.bodies: list[dict[str, Any]] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        #: Chat completion requests received, and how many got a normal answer.
        self.requests = 0
        self.successes = 0
        #: Faults injected, by kind.
        self.faults: collections.Counter[str] = collections.Counter()
        #: Requests being handled now, and the most handled at once.
        self.in_flight = 0
        self.max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._bind_port = port
        #: The batch endpoints, their controls and counters.
        self.batch = FakeBatchAPI(self)

    # -- lifecycle --------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL to give an OpenAI client."""
        if self._port is None:
            raise RuntimeError("the server is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> FakeOpenAIServer:
        """Start serving in a background thread; returns once the port is open."""
        ready = threading.Event()
        errors: list[BaseException] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._serve, args=(ready, errors), name="fake-openai-server", daemon=True
        )
        self._thread.start()
        if not ready.wait(timeout=30):
            raise RuntimeError("the fake server did not start within 30 s")
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        """Stop serving and join the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._runner is not None:
            runner = self._runner
            future = asyncio.run_coroutine_threadsafe(runner.cleanup(), loop)
            future.result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()
        self._loop = self._thread = self._runner = None
        self._port = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def counters(self) -> dict[str, Any]:
        """A snapshot of the counters."""
        with self._lock:
            return {
                "requests": self.requests,
                "successes": self.successes,
                "faults": dict(self.faults),
                "max_in_flight": self.max_in_flight,
            }

    def _serve(self, ready: threading.Event, errors: list[BaseException]) -> None:
        loop = self._loop
        if loop is None:  # pragma: no cover - start() sets it
            return
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._startup())
        except BaseException as exc:
            errors.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()

    async def _startup(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._chat)
        app.router.add_get("/v1/models", self._list_models)
        self.batch.add_routes(app)
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", self._bind_port, shutdown_timeout=0.5)
        await site.start()
        self._runner = runner
        self._port = self._bind_port = int(runner.addresses[0][1])

    # -- handlers ---------------------------------------------------------------

    def _authorized(self, request: web.Request) -> bool:
        return self._api_key is None or request.headers.get("Authorization") == (
            f"Bearer {self._api_key}"
        )

    async def _list_models(self, request: web.Request) -> web.StreamResponse:
        if self.models_status is not None:  # no such endpoint, whatever the key
            return error_reply(self.models_status, "No such endpoint.", "not_found")
        if not self._authorized(request):
            return error_reply(401, "Incorrect API key provided.", "invalid_api_key")
        if self.models is None:  # any model is served: there is no list to give
            return error_reply(404, "This server does not list its models.", "not_found")
        names = self.models
        data = [{"id": n, "object": "model", "created": 0, "owned_by": "gasp"} for n in names]
        if self.model_root is not None:
            data = [{**entry, "root": self.model_root} for entry in data]
        return web.json_response({"object": "list", "data": data})

    def _draw_fault(self) -> str | None:
        with self._lock:
            self.requests += 1
            if self.fault_rate > 0 and self._rng.random() < self.fault_rate:
                kind = self._rng.choices(self._kinds, weights=self._weights)[0]
                self.faults[kind] += 1
                return kind
            return None

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(request)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        if not self._authorized(request):
            return error_reply(401, "Incorrect API key provided.", "invalid_api_key")
        legacy = request.path.endswith("/v1/completions")
        try:
            body = await request.json()
            if legacy:
                prompt = str(body["prompt"])
            else:
                messages = body["messages"]
                prompt = str(messages[-1]["content"])
            model = str(body["model"])
        except (ValueError, KeyError, TypeError, IndexError):
            return error_reply(400, "Invalid request body.", "invalid_request")
        with self._lock:
            self.bodies.append(body)
        if self.models is not None and model not in self.models:
            return error_reply(404, f"The model `{model}` does not exist.", "model_not_found")
        fault = self._draw_fault()
        with self._lock:
            hang = self.hang_after is not None and self.requests > self.hang_after
        if hang:
            await asyncio.Event().wait()  # until the server stops
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        if fault == "rate_limit":
            headers = {"Retry-After": f"{self.retry_after_s:g}"}
            return error_reply(429, "Rate limit reached.", "rate_limit_exceeded", headers)
        if fault == "server_error":
            return error_reply(500, "The server had an error.", "server_error")
        if fault == "unavailable":
            return error_reply(503, "The server is overloaded.", "unavailable")
        if fault == "connection":
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        if fault == "malformed":
            return web.Response(
                text='{"id": "chatcmpl-1", "choices": [', content_type="application/json"
            )
        if fault == "timeout":
            await asyncio.sleep(self.hang_s)
        if fault in ANSWER_KINDS:
            answer = self._completion(model, prompt, HOSTILE_TEXT, "stop")
            return await hostile_answer(request, fault, answer)
        text, finish, top = self._reply_text(prompt, body, legacy)
        if fault in {"empty", "content_filter"}:
            text = ""
            finish = "content_filter" if fault == "content_filter" else "stop"
        if fault is None:
            with self._lock:
                self.successes += 1
        answer = self._completion(model, prompt, text, finish)
        if legacy:
            choice = answer["choices"][0]
            del choice["message"]
            choice["text"] = text
            choice["logprobs"] = None if top is None else legacy_logprobs(self.logprobs, text, top)
            answer["object"] = "text_completion"
        elif top is not None:
            answer["choices"][0]["logprobs"] = chat_logprobs(self.logprobs, text, top)
        if self.prompt_logprobs and body.get("prompt_logprobs") is not None:
            add_prompt_logprobs(answer, body, legacy)
        if self.usage is not None:
            answer["usage"] = dict(self.usage)
        with self._lock:
            self.answered_at.append(time.monotonic())
            self.answered_seeds.append(body.get("seed"))
        return web.json_response(answer)

    def _reply_text(
        self, prompt: str, body: Mapping[str, Any], legacy: bool
    ) -> tuple[str, str, int | None]:
        """The answer's text, finish reason and top log-probabilities asked (faults aside).

        Asked for log-probabilities, the server answers its table's first entry."""
        max_tokens = int(body.get("max_tokens") or body.get("max_completion_tokens") or 256)
        text, finish = self._generate(prompt, body.get("seed"), max_tokens)
        top = self._top(body, legacy)
        if top is not None:
            text, finish = next(iter(self.logprobs), ""), "length"
        return text, finish, top

    def _top(self, body: Mapping[str, Any], legacy: bool) -> int | None:
        """How many top log-probabilities the request asks for (None: none)."""
        if not self.serve_logprobs:
            return None
        if legacy:
            value = body.get("logprobs")
            return int(value) if isinstance(value, int) and not isinstance(value, bool) else None
        if not body.get("logprobs"):
            return None
        return int(body.get("top_logprobs") or 0)

    def _generate(self, prompt: str, seed: object, max_tokens: int) -> tuple[str, str]:
        rng = np.random.default_rng([self.seed, stable_int(prompt), stable_int(seed)])
        words = self._text(prompt, rng).split()
        if len(words) > max_tokens:
            return " ".join(words[:max_tokens]), "length"
        return " ".join(words), "stop"

    @staticmethod
    def _completion(model: str, prompt: str, text: str, finish: str) -> dict[str, Any]:
        prompt_tokens, completion_tokens = len(prompt.split()), len(text.split())
        message = {"role": "assistant", "content": text, "refusal": None}
        return {
            "id": f"chatcmpl-{stable_int(prompt, ascii(text), time.time_ns()) % 10**12}",
            "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }  # fmt: skip
