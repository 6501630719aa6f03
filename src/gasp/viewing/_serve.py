"""``gasp view``: serve the browser on this machine, or write it as a static site."""

from __future__ import annotations

import socket
import sys
import threading
import warnings
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from gasp.errors import ConfigError

#: The only address served unless another host is asked for.
LOCAL_HOST = "127.0.0.1"


def _check_folders(folders: Sequence[str | Path]) -> list[Path]:
    roots = [Path(f) for f in (folders or (".",))]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        raise ConfigError(
            f"not a folder: {', '.join(missing)}; give folders holding runs or audits"
        )
    return roots


def view(
    folders: Sequence[str | Path] = (".",),
    *,
    host: str = LOCAL_HOST,
    port: int = 0,
    open_browser: bool = True,
    export: str | Path | None = None,
) -> str:
    """Browse every run and audit under ``folders``, read-only.

    With ``export``, write the pages as a static site in that folder and return the
    path of its ``index.html``. Otherwise serve them on ``host``:``port`` (``port`` 0:
    a free one) until interrupted, print the address, open a browser unless
    ``open_browser`` is false, and return the address when the server stops. A host
    other than 127.0.0.1 lets other machines read the results: it is warned about.
    """
    roots = _check_folders(folders)
    if export is not None:
        from gasp.viewing._export import export_site

        return str(export_site(roots, export))
    import uvicorn

    from gasp.viewing._app import build_app

    if host != LOCAL_HOST:
        warnings.warn(
            f"gasp view serves on {host}: other machines that reach it can read every "
            "result under the folders given",
            UserWarning,
            stacklevel=2,
        )
    app = build_app(roots)
    app.state.scanner.fresh()  # the folders are searched before the address is given
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{bound}/"
    print(f"gasp view: {address} (Ctrl+C stops it)", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(address,)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return address


__all__ = ["LOCAL_HOST", "view"]
