"""The batch endpoints of :class:`~gasp.testing.FakeOpenAIServer` (``server.batch``).

``POST /v1/files`` (multipart, purpose ``batch``), ``GET /v1/files/{id}/content``,
``POST /v1/batches``, ``GET /v1/batches``, ``GET /v1/batches/{id}`` and
``POST /v1/batches/{id}/cancel``, answering each line exactly as the server answers
a direct chat completion (same text for the same prompt and seed). Controls, set on
``server.batch`` at any time:

- ``complete_after_polls``: a batch ends at its k-th retrieval (``validating``, then
  ``in_progress`` until then);
- ``outcomes``: the terminal statuses of the next batches created, in order
  (``completed`` when empty): ``expired`` and ``cancelled`` answer the first
  ``partial_share`` of the lines and put the rest in the error file
  (``batch_expired`` / ``batch_cancelled``); ``failed`` answers nothing;
- ``fail_once``: custom ids whose first line goes to the error file (HTTP 500);
- ``max_requests``: more lines than this fail the batch at validation;
- ``unavailable``: how many of the next calls to these endpoints answer 503.

Counters: ``submissions`` (batches created), ``uploads``, ``polls`` and ``answered``
(custom id -> lines answered successfully). A batch whose lines break the format
(not JSON, a duplicate ``custom_id``, another method or url) fails at validation.
"""

from __future__ import annotations

import collections
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from gasp.testing._fake_prompt import chat_logprobs

if TYPE_CHECKING:
    from gasp.testing._fake_server import FakeOpenAIServer

_T = TypeVar("_T")

ENDPOINT = "/v1/chat/completions"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})


