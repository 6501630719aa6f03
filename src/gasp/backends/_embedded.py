"""The embedded default model, SmolLM2-135M-Instruct, with a choice of generation engine.

Generation runs on CTranslate2 (int8, :mod:`gasp.backends._ct2`) where the
``ctranslate2`` package is installed, else on transformers (float32) after a
one-line notice; ``engine=transformers`` chooses the transformers path anyway.
Scoring always runs on transformers in float32, loaded on the first score
request: its log-probabilities are the model's exact ones, which an int8 model
would change.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from gasp.backends._base import GenerationRequest, GenerationResponse
from gasp.backends._ct2 import CT2_INSTALL, Ct2Generator, ctranslate2_available, default_threads
from gasp.backends._hf import HFBackend, ModelSource, embedded_source
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
        **hf_options: Any,
    ) -> None:
        super().__init__(source, model_id=EMBEDDED_MODEL_ID, **hf_options)
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
                source, model_id=EMBEDDED_MODEL_ID, compute_type=compute_type, threads=threads
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


def embedded_backend(options: Mapping[str, Any] | None = None) -> EmbeddedBackend:
    """The embedded default model, SmolLM2-135M-Instruct (``embedded/smollm2``).

    Options as for :class:`EmbeddedBackend`; the device defaults to the CPU.
    """
    opts = Options(options, provider="embedded/smollm2")
    engine = opts.optional_str("engine")
    compute_type = opts.get_str("compute_type", "int8")
    threads = opts.get_int("threads", default_threads(), minimum=1)
    device = opts.get_str("device", "cpu")
    dtype = opts.get_str("dtype", "float32")
    batch_size = opts.get_int_or_auto("batch_size", minimum=1)
    scoring = opts.get_str("scoring", "auto")
    opts.reject_unknown()
    if engine is None:
        engine = "ctranslate2" if device == "cpu" else "transformers"
        if engine == "ctranslate2" and not ctranslate2_available():
            logger.warning(
                "ctranslate2 is not installed: the embedded model generates with transformers"
                " (slower; %s)",
                CT2_INSTALL,
            )
            engine = "transformers"
    elif engine == "ctranslate2" and not ctranslate2_available():
        raise BackendError(f"engine=ctranslate2 needs the 'ctranslate2' package: {CT2_INSTALL}")
    return EmbeddedBackend(
        embedded_source(),
        engine=engine,
        compute_type=compute_type,
        threads=threads,
        device=device,
        dtype=dtype,
        batch_size=batch_size,
        scoring=scoring,
    )
