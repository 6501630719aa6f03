"""How long a run's requests take, for an audit's plan: a local engine (``embedded``,
``hf``, ``vllm``, ``mock``) is timed on one full batch of the study's own requests,
spread evenly over its plan (in the prompt form the run will send: a base model's
completion form), after one request that loads the model; a server is assumed to answer
the stated number of requests per second."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from gasp.auditing._execute import RunSpec
from gasp.auditing._models import SERVER_PROVIDERS
from gasp.runner import run_sync

#: Most requests of the one batch timed on a local engine (after one that loads it).
MAX_TIMED_BATCH = 32


async def _time_requests(spec: RunSpec) -> float:
    """Seconds per request of one full batch of the study's own requests, spread evenly
    over its plan, after one request that loads the model (the runner sends the backend
    such batches)."""
    from gasp.backends import GenerationRequest, resolve_backend
    from gasp.runner import apply_prompt_form, as_plan, build_request

    backend = resolve_backend(spec.setup.model.spec, options=spec.setup.backend_options or None)
    plan = apply_prompt_form(as_plan(spec.build()), backend)  # the form the run will send
    batch = max(1, min(backend.preferred_batch_size(), MAX_TIMED_BATCH))
    decoding, seed = spec.decoding_config(), spec.runner.seed
    every = [(item, index) for item in plan.items for index in range(item.n)]
    # spread over the whole plan: a study's first items need not answer like the rest
    picks = sorted({round(i) for i in np.linspace(0, len(every) - 1, min(len(every), batch + 1))})
    requests = [
        build_request(every[i][0], every[i][1], decoding=decoding, run_seed=seed,
                      system_prompt=plan.system_prompt)
        for i in picks
    ]  # fmt: skip

    async def send(chunk: list[Any]) -> None:
        if isinstance(chunk[0], GenerationRequest):
            await backend.generate_batch(chunk)
        else:
            await backend.score_batch(chunk)

    try:
        await send(requests[:1])  # loads the model
        began = time.perf_counter()
        await send(requests[1:])
        took = time.perf_counter() - began
    finally:
        await backend.aclose()
    return took / max(1, len(requests) - 1)


def seconds_per_request(spec: RunSpec, request_rate: float) -> tuple[float, str]:
    """Seconds one request of ``spec`` takes, and how that was found."""
    if spec.setup.model.engine in SERVER_PROVIDERS:
        return 1.0 / request_rate, f"{request_rate:g} requests/s of a server (stated)"
    seconds = run_sync(_time_requests(spec))
    return seconds, f"{seconds:.3g} s per request, timed on {spec.setup.model.spec}"


__all__ = ["MAX_TIMED_BATCH", "seconds_per_request"]
