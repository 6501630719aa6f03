"""The embedded model written as a plain Hugging Face folder, for other engines to load.

``gasp model export-hf DIR`` writes SmolLM2-135M-Instruct in float32 as
``config.json`` (with ``architectures``, which engines such as vLLM read to pick the
model class), ``generation_config.json``, ``model.safetensors`` and the tokenizer
with its chat template. The input embedding is stored as
``model.embed_tokens.weight`` even where the output head shares it: an engine that
ties the two from the embedding (vLLM) would otherwise keep a zero embedding and
answer with flat log-probabilities. The weights are those gasp scores with, so a
server of this folder in float32 reproduces gasp's exact scores.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from gasp.backends._hf import embedded_source, load_model
from gasp.errors import ConfigError

#: The files an exported folder holds besides the tokenizer's.
EXPORTED_FILES = ("config.json", "generation_config.json", "model.safetensors")


def export_hf(target: Path) -> Path:
    """Write the embedded model into ``target`` (a new or empty folder); returns it."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ConfigError(f"{target} exists and is not an empty folder")
    loaded = load_model(embedded_source(), "cpu", "float32")
    if not getattr(loaded.tokenizer, "chat_template", None):
        raise ConfigError("the embedded model's tokenizer has no chat template to export")
    target.mkdir(parents=True, exist_ok=True)
    write_hf_folder(loaded.model, loaded.tokenizer, target)
    return target


def write_hf_folder(model: Any, tokenizer: Any, target: Path) -> None:
    """Save ``model`` (float32) and ``tokenizer`` into ``target`` as described above."""
    from safetensors.torch import save_file

    config = copy.deepcopy(model.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.architectures = [type(model).__name__]
    config.save_pretrained(target)
    model.generation_config.save_pretrained(target)
    tensors = {
        name: tensor.detach().to("cpu").contiguous().clone()
        for name, tensor in model.state_dict().items()
    }
    if getattr(config, "tie_word_embeddings", False):
        tensors.pop("lm_head.weight", None)  # loaders tie it to the embedding
    if "model.embed_tokens.weight" not in tensors:
        raise ConfigError("the model has no model.embed_tokens.weight to export")
    save_file(tensors, str(target / "model.safetensors"), metadata={"format": "pt"})
    tokenizer.save_pretrained(target)
