"""Generation with CTranslate2 for a GGUF model (the embedded model's default engine).

The model is converted once from the float32 safetensors of the weight cache
(:func:`gasp.backends._hf.plain_weights_folder`) with CTranslate2's transformers
converter, quantized to ``int8`` (default; ``int8_float32`` and ``float32`` too),
and the result is kept in gasp's cache folder under ``ct2/`` as a
:class:`~gasp.backends._weight_cache.WeightCache` entry: named after the GGUF
file, its SHA-256, the compute type and CTranslate2's major version, written into
a temporary folder and renamed into place, with a record of every file's hash
that a later start checks. A half-written or stale conversion is never used;
two first starts at once both convert, and one entry survives intact. With
``GASP_WEIGHT_CACHE=0`` the conversion goes to a temporary folder per process.

Decoding: the chat template of the model's tokenizer (or a completion's raw text with
the tokenizer's special tokens), ``max_tokens`` new tokens at most, stopping on the
model's end tokens and on stop strings that are one token (others are cut from the
text afterwards); greedy (``temperature == 0``), else
sampling with the temperature, ``top_p`` and the top-k of 50 that transformers
applies by default (or the model's own ``top_k``), so both engines sample from
the same filtered distribution.

Seeds: CTranslate2 seeds a sampling thread's random generator from
``set_random_seed`` only once, at the thread's first draw, and a loaded generator
keeps its worker thread. A sampled call with a seed therefore sets the seed (its
batch's first request's) and loads a fresh generator (a fraction of a second on
the page-cached files) under a process-wide lock: the same batch with the same
seed gives the same texts, whatever ran before. As with transformers, a row's
text depends on the whole batch (its neighbours and their order).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gasp._quiet import quiet_model_loading
from gasp.backends._admission import model_turn
from gasp.backends._base import generate_by_decoding
from gasp.backends._hf import ModelSource, plain_weights_folder
from gasp.backends._messages import GenerationRequest, GenerationResponse, StopReason, cut_at_stop
from gasp.backends._weight_cache import WeightCache, cache_dir, file_sha256, weight_cache_enabled
from gasp.errors import BackendError

CT2_INSTALL = "pip install 'gasp[hf]'"
COMPUTE_TYPES = ("int8", "int8_float32", "float32")
#: transformers' top-k when sampling and the model's generation config sets none
TRANSFORMERS_DEFAULT_TOP_K = 50
META_FILE = "gasp-ct2.json"

_SEED_LOCK = threading.Lock()  # set_random_seed is process-wide


def ctranslate2_available() -> bool:
    """Whether the ``ctranslate2`` package can be imported."""
    try:
        import ctranslate2  # noqa: F401
    except ImportError:
        return False
    return True


def default_threads() -> int:
    """The CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def cache_variant(compute_type: str) -> str:
    """The cache entry's variant: the compute type and CTranslate2's major version."""
    import ctranslate2

    return f"{compute_type}-ct2v{ctranslate2.__version__.split('.')[0]}"


def ct2_cache() -> WeightCache:
    """The cache of converted models (``<gasp cache>/ct2``)."""
    return WeightCache(cache_dir() / "ct2")


