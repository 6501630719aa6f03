"""The hf backend on a GPU given too little memory for its batch: it splits and completes.

The process may use only ``--memory-fraction`` of the GPU's memory
(``torch.cuda.set_per_process_memory_fraction``) and the backend is given a fixed
``--batch-size`` too big for it. Legs, over the same More of the Same prompts (greedy):

* ``too big``: the backend at ``--batch-size``: its first batch runs out of memory and is
  halved until it fits (logged), every later batch is cut to that size;
* ``fits``: a fresh backend at the size the first leg ended with, for comparison.

The script checks that every prompt got exactly one answer without error, and that both
legs gave the same texts.

    python bench/bench_gpu_memory.py --model <folder> --memory-fraction 0.03 --batch-size 2048
"""

from __future__ import annotations

import argparse
import logging
import time

import torch

from bench_gpu import study_prompts, through_gasp
from gasp.backends import ResilientModel
from gasp.backends._hf import HFBackend, ModelSource


def main() -> None:
    """Run both legs and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a transformers model folder")
    parser.add_argument("--memory-fraction", type=float, default=0.03)
    parser.add_argument("--batch-size", type=int, default=2048)
    parser.add_argument("--prompts", type=int, default=4096)
    parser.add_argument("--max-tokens", type=int, default=80)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="  log: %(message)s")
    torch.cuda.set_per_process_memory_fraction(args.memory_fraction)
    total = torch.cuda.get_device_properties(0).total_memory
    print(
        f"{torch.cuda.get_device_name()}: {args.memory_fraction:.0%} of"
        f" {total / 2**30:.0f} GiB allowed; batch size {args.batch_size}"
    )
    requests = study_prompts(args.prompts, args.max_tokens)
    source = ModelSource(args.model)
    rows = []
    texts = []
    size = args.batch_size
    for label in ("too big", "fits"):
        backend = HFBackend(source, model_id=f"hf/{args.model}", device="cuda", batch_size=size)
        started = time.perf_counter()
        answers = through_gasp(ResilientModel(backend, max_concurrency=1), requests)
        seconds = time.perf_counter() - started
        assert sorted(answers) == sorted(r.key for r in requests), "an answer is missing"
        failed = sum(a.error is not None for a in answers.values())
        tokens = sum(a.completion_tokens or 0 for a in answers.values())
        rows.append((f"{label} (batch {size})", failed, tokens, seconds, backend.memory.limit))
        texts.append([answers[r.key].text for r in requests])
        size = backend.memory.limit or size
    print(f"\n{'leg':22s} {'answers':>8s} {'failed':>7s} {'s':>7s} {'tokens/s':>9s} {'cut to':>7s}")
    for label, failed, tokens, seconds, limit in rows:
        print(
            f"{label:22s} {len(requests):8d} {failed:7d} {seconds:7.1f}"
            f" {tokens / seconds:9.0f} {limit or '-':>7}"
        )
    same = sum(a == b for a, b in zip(*texts, strict=True)) / len(requests)
    print(f"identical greedy texts between the legs: {same:.1%}")


if __name__ == "__main__":
    main()
