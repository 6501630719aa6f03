"""``gguf/PATH``: the header is read first, and a file no engine can run is one line.

The files are small GGUF files written here with the ``gguf`` package's writer (a
tiny tensor, the keys gasp reads), cut short or made of other bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from _cli import gasp_exit_code
from gasp.backends import has_chat_template, read_gguf_header, resolve_backend
from gasp.backends._gguf import check_architecture
from gasp.errors import BackendError

gguf = pytest.importorskip("gguf")


def _write(path: Path, architecture: str, chat_template: str | None = None) -> Path:
    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_name("tiny")
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    writer.add_tensor("token_embd.weight", np.arange(64 * 8, dtype=np.float32).reshape(64, 8))
    writer.add_tensor("output_norm.weight", np.ones(8, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_the_header_gives_architecture_template_and_size(tmp_path: Path) -> None:
    path = _write(tmp_path / "chat.gguf", "llama", "{{ messages }}")
    info = read_gguf_header(path)
    assert (info.architecture, info.name, info.has_chat_template) == ("llama", "tiny", True)
    assert info.tensor_count == 2
    assert info.needed_bytes == info.file_bytes == path.stat().st_size
    assert check_architecture(info) == "ctranslate2"
    assert has_chat_template(f"gguf/{path}")
    base = _write(tmp_path / "base.gguf", "qwen3")
    assert not read_gguf_header(base).has_chat_template
    assert not has_chat_template(f"gguf/{base}")
    assert not has_chat_template(f"hf/{base}")


def test_an_architecture_transformers_loads_but_ctranslate2_does_not(tmp_path: Path) -> None:
    info = read_gguf_header(_write(tmp_path / "lm.gguf", "stablelm"))
    assert check_architecture(info) == "transformers"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: _write(p, "rwkv6"), "GGUF architecture 'rwkv6' is not supported"),
        (lambda p: p.write_bytes(b"PK\x03\x04 a zip archive, not a model"), "not a GGUF file"),
        (
            lambda p: p.write_bytes(_write(p, "llama").read_bytes()[:-100]),
            "truncated GGUF file: its tensors need",
        ),
        (
            lambda p: p.write_bytes(_write(p, "llama", "x" * 500).read_bytes()[:200]),
            "truncated GGUF file: its header ends early",
        ),
    ],
    ids=["unsupported-architecture", "not-gguf", "truncated-data", "truncated-header"],
)
def test_files_no_engine_runs_are_refused_in_one_line(
    tmp_path: Path, make: object, message: str
) -> None:
    path = tmp_path / "model.gguf"
    make(path)  # type: ignore[operator]
    with pytest.raises(BackendError) as exc:
        resolve_backend(f"gguf/{path}")
    assert message in _one_line(exc)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="no GGUF file"):
        resolve_backend(f"gguf/{tmp_path / 'absent.gguf'}")


@pytest.mark.parametrize("kind", ["unsupported", "not-gguf", "truncated"])
def test_the_command_line_says_one_line_and_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
) -> None:
    path = tmp_path / "model.gguf"
    if kind == "unsupported":
        _write(path, "mamba2")
    elif kind == "not-gguf":
        path.write_text("not a model\n")
    else:
        path.write_bytes(_write(path, "llama").read_bytes()[:-9])
    out = tmp_path / "run"
    code = gasp_exit_code(
        monkeypatch, "run", "narratives", "-m", f"gguf/{path}", "--quick", "--out", str(out)
    )
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), err
    assert not out.exists()