def error_reply(
    status: int,
    message: str,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> web.Response:
    """An OpenAI-style error answer."""
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return web.json_response(body, status=status, headers=headers)


class FakeBatchAPI:
    """Files and batches held in memory; see the module docstring for the controls."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        self._server = server
        self.complete_after_polls = 1
        self.outcomes: list[str] = []
        self.partial_share = 0.5
        self.fail_once: set[str] = set()
        self.max_requests = 50_000
        self.unavailable = 0
        self.submissions = 0
        self.uploads = 0
        self.polls = 0
        self.answered: collections.Counter[str] = collections.Counter()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._lines: dict[str, list[dict[str, Any]]] = {}
        self._outcome: dict[str, tuple[str, str | None]] = {}
        self._polled: collections.Counter[str] = collections.Counter()
        self._failed_once: set[str] = set()

    def add_routes(self, app: web.Application) -> None:
        """Serve the batch endpoints on ``app``."""
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{file_id}/content", self._content)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches", self._list)
        app.router.add_get("/v1/batches/{batch_id}", self._retrieve)
        app.router.add_post("/v1/batches/{batch_id}/cancel", self._cancel)

    def _refuse(self, request: web.Request) -> web.Response | None:
        """The error answer to a call without the key, or to one of the ``unavailable``."""
        if not self._server._authorized(request):
            return error_reply(401, "Incorrect API key provided.")
        if self.unavailable > 0:
            self.unavailable -= 1
            return error_reply(503, "The server is overloaded.")
        return None

    def _named(
        self, request: web.Request, table: Mapping[str, _T], key: str, missing: str
    ) -> _T | web.Response:
        """The entry of ``table`` that the path's ``key`` names, or the answer to give
        instead: a refusal (:meth:`_refuse`), or 404 with ``missing`` when there is none."""
        refused = self._refuse(request)
        if refused is not None:
            return refused
        entry = table.get(request.match_info[key])
        return error_reply(404, missing) if entry is None else entry

    # -- files

    async def _upload(self, request: web.Request) -> web.StreamResponse:
        refused = self._refuse(request)
        if refused is not None:
            return refused
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or not isinstance(upload, web.FileField):
            return error_reply(400, "A file with purpose 'batch' is required.")
        data = upload.file.read()
        self.uploads += 1
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = data
        return web.json_response(self._file(file_id, upload.filename, "batch"))

    def _file(self, file_id: str, name: str, purpose: str) -> dict[str, Any]:
        size = len(self.files[file_id])
        return {
            "id": file_id,
            "object": "file",
            "bytes": size,
            "created_at": int(time.time()),
            "filename": name,
            "purpose": purpose,
        }

    async def _content(self, request: web.Request) -> web.StreamResponse:
        data = self._named(request, self.files, "file_id", "No such file.")
        if isinstance(data, web.Response):
            return data
        return web.Response(body=data, content_type="application/octet-stream")

    # -- batches

    async def _create(self, request: web.Request) -> web.StreamResponse:
        refused = self._refuse(request)
        if refused is not None:
            return refused
        body = await request.json()
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return error_reply(404, "No such input file.")
        if body.get("endpoint") != ENDPOINT or body.get("completion_window") != "24h":
            return error_reply(400, "Unsupported endpoint or completion window.")
        self.submissions += 1
        batch_id = f"batch_{len(self.batches) + 1}"
        lines, problem = self._parse(data)
        outcome = self.outcomes.pop(0) if self.outcomes else "completed"
        self._lines[batch_id] = lines
        self._outcome[batch_id] = ("failed", problem) if problem else (outcome, None)
        self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": ENDPOINT,
            "errors": None,
            "input_file_id": body["input_file_id"],
            "completion_window": "24h",
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": int(time.time()),
            "metadata": body.get("metadata") or {},
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
        }
        return web.json_response(self.batches[batch_id])

    def _parse(self, data: bytes) -> tuple[list[dict[str, Any]], str | None]:
        """The lines of an input file, and what is wrong with them (None: nothing)."""
        try:
            lines = [json.loads(t) for t in data.decode().splitlines() if t.strip()]
        except ValueError:
            return [], "the input file is not JSON lines"
        ids = [line.get("custom_id") for line in lines]
        if len(set(ids)) != len(ids) or None in ids:
            return lines, "every line needs a distinct custom_id"
        if any(line.get("method") != "POST" or line.get("url") != ENDPOINT for line in lines):
            return lines, f"every line must POST to {ENDPOINT}"
        if len(lines) > self.max_requests:
            return lines, f"at most {self.max_requests} requests per batch"
        models = self._server.models
        if models is not None and any(line["body"].get("model") not in models for line in lines):
            return lines, "a line names a model that does not exist"
        return lines, None

    async def _list(self, request: web.Request) -> web.StreamResponse:
        refused = self._refuse(request)
        if refused is not None:
            return refused
        limit = int(request.query.get("limit", "20"))
        newest = list(reversed(self.batches.values()))
        after = request.query.get("after")
        if after is not None:
            ids = [b["id"] for b in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = newest[:limit]
        return web.json_response(
            {
                "object": "list",
                "data": page,
                "has_more": len(newest) > limit,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
            }
        )

    async def _retrieve(self, request: web.Request) -> web.StreamResponse:
        batch = self._named(request, self.batches, "batch_id", "No such batch.")
        if isinstance(batch, web.Response):
            return batch
        self.polls += 1
        if batch["status"] not in TERMINAL:
            self._polled[batch["id"]] += 1
            if self._polled[batch["id"]] >= self.complete_after_polls:
                self._finish(batch, *self._outcome[batch["id"]])
            else:
                batch["status"] = "in_progress"
        return web.json_response(batch)

    async def _cancel(self, request: web.Request) -> web.StreamResponse:
        batch = self._named(request, self.batches, "batch_id", "No such batch.")
        if isinstance(batch, web.Response):
            return batch
        if batch["status"] not in TERMINAL:
            self._finish(batch, "cancelled", None)
        return web.json_response(batch)

    def _finish(self, batch: dict[str, Any], outcome: str, problem: str | None) -> None:
        """End a batch with ``outcome``, writing its output and error files."""
        batch["status"] = outcome
        if outcome == "failed":
            message = problem or "the batch failed"
            batch["errors"] = {
                "object": "list",
                "data": [
                    {"code": "invalid_request", "message": message, "param": None, "line": None}
                ],
            }
            return
        lines = self._lines[batch["id"]]
        answered = len(lines) if outcome == "completed" else int(len(lines) * self.partial_share)
        output, errors = [], []
        for position, line in enumerate(lines):
            key = str(line["custom_id"])
            entry: dict[str, Any] = {"id": f"batch_req_{position}", "custom_id": key}
            if position >= answered:
                entry |= {
                    "response": None,
                    "error": {
                        "code": f"batch_{outcome}",
                        "message": f"This request could not be executed: batch {outcome}.",
                    },
                }
                errors.append(entry)
            elif key in self.fail_once and key not in self._failed_once:
                self._failed_once.add(key)
                body = {"error": {"message": "The server had an error.", "type": "server_error"}}
                entry |= {
                    "response": {"status_code": 500, "request_id": "req", "body": body},
                    "error": None,
                }
                errors.append(entry)
            else:
                body = self._answer(line["body"])
                entry |= {
                    "response": {"status_code": 200, "request_id": "req", "body": body},
                    "error": None,
                }
                output.append(entry)
                self.answered[key] += 1
        for name, entries in (("output_file_id", output), ("error_file_id", errors)):
            if entries:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = "".join(json.dumps(e) + "\n" for e in entries).encode()
                batch[name] = file_id
        batch["request_counts"] = {
            "total": len(lines),
            "completed": len(output),
            "failed": len(errors),
        }

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion the server would give ``body`` directly (faults aside)."""
        server = self._server
        messages = body.get("messages") or []
        prompt = str(messages[-1]["content"]) if messages else ""
        text, finish, top = server._reply_text(prompt, body, legacy=False)
        answer = server._completion(str(body.get("model")), prompt, text, finish)
        if top is not None:
            answer["choices"][0]["logprobs"] = chat_logprobs(server.logprobs, text, top)
        return answer
