"""``gasp model export-hf``: the embedded model as a Hugging Face folder other engines load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gasp.backends import export_hf
from gasp.errors import ConfigError


def test_a_folder_that_is_not_empty_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(ConfigError, match="not an empty folder"):
        export_hf(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "gasp", "model", "export-hf", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"gasp: error: {tmp_path} exists and is not an empty folder"
    ]


@pytest.mark.slow
def test_the_exported_folder_loads_and_scores_like_the_embedded_model(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from safetensors import safe_open

    from gasp.backends._hf import embedded_source, load_model

    folder = export_hf(tmp_path / "smollm2")
    config = json.loads((folder / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"]
    assert "quantization_config" not in config
    with safe_open(str(folder / "model.safetensors"), "pt") as weights:
        names = set(weights.keys())
    assert "model.embed_tokens.weight" in names
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    assert tokenizer.chat_template
    exported = transformers.AutoModelForCausalLM.from_pretrained(
        str(folder), dtype=torch.float32, local_files_only=True
    )
    embedded = load_model(embedded_source(), "cpu", "float32").model
    text = "Q: Imagine a nurse. What is the nurse's gender?\nA:"
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    with torch.inference_mode():
        a = torch.log_softmax(exported(ids).logits[0].float(), dim=-1)
        b = torch.log_softmax(embedded(ids).logits[0].float(), dim=-1)
    assert float((a - b).abs().max()) < 1e-5
