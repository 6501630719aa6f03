"""Keeping third-party progress bars out of gasp's own output while models load."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Hide transformers' per-tensor progress bars while a model loads (gasp shows its own).

    Some loaders (the GGUF conversion, for one) draw a plain tqdm bar on standard error
    that the transformers switch does not reach, so standard error is held back during
    the load as well; errors still surface as exceptions.
    """
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()
