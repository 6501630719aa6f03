"""The hf backend on a GPU: tokens/s beside the forward-pass ceiling of the same device.

Ceiling: a plain forward pass (``model(ids, logits_to_keep=1)``) over random ids,
``--ceiling-batch`` rows of ``--ceiling-tokens`` tokens, warm (two untimed passes, then
the median of five): the tokens/s the device computes when nothing else is in the way.
Every leg is printed with its ratio to the ceiling of its own precision.

Generation: the More of the Same study's own prompts (63 occupations x 2 templates x 4
conditions, the study's system prompt; ``--prompts`` of them), greedy, ``--max-tokens``
each. Legs, each over the same prompts:

* ``bare, batch 1``: ``model.generate`` one prompt at a time (the first ``--one-by-one``);
* ``bare, batch B``: ``model.generate`` over left-padded batches of B, B being the size
  ``batch_size=auto`` chose (what a user who batches by hand would write);
* ``gasp, batch 16``: the hf backend at batch 16 through ResilientModel, over the first
  ``--fixed-prompts``;
* ``gasp, auto``: the hf backend with ``batch_size=auto`` through ResilientModel (the
  choice's own timing is reported apart); on a GPU it decodes with the static cache
  replayed as a CUDA graph (``decoder=static``).

Greedy decoding makes the texts of ``bare, batch B`` and ``gasp, auto`` comparable: the
script prints the share that are identical.

Scoring: the default OccuGender study's 560 raw-text items (9,240 candidates); its
tokens are those of every context + candidate row (what ``joint`` reads). Legs:

* ``bare loop``: per context, one forward pass over its context + candidate rows
  (attention mask for the padding), log-softmax, the candidates' tokens gathered and
  summed (one transfer per context), over the first ``--bare-items`` items;
* ``gasp cache`` (with ``--cache-leg``) and ``gasp joint``: the hf backend's exact
  strategies through ResilientModel, in batches of the auto size;
* with ``--precisions``: ``joint`` with TF32 matrix products (``tf32=true``) and in
  bfloat16, each with its largest difference from the float32 ``joint`` scores.

The script checks that the float32 legs give the same log-probabilities (within 1e-3).

    python bench/bench_gpu.py --model /path/to/smollm2-folder            # GPU if present
    python bench/bench_gpu.py --model /path/to/file.gguf --device cpu --prompts 16 \
        --max-tokens 8 --score-items 8 --ceiling-batch 4 --ceiling-tokens 16
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
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


def forward_ceiling(backend: HFBackend, batch: int, tokens: int) -> float:
    """Tokens/s of a plain forward pass over random ids (warm; median of five passes)."""
    loaded = backend.load()
    generator = torch.Generator().manual_seed(0)
    vocab = int(loaded.model.config.vocab_size)
    ids = torch.randint(0, vocab, (batch, tokens), generator=generator).to(backend.device)
    times = []
    with torch.inference_mode(), backend_precision(backend):
        for i in range(7):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            started = time.perf_counter()
            loaded.model(input_ids=ids, logits_to_keep=1)
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            if i >= 2:
                times.append(time.perf_counter() - started)
    return batch * tokens / statistics.median(times)


def backend_precision(backend: HFBackend) -> Any:
    """The backend's float32 matrix-product precision as a context (TF32 where asked)."""
    from gasp.backends._hf_decoding import matmul_precision

    return matmul_precision(backend.tf32)


def precision_name(backend: HFBackend) -> str:
    """``float32``, ``float32 + TF32`` or the dtype."""
    return f"{backend.dtype} + TF32" if backend.tf32 else backend.dtype


def row_tokens(backend: HFBackend, requests: Sequence[ScoreRequest]) -> int:
    """Tokens of every context + candidate row of ``requests`` (what ``joint`` reads)."""
    tok = backend.load().tokenizer
    total = 0
    for request in requests:
        enc = encode_request(tok, request)
        total += sum(len(enc.context_ids) + len(ids) for ids in enc.candidate_ids)
    return total


