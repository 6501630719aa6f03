"""vLLM's offline engine in process (``vllm/<name>``), for GPU machines.

Each batch is one ``LLM.chat`` call with one ``SamplingParams`` per request, so
every request keeps its own seed. The engine is created on the first batch.

Scoring is exact: every context + candidate is tokenized as for the ``hf``
backend (:func:`gasp.backends._hf_scoring.encode_request`) and sent as token ids
with ``SamplingParams(max_tokens=1, prompt_logprobs=0)``; the prompt
log-probabilities at the candidate's positions are summed (the chain rule).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from gasp.backends._admission import model_turn
from gasp.backends._base import Capability, ThreadedBatchBackend
from gasp.backends._faults import TransientBackendError
from gasp.backends._hf_scoring import EncodedRequest, encode_request, to_response
from gasp.backends._messages import (
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
    StopReason,
    cut_at_stop,
)
from gasp.backends._options import Options
from gasp.errors import BackendError

VLLM_INSTALL = "pip install 'gasp[vllm]'"


class VLLMBackend(ThreadedBatchBackend):
    """Batches requests through ``vllm.LLM.chat``.

    Options: ``batch_size`` (default 64), ``dtype`` (default ``auto``),
    ``gpu_memory_utilization`` (default 0.9), ``max_model_len`` (default: the
    model's), ``tensor_parallel_size`` (default 1), ``optimization_level`` (vLLM's
    ``-O``, 0 to 3; default: vLLM's; 0 starts without compiling). Scores are exact.
    """

    capabilities = frozenset({Capability.GENERATE, Capability.SCORE})

    def __init__(self, model: str, *, batch_size: int = 64, engine_args: Mapping[str, Any]):
        self.model = model
        self.model_id = f"vllm/{model}"
        self.batch_size = batch_size
        self._engine_args = dict(engine_args)
        self._llm: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, model: str, options: Mapping[str, Any] | None = None) -> VLLMBackend:
        """Build ``vllm/<model>`` from its options."""
        opts = Options(options, provider=f"vllm/{model}")
        batch_size = opts.get_int("batch_size", 64, minimum=1)
        args: dict[str, Any] = {
            "dtype": opts.get_str("dtype", "auto"),
            "gpu_memory_utilization": opts.get_float(
                "gpu_memory_utilization", 0.9, minimum=0.05, maximum=1.0
            ),
            "tensor_parallel_size": opts.get_int("tensor_parallel_size", 1, minimum=1),
        }
        max_len = opts.get_int("max_model_len", 0, minimum=0)
        if max_len:
            args["max_model_len"] = max_len
        if opts.get_raw("optimization_level") is not None:
            args["optimization_level"] = opts.get_int("optimization_level", 0, minimum=0, maximum=3)
        opts.reject_unknown()
        return cls(model, batch_size=batch_size, engine_args=args)

    def _engine(self) -> Any:
        if self._llm is None:
            try:
                import vllm
            except ImportError:
                raise BackendError(f"the vllm backend needs vLLM: {VLLM_INSTALL}") from None
            try:
                self._llm = vllm.LLM(model=self.model, **self._engine_args)
            except Exception as exc:  # any failure to start stops the run in one line
                first = " ".join(str(exc).split())[:200] or type(exc).__name__
                raise BackendError(f"cannot start vLLM for {self.model!r}: {first}") from None
        return self._llm

    def _generate_sync(self, requests: list[GenerationRequest]) -> list[GenerationResponse]:
        import vllm

        with model_turn(self._lock):
            llm = self._engine()
            params = [
                vllm.SamplingParams(
                    temperature=r.decoding.temperature,
                    top_p=r.decoding.top_p,
                    max_tokens=r.decoding.max_tokens,
                    seed=r.seed if r.seed is not None else r.decoding.seed,
                    stop=list(r.stop) or None,
                )
                for r in requests
            ]
            if requests and requests[0].completion is not None:  # one form per run
                prompts = [r.completion or "" for r in requests]
                outputs = llm.generate(prompts, sampling_params=params, use_tqdm=False)
            else:
                conversations = [
                    [{"role": m.role, "content": m.content} for m in r.messages] for r in requests
                ]
                outputs = llm.chat(conversations, sampling_params=params, use_tqdm=False)
        responses = []
        for output, request in zip(outputs, requests, strict=True):
            completion = output.outputs[0]
            finish = completion.finish_reason
            stop = StopReason.LENGTH if finish == "length" else StopReason.STOP
            text, cut = cut_at_stop(completion.text, request.stop)
            if cut:
                stop = StopReason.STOP
            responses.append(
                GenerationResponse(
                    text=text.strip(),
                    stop_reason=stop,
                    model_id=self.model_id,
                    prompt_tokens=len(output.prompt_token_ids or []),
                    completion_tokens=len(completion.token_ids),
                )
            )
        return responses

    def _score_sync(self, requests: list[ScoreRequest]) -> list[ScoreResponse]:
        """Score exactly from prompt log-probabilities, one prompt per candidate."""
        import vllm

        with model_turn(self._lock):
            llm = self._engine()
            tokenizer = llm.get_tokenizer()
            encs = [encode_request(tokenizer, r) for r in requests]
            prompts = score_prompts(encs)
            params = vllm.SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=0.0)
            outputs = llm.generate(prompts, sampling_params=params, use_tqdm=False)
        values = candidate_logprobs(encs, outputs)
        return [
            to_response(tokenizer, r, enc, v, self.model_id)
            for r, enc, v in zip(requests, encs, values, strict=True)
        ]


def score_prompts(encs: Sequence[EncodedRequest]) -> list[dict[str, list[int]]]:
    """One token-id prompt per (request, candidate): the context followed by the candidate."""
    return [
        {"prompt_token_ids": list(enc.context_ids + ids)}
        for enc in encs
        for ids in enc.candidate_ids
    ]


def candidate_logprobs(encs: Sequence[EncodedRequest], outputs: Sequence[Any]) -> list[list[float]]:
    """Sum each candidate's prompt log-probabilities from vLLM's outputs (in prompt order).

    ``output.prompt_logprobs[i]`` maps token ids to ``Logprob`` objects for prompt
    position ``i`` (``None`` at position 0); with ``prompt_logprobs=0`` it holds
    the prompt's own token.
    """
    expected = sum(len(enc.candidate_ids) for enc in encs)
    if len(outputs) != expected:
        raise TransientBackendError("malformed", f"vLLM returned {len(outputs)} of {expected}")
    values: list[list[float]] = []
    it = iter(outputs)
    for enc in encs:
        row = []
        start = len(enc.context_ids)
        for ids in enc.candidate_ids:
            output = next(it)
            positions = output.prompt_logprobs or []
            total = 0.0
            for offset, token in enumerate(ids):
                entry = positions[start + offset]
                value = entry[token]
                total += float(getattr(value, "logprob", value))
            row.append(total)
        values.append(row)
    return values
