"""What a GGUF file is, read from its header before any engine opens it.

A ``gguf/PATH`` model is checked here before a backend is made, so a file the engines
cannot run fails with one line and nothing written: a file that is not GGUF (its first
four bytes are not ``GGUF``), a GGUF version other than 2 or 3, a header or tensor data
cut short (the file ends before the last tensor's bytes, counted from the tensor
table with the ``gguf`` package's block sizes), and an architecture that neither
engine loads.

The header is read with :mod:`mmap` and :mod:`struct`, key by key: the long
tokenizer arrays are skipped over, not decoded, so a 250 MB file is read in well
under a second (the ``gguf`` package's ``GGUFReader`` builds every field and tensor
view first, which took seconds on the same file).

Architectures: transformers dequantizes the GGUF architectures its GGUF loader maps
(:func:`transformers_architectures`: llama, mistral, qwen2, qwen3, phi3, gemma2,
gemma3, ...) and exact scoring always runs there; CTranslate2 generates for those of
them its converter supports (:data:`CT2_ARCHITECTURES`), the others generate on
transformers.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gasp.errors import BackendError

GGUF_MAGIC = b"GGUF"
#: GGUF versions whose counts are 64-bit (version 1 files predate them).
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32

#: GGUF architectures whose transformers model CTranslate2's converter takes (the GGUF
#: name; transformers' GGUF loader makes the model the converter reads).
CT2_ARCHITECTURES = frozenset(
    {"llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "falcon", "gpt2", "bloom"}
)
#: GGUF names transformers' loader renames before looking them up.
_RENAMES = {
    "qwen2moe": "qwen2_moe",
    "qwen3moe": "qwen3_moe",
    "gpt-oss": "gpt_oss",
    "minimax-m2": "minimax_m2",
}

# GGUF value types: id -> struct format of one scalar (8 string, 9 array).
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q"}
_SCALARS[12] = "d"
_STRING, _ARRAY = 8, 9


@dataclass(frozen=True)
class GgufInfo:
    """The facts of a GGUF file's header that gasp needs."""

    path: Path
    version: int
    architecture: str
    name: str
    chat_template: str | None
    tensor_count: int
    #: The bytes the file needs: the end of its last tensor's data.
    needed_bytes: int
    file_bytes: int

    @property
    def has_chat_template(self) -> bool:
        """Whether the file carries a chat template (an instruction-tuned model's)."""
        return bool(self.chat_template and self.chat_template.strip())


class _Truncated(Exception):
    """The header ends before it should."""


class _Cursor:
    """Little-endian reads from a buffer; :class:`_Truncated` past its end."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> Any:
        size = struct.calcsize("<" + fmt)
        if self.pos + size > len(self.data):
            raise _Truncated
        (value,) = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += size
        return value

    def skip(self, size: int) -> None:
        if self.pos + size > len(self.data):
            raise _Truncated
        self.pos += size

    def string(self) -> str:
        size = self.take("Q")
        start = self.pos
        self.skip(size)
        return bytes(self.data[start : self.pos]).decode("utf-8", errors="replace")

    def value(self, kind: int, keep: bool) -> Any:
        """The value of type ``kind`` (arrays are skipped and give None unless ``keep``)."""
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            inner, count = self.take("I"), self.take("Q")
            if inner in _SCALARS and not keep:
                self.skip(struct.calcsize("<" + _SCALARS[inner]) * count)
                return None
            items = [self.value(inner, keep) for _ in range(count)]
            return items if keep else None
        if kind not in _SCALARS:
            raise ValueError(f"unknown GGUF value type {kind}")
        return self.take(_SCALARS[kind])


def _tensor_bytes(dims: list[int], ggml_type: int) -> int:
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    block, size = GGML_QUANT_SIZES[GGMLQuantizationType(ggml_type)]
    elements = 1
    for d in dims:
        elements *= d
    return elements // block * size


def read_gguf_header(path: str | Path) -> GgufInfo:
    """The header of the GGUF file at ``path``.

    Raises:
        BackendError: no such file, not a GGUF file, an unsupported GGUF version, or a
            file cut short (header or tensor data).
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise BackendError(f"no GGUF file at {str(file)!r}")
    size = file.stat().st_size
    with file.open("rb") as handle:
        if handle.read(4) != GGUF_MAGIC:
            raise BackendError(f"{file.name} is not a GGUF file (it does not start with 'GGUF')")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            try:
                return _parse(file, data, size)
            except _Truncated:
                raise BackendError(
                    f"{file.name} is a truncated GGUF file: its header ends early "
                    f"({size:,} bytes); copy or download it again"
                ) from None
            except (ValueError, KeyError) as exc:
                raise BackendError(f"{file.name} is not a readable GGUF file: {exc}") from None


def _parse(file: Path, data: Any, size: int) -> GgufInfo:
    cursor = _Cursor(data)
    cursor.skip(4)
    version = cursor.take("I")
    if version not in VERSIONS:
        raise BackendError(f"{file.name}: GGUF version {version} is not supported (2 or 3 are)")
    tensor_count, kv_count = cursor.take("Q"), cursor.take("Q")
    wanted = {"general.architecture", "general.name", "general.alignment"}
    wanted.add("tokenizer.chat_template")
    fields: dict[str, Any] = {}
    for _ in range(kv_count):
        key = cursor.string()
        kind = cursor.take("I")
        value = cursor.value(kind, keep=False)
        if key in wanted:
            fields[key] = value
    tensors = []
    for _ in range(tensor_count):
        cursor.string()
        dims = [cursor.take("Q") for _ in range(cursor.take("I"))]
        tensors.append((dims, cursor.take("I"), cursor.take("Q")))
    alignment = int(fields.get("general.alignment") or DEFAULT_ALIGNMENT)
    start = -(-cursor.pos // alignment) * alignment
    needed = max((start + off + _tensor_bytes(dims, t) for dims, t, off in tensors), default=start)
    if needed > size:
        raise BackendError(
            f"{file.name} is a truncated GGUF file: its tensors need {needed:,} bytes, "
            f"the file has {size:,}; copy or download it again"
        )
    architecture = str(fields.get("general.architecture") or "")
    if not architecture:
        raise BackendError(f"{file.name}: the GGUF header names no general.architecture")
    template = fields.get("tokenizer.chat_template")
    return GgufInfo(
        path=file,
        version=version,
        architecture=architecture,
        name=str(fields.get("general.name") or file.stem),
        chat_template=template if isinstance(template, str) else None,
        tensor_count=tensor_count,
        needed_bytes=needed,
        file_bytes=size,
    )


def transformers_architectures() -> frozenset[str]:
    """The GGUF architectures transformers' GGUF loader maps to a model."""
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

    return frozenset(GGUF_SUPPORTED_ARCHITECTURES) - {"general", "tokenizer"}


def check_architecture(info: GgufInfo) -> str:
    """The engine that generates for ``info`` (``ctranslate2`` or ``transformers``).

    Raises:
        BackendError: an architecture no engine loads (one line naming those that do).
    """
    arch = _RENAMES.get(info.architecture, info.architecture)
    supported = transformers_architectures()
    if arch not in supported:
        raise BackendError(
            f"{info.path.name}: GGUF architecture {info.architecture!r} is not supported "
            f"(gasp runs: {', '.join(sorted(supported))})"
        )
    return "ctranslate2" if arch in CT2_ARCHITECTURES else "transformers"


__all__ = [
    "CT2_ARCHITECTURES",
    "GgufInfo",
    "check_architecture",
    "read_gguf_header",
    "transformers_architectures",
]