def main() -> None:
    """Run every leg and print the tables (and write them as JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a transformers model folder or .gguf")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--prompts", type=int, default=2048)
    parser.add_argument("--one-by-one", type=int, default=32, help="prompts at batch 1 (0: none)")
    parser.add_argument("--fixed-prompts", type=int, default=256, help="at batch 16 (0: none)")
    parser.add_argument("--max-tokens", type=int, default=80)
    parser.add_argument("--score-items", type=int, default=0, help="0: every OccuGender item")
    parser.add_argument("--bare-items", type=int, default=0, help="0: every scored item")
    parser.add_argument("--no-scoring", action="store_true")
    parser.add_argument("--cache-leg", action="store_true", help="also time scoring=cache")
    parser.add_argument("--precisions", action="store_true", help="joint in TF32 and bfloat16")
    parser.add_argument("--ceiling-batch", type=int, default=512)
    parser.add_argument("--ceiling-tokens", type=int, default=64)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--texts", type=Path, default=None, help="write both legs' texts (JSON)")
    args = parser.parse_args()
    path = Path(args.model)
    if path.suffix == ".gguf":
        source = ModelSource(str(path.parent), path.name)
    else:
        source = ModelSource(args.model)

    def backend(dtype: str = args.dtype, **options: Any) -> HFBackend:
        return HFBackend(
            source, model_id=f"hf/{args.model}", device=args.device, dtype=dtype, **options
        )

    auto = backend()
    started = time.perf_counter()
    auto.load()
    load_s = time.perf_counter() - started
    name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    print(f"{name}; model {args.model} ({args.dtype}) loaded in {load_s:.1f} s", flush=True)
    ceilings: dict[str, float] = {}

    def ceiling_of(b: HFBackend) -> float:
        key = precision_name(b)
        if key not in ceilings:
            ceilings[key] = forward_ceiling(b, args.ceiling_batch, args.ceiling_tokens)
            print(f"  forward-pass ceiling, {key}: {ceilings[key]:,.0f} tokens/s", flush=True)
        return ceilings[key]

    ceiling = ceiling_of(auto)
    _, choose_s = timed("batch size choice", auto.preferred_batch_size)
    print(f"  {auto.batching_note()}")
    size = auto.preferred_batch_size()

    requests = study_prompts(args.prompts, args.max_tokens)
    print(f"generation: {len(requests)} prompts, greedy, max_tokens {args.max_tokens}")
    rows: list[tuple[str, int, int, float]] = []  # leg, prompts, tokens, seconds
    if args.one_by_one:
        one = requests[: args.one_by_one]
        (_, tokens), seconds = timed("bare, batch 1", bare_generate, auto, one, 1)
        rows.append(("bare model.generate, batch 1", len(one), tokens, seconds))
    (bare_texts, tokens), seconds = timed(
        f"bare, batch {size}", bare_generate, auto, requests, size
    )
    rows.append((f"bare model.generate, batch {size}", len(requests), tokens, seconds))
    legs: list[tuple[str, ResilientModel, Sequence[GenerationRequest]]] = []
    if args.fixed_prompts:
        fixed = ResilientModel(backend(batch_size=16), max_concurrency=1)
        legs.append(("gasp hf backend, batch 16", fixed, requests[: args.fixed_prompts]))
    label = f"gasp hf backend, auto ({size}), {auto.decoder}"
    legs.append((label, ResilientModel(auto, max_concurrency=1), requests))
    for label, model, subset in legs:
        answers, seconds = timed(label, through_gasp, model, subset)
        tokens = sum(r.completion_tokens or 0 for r in answers.values())
        rows.append((label, len(subset), tokens, seconds))
    gasp_texts = [answers[r.key].text for r in requests]
    same = sum(a == b for a, b in zip(gasp_texts, bare_texts, strict=True)) / len(requests)
    print(f"\nforward-pass ceiling ({args.dtype}): {ceiling:,.0f} tokens/s")
    print(
        f"{'generation leg':44s} {'prompts':>8s} {'tokens':>8s} {'s':>7s} {'tokens/s':>10s}"
        f" {'/ceiling':>9s}"
    )
    for label, n, tokens, seconds in rows:
        rate = tokens / seconds
        print(f"{label:44s} {n:8d} {tokens:8d} {seconds:7.1f} {rate:10.1f} {rate / ceiling:9.3f}")
    print(f"identical greedy texts, bare batch {size} vs gasp auto: {same:.1%}")
    if args.texts:
        args.texts.write_text(json.dumps({"bare": bare_texts, "gasp": gasp_texts}))
    decoder = auto.load().static
    mode = decoder.mode if decoder is not None else "model.generate"
    print(f"gasp auto decoded with: {mode}", flush=True)

    score_rows: list[tuple[str, float, float, float, int, int]] = []
    n_candidates = 0
    if not args.no_scoring:
        scoring = study_score_requests()
        if args.score_items:
            scoring = scoring[: args.score_items]
        n_candidates = sum(len(r.candidates) for r in scoring)
        n_tokens = row_tokens(auto, scoring)
        print(
            f"\nscoring: {len(scoring)} OccuGender items, {n_candidates} candidates,"
            f" {n_tokens} row tokens",
            flush=True,
        )
        bare_part = scoring[: args.bare_items] if args.bare_items else scoring
        bare, bare_s = timed("bare loop", bare_score, auto, bare_part)
        bare_tokens = row_tokens(auto, bare_part)
        score_rows.append(
            (
                "bare forward loop, one context per pass",
                bare_s,
                0.0,
                ceiling,
                bare_tokens,
                sum(len(r.candidates) for r in bare_part),
            )
        )
        reference: dict[str, list[float]] = {}
        strategies = ["cache", "joint"] if args.cache_leg else ["joint"]
        variants: list[tuple[str, dict[str, Any]]] = [
            (s, {"dtype": args.dtype, "scoring": s}) for s in strategies
        ]
        if args.precisions:
            variants += [
                ("joint", {"dtype": "float32", "scoring": "joint", "tf32": True}),
                ("joint", {"dtype": "bfloat16", "scoring": "joint"}),
            ]
        for strategy, options in variants:
            b = backend(batch_size=size, **options)
            label = f"gasp {strategy}, {precision_name(b)}"
            leg_ceiling = ceiling_of(b)
            answers, seconds = timed(
                label, through_gasp, ResilientModel(b, max_concurrency=1), scoring
            )
            got = {r.key: [s.logprob for s in answers[r.key].scores] for r in scoring}
            if not reference and precision_name(b) == "float32":
                reference = got
            worst_bare = max(
                abs(a - v)
                for r, values in zip(bare_part, bare, strict=True)
                for a, v in zip(got[r.key], values, strict=True)
            )
            if precision_name(b) == args.dtype:
                assert worst_bare < 1e-3, f"{label}: log-probabilities differ by {worst_bare}"
            worst = worst_bare
            if reference and precision_name(b) != "float32":
                worst = max(
                    abs(a - v)
                    for key, values in reference.items()
                    for a, v in zip(got[key], values, strict=True)
                )
            score_rows.append(
                (f"{label}, batch {size}", seconds, worst, leg_ceiling, n_tokens, n_candidates)
            )
        print(
            f"\n{'scoring leg':44s} {'s':>7s} {'candidates/s':>13s} {'tokens/s':>10s}"
            f" {'ceiling':>10s} {'/ceiling':>9s} {'max |diff|':>11s}"
        )
        for label, seconds, worst, leg_ceiling, tokens, cands in score_rows:
            rate = tokens / seconds
            print(
                f"{label:44s} {seconds:7.2f} {cands / seconds:13.1f} {rate:10.0f}"
                f" {leg_ceiling:10.0f} {rate / leg_ceiling:9.3f} {worst:11.1e}"
            )
        print("max |diff|: against the bare loop; TF32 and bfloat16 against float32 joint")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "device": name,
                    "dtype": args.dtype,
                    "batching": auto.batching_note(),
                    "choose_s": choose_s,
                    "decoder": mode,
                    "ceilings": ceilings,
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
