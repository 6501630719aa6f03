"""The hf backend on a GPU: tokens/s and candidates/s against bare transformers loops.

Generation: the More of the Same study's own prompts (63 occupations x 2 templates x 4
conditions, the study's system prompt; ``--prompts`` of them), greedy, ``--max-tokens``
each. Legs, each over the same prompts:

* ``bare, batch 1``: ``model.generate`` one prompt at a time (the first ``--one-by-one``);
* ``bare, batch B``: ``model.generate`` over left-padded batches of B, B being the size
  ``batch_size=auto`` chose (what a user who batches by hand would write);
* ``gasp, batch 16``: the hf backend at its CPU batch size through ResilientModel, over
  the first ``--fixed-prompts``;
* ``gasp, auto``: the hf backend with ``batch_size=auto`` through ResilientModel (the
  choice's own timing is reported apart).

Greedy decoding makes the texts of ``bare, batch B`` and ``gasp, auto`` comparable: the
script prints the share that are identical (GPU kernels may round differently with
the batch's padding, which can change a greedy choice).

Scoring: the default OccuGender study's 560 raw-text items (9,240 candidates). Legs:

* ``bare loop``: per context, one forward pass over its context + candidate rows
  (attention mask for the padding), log-softmax, the candidates' tokens gathered and
  summed (one transfer per context);
* ``gasp cache`` and ``gasp joint``: the hf backend's two exact strategies through
  ResilientModel, in batches of the auto size.

The script checks that every leg gives the same log-probabilities (within 1e-3).

    python bench/bench_gpu.py --model /path/to/smollm2-folder            # GPU if present
    python bench/bench_gpu.py --model /path/to/folder --device cpu --prompts 32 --max-tokens 16
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    ResilientModel,
    ScoreRequest,
)
from gasp.backends._hf import HFBackend, ModelSource
from gasp.backends._hf_scoring import encode_request
from gasp.runner import RequestKind
from gasp.studies import get_study_type


def study_prompts(n: int, max_tokens: int) -> list[GenerationRequest]:
    """The first ``n`` generation prompts of the default More of the Same study, greedy."""
    plan = get_study_type("more-of-the-same").build("more-of-the-same", {}).to_plan()
    decoding = DecodingConfig(temperature=0.0, max_tokens=max_tokens, seed=0)
    requests = []
    for item in plan.items:
        if item.kind is not RequestKind.GENERATE:
            continue
        messages = item.messages(plan.system_prompt) or ()
        requests.append(
            GenerationRequest(
                key=item.item_id,
                messages=tuple(ChatMessage(role, text) for role, text in messages),
                decoding=decoding,
            )
        )
    repeated = (requests * (1 + n // max(1, len(requests))))[:n]
    return [dataclasses.replace(r, key=f"{r.key}#{i}") for i, r in enumerate(repeated)]


def study_score_requests() -> list[ScoreRequest]:
    """Every score item of the default OccuGender study."""
    plan = get_study_type("occugender").build("occugender", {}).to_plan()
    return [ScoreRequest(i.item_id, i.prompt, i.candidates) for i in plan.items]


def bare_generate(backend: HFBackend, requests: Sequence[GenerationRequest], batch: int) -> tuple:
    """``model.generate`` over batches of ``batch``: (texts, generated tokens)."""
    loaded = backend.load()
    tok, model = loaded.tokenizer, loaded.model
    texts, tokens = [], 0
    for start in range(0, len(requests), batch):
        chunk = requests[start : start + batch]
        prompts = [
            tok.apply_chat_template(
                [{"role": m.role, "content": m.content} for m in r.messages],
                tokenize=False,
                add_generation_prompt=True,
            )
            for r in chunk
        ]
        encoded = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        encoded = encoded.to(backend.device)
        with torch.inference_mode():
            output = model.generate(
                **encoded,
                max_new_tokens=chunk[0].decoding.max_tokens,
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                pad_token_id=loaded.pad_id,
                eos_token_id=sorted(loaded.eos_ids),
            )
        for row in output[:, encoded["input_ids"].shape[1] :].tolist():
            end = next((j for j, t in enumerate(row) if t in loaded.eos_ids), None)
            tokens += len(row) if end is None else end + 1
            texts.append(tok.decode(row[: end or len(row)], skip_special_tokens=True).strip())
    return texts, tokens


class ListSource:
    """Hands ``ResilientModel.stream`` a fixed list of requests, in order."""

    def __init__(self, requests: Sequence[Any]) -> None:
        self.left = list(requests)

    def take(self, limit: int) -> list[Any]:
        """The next ``limit`` requests ([] once every one is taken)."""
        taken, self.left = self.left[:limit], self.left[limit:]
        return taken


def through_gasp(model: ResilientModel, requests: Sequence[Any]) -> dict[str, Any]:
    """Every request through ``ResilientModel.stream``; responses by request key."""

    async def run() -> dict[str, Any]:
        source = ListSource(requests)
        return {request.key: response async for request, response in model.stream(source)}

    return asyncio.run(run())


def bare_score(backend: HFBackend, requests: Sequence[ScoreRequest]) -> list[list[float]]:
    """Per context one masked forward pass over its context + candidate rows."""
    loaded = backend.load()
    out = []
    for request in requests:
        enc = encode_request(loaded.tokenizer, request)  # the backend's tokens
        n = len(enc.context_ids)
        rows = [list(enc.context_ids + ids) for ids in enc.candidate_ids]
        width = max(map(len, rows))
        ids = torch.tensor([r + [loaded.pad_id] * (width - len(r)) for r in rows])
        mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
        row_index = [i for i, c in enumerate(enc.candidate_ids) for _ in c]
        positions = [n - 1 + j for c in enc.candidate_ids for j in range(len(c))]
        targets = [t for c in enc.candidate_ids for t in c]
        with torch.inference_mode():
            logits = loaded.model(
                ids.to(backend.device), attention_mask=mask.to(backend.device)
            ).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            picked = logprobs[row_index, positions, targets].tolist()
        sums = [0.0] * len(rows)
        for row, value in zip(row_index, picked, strict=True):
            sums[row] += value
        out.append(sums)
    return out


def timed(label: str, fn: Any, *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` and its wall time, the device drained before and after."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    started = time.perf_counter()
    result = fn(*args)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    print(f"  {label}: {seconds:.1f} s", flush=True)
    return result, seconds


def main() -> None:
    """Run every leg and print the tables (and write them as JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a transformers model folder")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--prompts", type=int, default=2048)
    parser.add_argument("--one-by-one", type=int, default=32, help="prompts of the batch-1 leg")
    parser.add_argument("--fixed-prompts", type=int, default=256, help="prompts at batch 16")
    parser.add_argument("--max-tokens", type=int, default=80)
    parser.add_argument("--score-items", type=int, default=0, help="0: every OccuGender item")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    source = ModelSource(args.model)

    def backend(**options: Any) -> HFBackend:
        return HFBackend(
            source, model_id=f"hf/{args.model}", device=args.device, dtype=args.dtype, **options
        )

    auto = backend()
    started = time.perf_counter()
    auto.load()
    load_s = time.perf_counter() - started
    name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    print(f"{name}; model {args.model} ({args.dtype}) loaded in {load_s:.1f} s", flush=True)
    _, choose_s = timed("batch size choice", auto.preferred_batch_size)
    print(f"  {auto.batching_note()}")
    size = auto.preferred_batch_size()

    requests = study_prompts(args.prompts, args.max_tokens)
    print(f"generation: {len(requests)} prompts, greedy, max_tokens {args.max_tokens}")
    rows: list[tuple[str, int, int, float]] = []  # leg, prompts, tokens, seconds
    one = requests[: args.one_by_one]
    (_, tokens), seconds = timed("bare, batch 1", bare_generate, auto, one, 1)
    rows.append(("bare model.generate, batch 1", len(one), tokens, seconds))
    (bare_texts, tokens), seconds = timed(
        f"bare, batch {size}", bare_generate, auto, requests, size
    )
    rows.append((f"bare model.generate, batch {size}", len(requests), tokens, seconds))
    for label, model, subset in (
        (
            "gasp hf backend, batch 16",
            ResilientModel(backend(batch_size=16), max_concurrency=1),
            requests[: args.fixed_prompts],
        ),
        (f"gasp hf backend, auto ({size})", ResilientModel(auto, max_concurrency=1), requests),
    ):
        answers, seconds = timed(label, through_gasp, model, subset)
        tokens = sum(r.completion_tokens or 0 for r in answers.values())
        rows.append((label, len(subset), tokens, seconds))
    gasp_texts = [answers[r.key].text for r in requests]
    same = sum(a == b for a, b in zip(gasp_texts, bare_texts, strict=True)) / len(requests)
    print(f"\n{'generation leg':38s} {'prompts':>8s} {'tokens':>8s} {'s':>7s} {'tokens/s':>10s}")
    for label, n, tokens, seconds in rows:
        print(f"{label:38s} {n:8d} {tokens:8d} {seconds:7.1f} {tokens / seconds:10.1f}")
    print(f"identical greedy texts, bare batch {size} vs gasp auto: {same:.1%}")

    scoring = study_score_requests()
    if args.score_items:
        scoring = scoring[: args.score_items]
    n_candidates = sum(len(r.candidates) for r in scoring)
    print(f"\nscoring: {len(scoring)} OccuGender items, {n_candidates} candidates", flush=True)
    bare, bare_s = timed("bare loop", bare_score, auto, scoring)
    score_rows = [("bare forward loop, one context per pass", bare_s, 0.0)]
    for strategy in ("cache", "joint"):
        model = ResilientModel(backend(scoring=strategy, batch_size=size), max_concurrency=1)
        answers, seconds = timed(f"gasp {strategy}", through_gasp, model, scoring)
        worst = max(
            abs(s.logprob - b)
            for r, values in zip(scoring, bare, strict=True)
            for s, b in zip(answers[r.key].scores, values, strict=True)
        )
        assert worst < 1e-3, f"{strategy}: log-probabilities differ by {worst}"
        score_rows.append((f"gasp hf backend, {strategy}, batch {size}", seconds, worst))
    print(f"\n{'scoring leg':44s} {'s':>7s} {'candidates/s':>13s} {'max |diff|':>11s}")
    for label, seconds, worst in score_rows:
        print(f"{label:44s} {seconds:7.2f} {n_candidates / seconds:13.1f} {worst:11.1e}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "device": name,
                    "batching": auto.batching_note(),
                    "choose_s": choose_s,
                    "generation": rows,
                    "identical_share": same,
                    "scoring": score_rows,
                    "candidates": n_candidates,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
