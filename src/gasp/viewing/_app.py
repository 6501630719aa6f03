"""The live server: a Starlette application over a :class:`~gasp.viewing._site.Site`.

It answers GET only: the pages by name, the browser's own scripts and Plotly's (from
the installed packages), files under the folders given (``files/<n>/<path>``, checked
by :func:`~gasp.viewing._paths.safe_file`), and ``api/progress.json`` for the runs that
are generating. Every response forbids other origins' scripts and framing.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from gasp.errors import GaspError
from gasp.viewing._assets import asset_path
from gasp.viewing._paths import safe_file
from gasp.viewing._site import Site
from gasp.viewing._store import progress

#: Seconds a scan of the folders is reused before the next request looks again.
RESCAN_S = 1.0
#: Headers of every response.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
#: A run's own report carries its inline script and figures; it may fetch nothing.
FILE_POLICY = (
    "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline' 'self'; "
    "img-src 'self' data:; connect-src 'none'; object-src 'none'; frame-ancestors 'none'"
)


def _not_found() -> Response:
    return HTMLResponse("<!DOCTYPE html><title>not found</title><p>not found</p>", 404, HEADERS)


class _Scanner:
    """Scans the folders at most every :data:`RESCAN_S` seconds, one scan at a time."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self._lock = threading.Lock()
        self._at = 0.0
        self._reader: threading.Thread | None = None

    def fresh(self) -> None:
        """Scan again if the last scan is older than :data:`RESCAN_S`; headline metrics
        not read yet are read by a background thread, not by the request."""
        with self._lock:
            if time.monotonic() - self._at >= RESCAN_S:
                self.site.catalog.scan(metrics=False)
                self._at = time.monotonic()
            if self.site.catalog.pending and (self._reader is None or not self._reader.is_alive()):
                self._reader = threading.Thread(target=self.site.catalog.read_metrics, daemon=True)
                self._reader.start()


def build_app(folders: Sequence[str | Path] = (".",)) -> Starlette:
    """The browser as an ASGI application over ``folders`` (serve it with any ASGI
    server; :func:`gasp.view.view` uses uvicorn)."""
    roots = [Path(f).resolve() for f in folders]
    site = Site(roots, live=True)
    scanner = _Scanner(site)

    async def page(request: Request) -> Response:
        name = request.path_params.get("name", "index.html") or "index.html"
        await asyncio.to_thread(scanner.fresh)
        html = await asyncio.to_thread(site.render, name)
        if html is None:
            return _not_found()
        return HTMLResponse(html, headers=HEADERS)

    async def static(request: Request) -> Response:
        path = asset_path(request.path_params["name"])
        if path is None:
            return _not_found()
        return FileResponse(path, headers={**HEADERS, "Cache-Control": "max-age=3600"})

    async def files(request: Request) -> Response:
        try:
            root = roots[int(request.path_params["root"])]
        except (ValueError, IndexError):
            return _not_found()
        path = safe_file(root, request.path_params["path"])
        if path is None:
            return _not_found()
        return FileResponse(path, headers={**HEADERS, "Content-Security-Policy": FILE_POLICY})

    async def live(request: Request) -> Response:
        keys = [k for k in request.query_params.get("runs", "").split(",") if k][:200]
        out: dict[str, dict[str, object]] = {}
        for key in keys:
            run = site.catalog.runs.get(key)
            if run is None or run.store is None:
                continue
            try:
                done, total, running = await asyncio.to_thread(progress, run.store)
            except GaspError as exc:
                out[key] = {"error": str(exc)}
                continue
            out[key] = {"answers": done, "expected": max(total, done), "running": running}
        return JSONResponse(json.loads(json.dumps(out)), headers=HEADERS)

    routes = [
        Route("/", page),
        Route("/api/progress.json", live),
        Route("/static/{name}", static),
        Route("/files/{root}/{path:path}", files),
        Route("/{name}", page),
    ]
    app = Starlette(routes=routes)
    app.state.site = site
    app.state.scanner = scanner
    return app


__all__ = ["HEADERS", "build_app"]
