"""Load time and generation speed of the embedded model (SmolLM2-135M), old and new start.

Prints, in one run:

* load time of the first start (the GGUF file through transformers, dequantized,
  then written to the weight cache) and of a later start (the cached safetensors);
* tokens per second of the generation path (``HFBackend``, greedy, in a worker
  thread as under asyncio) on the same prompts at batch sizes 1, 16 and 32, and a
  check that the GGUF-loaded and the cached model give the same texts;
* the same for CTranslate2 (int8, converted from the cached folder) as a compared
  engine only, where the ``ctranslate2`` package is installed; otherwise
  ``ctranslate2: not installed``.

The weight cache goes to a fresh temporary folder unless ``--cache-dir`` is given, so
the first load is a real first load.

    python bench/bench_embedded.py                      # 32 prompts, 16 tokens each
    python bench/bench_embedded.py --prompts 32 --max-tokens 32 --batch-sizes 1,16,32
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def _in_thread(fn: Any, *args: Any) -> Any:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args).result()


def _timed_load(weight_cache: bool) -> tuple[float, Any]:
    from gasp.backends import _hf

    _hf._CACHE.clear()
    start = time.perf_counter()
    loaded = _hf.load_model(_hf.embedded_source(), "cpu", "float32", weight_cache=weight_cache)
    return time.perf_counter() - start, loaded


def _generate(backend: Any, requests: list[Any], batch: int) -> tuple[float, int, list[str]]:
    texts: list[str] = []
    tokens = 0
    start = time.perf_counter()
    for first in range(0, len(requests), batch):
        for response in _in_thread(backend._generate_sync, requests[first : first + batch]):
            texts.append(response.text)
            tokens += response.completion_tokens or 0
    return time.perf_counter() - start, tokens, texts


def _ctranslate2(
    folder: Path, loaded: Any, requests: list[Any], sizes: list[int], max_tokens: int
) -> None:
    if importlib.util.find_spec("ctranslate2") is None:
        print("ctranslate2: not installed")
        return
    import ctranslate2

    from gasp._quiet import quiet_model_loading

    tok = loaded.tokenizer
    out = Path(tempfile.mkdtemp(prefix="gasp-ct2-"))
    try:
        start = time.perf_counter()
        converter = ctranslate2.converters.TransformersConverter(str(folder))
        with quiet_model_loading():
            converter.convert(str(out / "model"), quantization="int8", force=True)
        convert_s = time.perf_counter() - start
        start = time.perf_counter()
        generator = ctranslate2.Generator(
            str(out / "model"), device="cpu", compute_type="int8", intra_threads=os.cpu_count() or 1
        )
        load_s = time.perf_counter() - start
        print(
            f"ctranslate2 {ctranslate2.__version__}: convert {convert_s:.1f} s, load {load_s:.1f} s"
        )
        prompts = []
        for r in requests:
            text = tok.apply_chat_template(
                [{"role": m.role, "content": m.content} for m in r.messages],
                tokenize=False,
                add_generation_prompt=True,
            )
            ids = tok(text, add_special_tokens=False)["input_ids"]
            prompts.append(tok.convert_ids_to_tokens(ids))
        eos = sorted(loaded.eos_ids)
        for batch in sizes:
            tokens = 0
            start = time.perf_counter()
            for first in range(0, len(prompts), batch):
                results = generator.generate_batch(
                    prompts[first : first + batch],
                    max_length=max_tokens,
                    sampling_topk=1,
                    include_prompt_in_result=False,
                    end_token=eos,
                )
                for result in results:
                    tokens += min(len(result.sequences_ids[0]) + 1, max_tokens)
            elapsed = time.perf_counter() - start
            print(
                f"  ctranslate2 int8  batch {batch:>2}: {tokens:>5} tokens in {elapsed:6.1f} s"
                f" = {tokens / elapsed:6.1f} tokens/s"
            )
    except Exception as exc:  # a compared engine only: report, never fail the bench
        print(f"ctranslate2: failed ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--batch-sizes", default="1,16,32")
    parser.add_argument("--cache-dir", help="weight cache folder (default: a fresh temp folder)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    temp = None
    if args.cache_dir is None:
        temp = tempfile.mkdtemp(prefix="gasp-bench-cache-")
        args.cache_dir = temp
    os.environ["GASP_CACHE_DIR"] = args.cache_dir

    import torch

    from gasp.backends import _hf
    from gasp.backends._weight_cache import WeightCache

    try:
        print(
            f"torch {torch.__version__}, {torch.get_num_threads()} threads, cache {args.cache_dir}"
        )
        first_s, gguf_loaded = _timed_load(weight_cache=True)
        print(f"load, first start (GGUF, dequantize, write cache): {first_s:6.1f} s")
        cached_s, cached_loaded = _timed_load(weight_cache=True)
        print(f"load, later start (cached safetensors):            {cached_s:6.1f} s")
        source = _hf.embedded_source()
        gguf = Path(source.name_or_path) / str(source.gguf_file)
        folder = WeightCache().lookup(gguf, "float32")
        assert folder is not None, "the weight cache was not written"

        backend = _hf.embedded_backend({"device": "cpu"})
        from bench_hf_backend import make_requests  # the same prompts as that benchmark

        requests = make_requests(args.prompts, args.max_tokens)
        print(f"generation: {len(requests)} prompts, greedy, max {args.max_tokens} tokens each")
        reference: list[str] | None = None
        for batch in sizes:
            elapsed, tokens, texts = _generate(backend, requests, batch)
            reference = reference or texts
            print(
                f"  transformers fp32 batch {batch:>2}: {tokens:>5} tokens in {elapsed:6.1f} s"
                f" = {tokens / elapsed:6.1f} tokens/s"
            )
        # the old start's model (from the GGUF) gives the same texts as the cached one
        _hf._CACHE[(backend.source, "cpu", "float32", True)] = gguf_loaded
        _, _, gguf_texts = _generate(backend, requests, max(sizes))
        _hf._CACHE[(backend.source, "cpu", "float32", True)] = cached_loaded
        _, _, cached_texts = _generate(backend, requests, max(sizes))
        same = gguf_texts == cached_texts
        print(f"GGUF-loaded and cached model give the same texts (batch {max(sizes)}): {same}")
        _ctranslate2(folder, cached_loaded, requests, sizes, args.max_tokens)
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
