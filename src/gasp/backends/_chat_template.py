"""Whether a model has a chat template, told from its files without loading it.

A base (pretrained) model has no chat template: a study's chat prompts mean little to
it, and ``prompt_form=auto`` sends it the completion form instead. The answer comes
from what is on disk: a GGUF file's ``tokenizer.chat_template`` key, a folder's
``chat_template.jinja`` / ``chat_template.json`` or the ``chat_template`` of its
``tokenizer_config.json``. The embedded models are known (SmolLM2-135M-Instruct has
one, Gemma 3 270M base none); served and hub models are taken to have one (their
server or hub card decides, and nothing is downloaded to look).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gasp.backends._gguf import read_gguf_header
from gasp.backends._resolve import parse_model_spec
from gasp.errors import BackendError

if TYPE_CHECKING:
    from gasp.backends._hf import ModelSource

#: Embedded models without a chat template (base models).
EMBEDDED_BASE_MODELS = frozenset({"gemma-3-270m"})


def folder_has_chat_template(folder: Path) -> bool:
    """Whether a transformers folder holds a chat template."""
    if (folder / "chat_template.jinja").is_file() or (folder / "chat_template.json").is_file():
        return True
    config = folder / "tokenizer_config.json"
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(isinstance(data, dict) and data.get("chat_template"))


def has_chat_template(spec: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether model ``spec`` has a chat template (see the module docstring).

    Raises:
        BackendError: a ``gguf/`` or ``hf/`` GGUF file that is missing or unreadable.
    """
    provider, model = parse_model_spec(spec)
    if provider == "embedded":
        return (model.lower() or "smollm2") not in EMBEDDED_BASE_MODELS
    if provider == "gguf":
        return read_gguf_header(model).has_chat_template
    if provider != "hf":
        return True
    path = Path(model).expanduser()
    gguf = (options or {}).get("gguf_file")
    if path.is_file() and path.suffix == ".gguf":
        return read_gguf_header(path).has_chat_template
    if path.is_dir():
        if gguf:
            return read_gguf_header(path / str(gguf)).has_chat_template
        return folder_has_chat_template(path)
    return True


def source_has_chat_template(source: ModelSource) -> bool:
    """Whether the model at ``source`` (a folder, or a GGUF file in it) has a chat template;
    True where its files cannot be read here (loading it then says what is wrong)."""
    folder = Path(source.name_or_path).expanduser()
    try:
        if source.gguf_file is not None:
            return read_gguf_header(folder / source.gguf_file).has_chat_template
    except BackendError:
        return True
    return folder_has_chat_template(folder) if folder.is_dir() else True


__all__ = ["folder_has_chat_template", "has_chat_template", "source_has_chat_template"]
