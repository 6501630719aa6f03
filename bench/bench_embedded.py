"""Load time and generation speed of the embedded model (SmolLM2-135M): transformers vs CTranslate2.

Prints, in one run, side by side for the two generation engines of ``embedded``:

* load time of a first start and of a later (cached) start: transformers reads the
  GGUF file, dequantizes it and writes the weight cache, later the cached
  safetensors; CTranslate2 converts the cached safetensors to int8 and writes its
  cache, later opens the cached conversion (a real first start pays the
  transformers first load *and* the conversion);
* tokens per second of each engine's generation path (the backend's batch call, in
  a worker thread as under asyncio, greedy) on the same prompts at batch sizes 1,
  16 and 32, and how many greedy texts the two engines share (int8 and float32
  weights round differently, so some texts part after a few tokens);
* the machine's load average before and after (a shared machine slows both legs).

The caches go to a fresh temporary folder unless ``--cache-dir`` is given, so the
first loads are real first loads.

    python bench/bench_embedded.py                      # 32 prompts, 16 tokens each
    python bench/bench_embedded.py --prompts 32 --max-tokens 32 --batch-sizes 1,16,32
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def _in_thread(fn: Any, *args: Any) -> Any:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args).result()


def _load_times(engine: str, load: Any, reset: Any) -> tuple[float, float]:
    times = []
    for _ in range(2):
        reset()  # a new process: nothing loaded yet
        start = time.perf_counter()
        load()
        times.append(time.perf_counter() - start)
    print(f"  {engine:<13} first start {times[0]:6.1f} s, cached start {times[1]:6.1f} s")
    return times[0], times[1]


def _generate(backend: Any, requests: list[Any], batch: int) -> tuple[float, list[str]]:
    texts: list[str] = []
    tokens = 0
    start = time.perf_counter()
    for first in range(0, len(requests), batch):
        for response in _in_thread(backend._generate_sync, requests[first : first + batch]):
            texts.append(response.text)
            tokens += response.completion_tokens or 0
    return tokens / (time.perf_counter() - start), texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--batch-sizes", default="1,16,32")
    parser.add_argument("--threads", type=int, default=None, help="CTranslate2 threads")
    parser.add_argument("--cache-dir", help="gasp cache folder (default: a fresh temp folder)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    temp = None
    if args.cache_dir is None:
        temp = tempfile.mkdtemp(prefix="gasp-bench-cache-")
        args.cache_dir = temp
    os.environ["GASP_CACHE_DIR"] = args.cache_dir

    import ctranslate2
    import torch

    from bench_hf_backend import make_requests  # the same prompts as that benchmark
    from gasp.backends import _ct2, _hf
    from gasp.backends._embedded import embedded_backend

    try:
        print(
            f"torch {torch.__version__} ({torch.get_num_threads()} threads),"
            f" ctranslate2 {ctranslate2.__version__}, load average {os.getloadavg()[0]:.2f},"
            f" cache {args.cache_dir}"
        )
        old = embedded_backend({"engine": "transformers"})
        options: dict[str, Any] = {"engine": "ctranslate2"}
        if args.threads:
            options["threads"] = args.threads
        new = embedded_backend(options)
        assert new.ct2 is not None
        print(f"load (ctranslate2: int8, {new.ct2.threads} threads)")
        _load_times("transformers", old.load, _hf._CACHE.clear)
        _load_times("ctranslate2", new.load_generator, _ct2._CONVERTED.clear)

        requests = make_requests(args.prompts, args.max_tokens)
        print(f"generation: {len(requests)} prompts, greedy, max {args.max_tokens} tokens each")
        print("  batch   transformers fp32   ctranslate2 int8   speed-up   same texts")
        for batch in sizes:
            old_rate, old_texts = _generate(old, requests, batch)
            new_rate, new_texts = _generate(new, requests, batch)
            same = sum(a == b for a, b in zip(old_texts, new_texts, strict=True))
            print(
                f"  {batch:>5}   {old_rate:8.1f} tokens/s   {new_rate:8.1f} tokens/s"
                f"   {new_rate / old_rate:7.2f}x   {same:>3}/{len(requests)}"
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