def convert(source: ModelSource, compute_type: str, target: Path) -> None:
    """Write the CTranslate2 model (``model/``), tokenizer and decoding facts into ``target``."""
    import ctranslate2
    import torch
    from transformers import AutoTokenizer, GenerationConfig

    # Building the model draws its initial weights from torch's global generator: fork it
    # so a conversion leaves the caller's random state as it was.
    with (
        torch.random.fork_rng(devices=[]),
        tempfile.TemporaryDirectory(prefix="gasp-weights-") as scratch,
    ):
        weights = plain_weights_folder(source, Path(scratch))
        with quiet_model_loading():
            converter = ctranslate2.converters.TransformersConverter(str(weights))
            converter.convert(str(target / "model"), quantization=compute_type, force=True)
            tokenizer = AutoTokenizer.from_pretrained(str(weights), local_files_only=True)
            generation = GenerationConfig.from_pretrained(str(weights), local_files_only=True)
    tokenizer.save_pretrained(str(target / "tokenizer"))
    eos = generation.eos_token_id if generation.eos_token_id is not None else tokenizer.eos_token_id
    meta = {
        "eos_token_ids": sorted([eos] if isinstance(eos, int) else list(eos or [])),
        "top_k": generation.top_k if generation.top_k is not None else TRANSFORMERS_DEFAULT_TOP_K,
        "compute_type": compute_type,
    }
    (target / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")


@dataclass
class _Converted:
    folder: Path
    tokenizer: Any
    eos_ids: frozenset[int]
    top_k: int
    keep_alive: Any = None  # the temporary folder when the cache is off
    generators: dict[int, Any] = field(default_factory=dict)  # threads -> generator
    lock: threading.Lock = field(default_factory=threading.Lock)


_CONVERTED: dict[tuple[ModelSource, str], _Converted] = {}
_CONVERTED_LOCK = threading.Lock()


def _open(folder: Path, keep_alive: Any = None) -> _Converted:
    from transformers import AutoTokenizer

    meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    with quiet_model_loading():
        tokenizer = AutoTokenizer.from_pretrained(str(folder / "tokenizer"), local_files_only=True)
    eos_ids = frozenset(int(i) for i in meta["eos_token_ids"])
    return _Converted(folder, tokenizer, eos_ids, int(meta["top_k"]), keep_alive)


def converted_model(source: ModelSource, compute_type: str) -> _Converted:
    """The converted model of ``source`` (from the cache, converting on a first start)."""
    if source.gguf_file is None:
        raise BackendError("the ctranslate2 engine converts local GGUF files only")
    key = (source, compute_type)
    with _CONVERTED_LOCK:
        if key in _CONVERTED:
            return _CONVERTED[key]
        gguf = Path(source.name_or_path) / source.gguf_file
        variant = cache_variant(compute_type)
        converted: _Converted | None = None
        if weight_cache_enabled():
            cache = ct2_cache()
            sha = file_sha256(gguf)
            folder = cache.lookup(gguf, variant, sha)
            if folder is None:
                try:
                    folder = cache.store(
                        gguf, variant, lambda t: convert(source, compute_type, t), sha
                    )
                    cache.clear_stale(gguf, variant, folder)
                except OSError:
                    folder = None  # read-only or full disk: convert into a temporary folder
            if folder is not None:
                converted = _open(folder)
        if converted is None:
            temp = tempfile.TemporaryDirectory(prefix="gasp-ct2-")
            convert(source, compute_type, Path(temp.name))
            converted = _open(Path(temp.name), keep_alive=temp)
        _CONVERTED[key] = converted
        return converted


class Ct2Generator:
    """Generates batches of chat requests on a converted model (see the module docstring)."""

    def __init__(
        self, source: ModelSource, *, model_id: str, compute_type: str = "int8", threads: int = 0
    ) -> None:
        if compute_type not in COMPUTE_TYPES:
            raise BackendError(
                f"unknown compute_type {compute_type!r}; choose one of: {', '.join(COMPUTE_TYPES)}"
            )
        self.source = source
        self.model_id = model_id
        self.compute_type = compute_type
        self.threads = threads or default_threads()

    def load(self) -> _Converted:
        """Convert (first start) or open the cached conversion, and load the generator."""
        converted = converted_model(self.source, self.compute_type)
        with converted.lock:
            if self.threads not in converted.generators:
                converted.generators[self.threads] = self._new_generator(converted)
        return converted

    def _new_generator(self, converted: _Converted) -> Any:
        import ctranslate2

        return ctranslate2.Generator(
            str(converted.folder / "model"),
            device="cpu",
            compute_type=self.compute_type,
            intra_threads=self.threads,
        )

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResponse]:
        """One response per request, in order: one call per decoding setting."""
        converted = self.load()
        with model_turn(converted.lock):
            return generate_by_decoding(
                requests, lambda group: self._generate_group(converted, group)
            )

    def _prompt_tokens(self, converted: _Converted, request: GenerationRequest) -> list[str]:
        tok = converted.tokenizer
        if request.completion is not None:  # raw text to continue, with the BOS if any
            ids = tok(request.completion, add_special_tokens=True)["input_ids"]
            return list(tok.convert_ids_to_tokens(ids))
        text = tok.apply_chat_template(
            [{"role": m.role, "content": m.content} for m in request.messages],
            tokenize=False,
            add_generation_prompt=True,
        )
        return list(tok.convert_ids_to_tokens(tok(text, add_special_tokens=False)["input_ids"]))

    def _generate_group(
        self, converted: _Converted, requests: list[GenerationRequest]
    ) -> list[GenerationResponse]:
        import ctranslate2

        prompts = [self._prompt_tokens(converted, r) for r in requests]
        decoding = requests[0].decoding
        ends = converted.eos_ids | _stop_token_ids(converted.tokenizer, requests[0].stop)
        kwargs: dict[str, Any] = {
            "max_length": decoding.max_tokens,
            "include_prompt_in_result": False,
            "end_token": sorted(ends),
            "return_end_token": True,
        }
        seed = requests[0].seed if requests[0].seed is not None else decoding.seed
        if decoding.temperature > 0:
            kwargs.update(
                sampling_topk=converted.top_k,
                sampling_topp=decoding.top_p,
                sampling_temperature=decoding.temperature,
            )
        else:
            kwargs.update(sampling_topk=1)
        if decoding.temperature > 0 and seed is not None:
            with _SEED_LOCK:
                ctranslate2.set_random_seed(seed % 2**32)
                converted.generators.pop(self.threads, None)  # release before loading anew
                generator = self._new_generator(converted)
                converted.generators[self.threads] = generator
                results = generator.generate_batch(prompts, **kwargs)
        else:
            results = converted.generators[self.threads].generate_batch(prompts, **kwargs)
        return [
            self._response(converted, prompt, result.sequences_ids[0], requests[0].stop, ends)
            for prompt, result in zip(prompts, results, strict=True)
        ]

    def _response(
        self,
        converted: _Converted,
        prompt: list[str],
        ids: list[int],
        stop_strings: tuple[str, ...],
        ends: frozenset[int],
    ) -> GenerationResponse:
        if ids and ids[-1] in ends:
            text_ids, stop = ids[:-1], StopReason.STOP
        else:
            text_ids, stop = ids, StopReason.LENGTH
        text = converted.tokenizer.decode(text_ids, skip_special_tokens=True)
        text, cut = cut_at_stop(text, stop_strings)
        return GenerationResponse(
            text=text.strip(),
            stop_reason=StopReason.STOP if cut else stop,
            model_id=self.model_id,
            prompt_tokens=len(prompt),
            completion_tokens=len(ids),
        )


def _stop_token_ids(tokenizer: Any, stop: tuple[str, ...]) -> frozenset[int]:
    """The ids of the stop strings that are one token each: decoding ends on them at once
    (a stop string inside a longer token is still cut from the text afterwards)."""
    out = set()
    for text in stop:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        if len(ids) == 1 and tokenizer.decode(ids) == text:
            out.add(int(ids[0]))
    return frozenset(out)
