"""The ``gasp view`` application served by uvicorn on 127.0.0.1 in a thread, for tests."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import uvicorn

from gasp.viewing import build_app


@contextlib.contextmanager
def serving(folders: Sequence[Path]) -> Iterator[str]:
    """Serve the browser over ``folders`` on a free port; yields its address."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(list(folders)), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
