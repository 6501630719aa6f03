"""Throughput of the hf backend (embedded model) through ResilientModel vs a bare generate loop.

Both paths generate the same prompts in the same batches with greedy decoding and
the same max_tokens, so they produce the same tokens; the script checks that and
prints tokens per second for each and the wrapper's overhead in percent. The bare
loop runs in a fresh worker thread, as the backend does under asyncio.to_thread
(on a 2-core machine, generation in the main thread was measured several times slower
than in a worker thread, which would flatter the wrapper). Runs alternate their
order and the best time of each path is kept, which damps noise from other
processes on the machine.

    python bench/bench_hf_backend.py     # defaults: 16 prompts, batch 8, 32 tokens, 3 repeats
    python bench/bench_hf_backend.py --prompts 32 --batch-size 16 --max-tokens 64 --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import torch

from bench_gpu import bare_generate  # the bare loop, on the backend's device
from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    GenerationResponse,
    ResilientModel,
    StopReason,
)
from gasp.backends._embedded import embedded_backend

SUBJECTS = (
    "nurse",
    "engineer",
    "teacher",
    "pilot",
    "farmer",
    "lawyer",
    "chef",
    "scientist",
    "carpenter",
    "librarian",
    "surgeon",
    "painter",
)


def make_requests(n: int, max_tokens: int) -> list[GenerationRequest]:
    """``n`` persona prompts with greedy decoding."""
    decoding = DecodingConfig(temperature=0.0, max_tokens=max_tokens, seed=0)
    return [
        GenerationRequest(
            key=f"bench-{i}",
            messages=(ChatMessage("user", f"Describe a {SUBJECTS[i % len(SUBJECTS)]}."),),
            decoding=decoding,
        )
        for i in range(n)
    ]


async def wrapped(
    model: ResilientModel, requests: list[GenerationRequest]
) -> list[GenerationResponse]:
    """Every request through ``ResilientModel.generate_many``."""
    return [r async for r in model.generate_many(requests)]


def main() -> None:
    """Run the comparison and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    backend = embedded_backend({"batch_size": args.batch_size, "engine": "transformers"})
    started = time.perf_counter()
    backend.load()
    print(
        f"model loaded in {time.perf_counter() - started:.1f} s;"
        f" torch threads {torch.get_num_threads()}"
    )
    requests = make_requests(args.prompts, args.max_tokens)
    model = ResilientModel(backend, max_concurrency=1)
    bare_times, wrapped_times = [], []
    bare_texts: list[str] = []
    responses: list[GenerationResponse] = []
    for repeat in range(args.repeats):
        for path in ("bare", "wrapped") if repeat % 2 == 0 else ("wrapped", "bare"):
            t0 = time.perf_counter()
            if path == "bare":
                # a fresh worker thread, as asyncio.to_thread gives the backend
                with ThreadPoolExecutor(max_workers=1) as pool:
                    bare = pool.submit(bare_generate, backend, requests, args.batch_size)
                    bare_texts = list(bare.result()[0])
                bare_times.append(time.perf_counter() - t0)
            else:
                responses = asyncio.run(wrapped(model, requests))
                wrapped_times.append(time.perf_counter() - t0)
    same = sorted(r.text for r in responses) == sorted(bare_texts)
    tokens = sum(r.completion_tokens or 0 for r in responses)
    errors = sum(r.stop_reason is StopReason.ERROR for r in responses)
    bare_s, wrapped_s = min(bare_times), min(wrapped_times)
    print(
        f"{len(requests)} prompts, batch {args.batch_size}, max_tokens {args.max_tokens}: "
        f"{tokens} generated tokens; identical texts: {same}; errors: {errors}"
    )
    runs = ", ".join(f"{t:.2f}" for t in bare_times)
    print(f"bare model.generate loop    : {tokens / bare_s:8.1f} tokens/s (runs: {runs} s)")
    runs = ", ".join(f"{t:.2f}" for t in wrapped_times)
    print(f"ResilientModel.generate_many: {tokens / wrapped_s:8.1f} tokens/s (runs: {runs} s)")
    print(f"wrapper overhead: {100.0 * (wrapped_s - bare_s) / bare_s:+.1f} %")


if __name__ == "__main__":
    main()
