"""vLLM's OpenAI-compatible server, started by the tests from the separate environment.

The environment is ``.venv-vllm`` beside the project (``scripts/setup.sh --vllm``), or
the Python named by ``GASP_VLLM_PYTHON``. Where it is absent, the tests marked
``vllm`` skip with :data:`SKIP_REASON`. A server runs the embedded model exported by
``gasp model export-hf`` in float32, with no compilation (``-O0``: it starts in
about a minute instead of ten on two cores) and a small KV cache (1 GiB).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVED_NAME = "smollm2"
#: How long a server may take to answer its first request (a cold start on a busy
#: two-core machine took up to 10 minutes with compilation, see docs/vllm.md).
START_TIMEOUT_S = float(os.environ.get("GASP_VLLM_START_TIMEOUT_S", "900"))


def vllm_python() -> Path | None:
    """The vLLM environment's Python, or None where it is absent."""
    named = os.environ.get("GASP_VLLM_PYTHON")
    python = Path(named) if named else ROOT / ".venv-vllm" / "bin" / "python"
    if not python.is_file():
        return None
    found = list(python.parent.parent.glob("lib/python3*/site-packages/vllm/__init__.py"))
    return python if found or named else None


SKIP_REASON = (
    "the vLLM environment is absent (.venv-vllm or GASP_VLLM_PYTHON): "
    "create it with scripts/setup.sh --vllm"
)


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class VLLMServer:
    """One ``vllm.entrypoints.openai.api_server`` process on a loopback port.

    Another OpenAI-compatible server subclasses it with its own :meth:`command`.
    """

    #: The server's name in error messages.
    name = "vLLM"

    def __init__(self, python: Path, model_dir: Path, log: Path, port: int | None = None) -> None:
        self.python = python
        self.model_dir = model_dir
        self.log = log
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.start_s: float | None = None

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """The command line that starts the server."""
        return [
            str(self.python), "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(self.model_dir), "--served-model-name", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--dtype", "float32", "--max-model-len", "1024", "-O0",
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        """The server's environment variables."""
        return {
            **os.environ,
            "VLLM_CPU_KVCACHE_SPACE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }

    def start(self, timeout_s: float = START_TIMEOUT_S) -> VLLMServer:
        """Start the server and wait (at most ``timeout_s``) until it lists its model."""
        started = time.monotonic()
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.command(),
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                start_new_session=True,
            )
        while time.monotonic() - started < timeout_s:
            if self.process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{tail}")
            if self._lists_model():
                self.start_s = time.monotonic() - started
                return self
            time.sleep(2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer within {timeout_s:.0f} s (log: {self.log})")

    def _lists_model(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=5) as reply:
                names = [m["id"] for m in json.loads(reply.read())["data"]]
        except (OSError, ValueError, KeyError):
            return False
        return SERVED_NAME in names

    def stop(self) -> None:
        """Stop the server and every process it started."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
