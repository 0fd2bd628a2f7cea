"""Read and check a GGUF model file's header without loading the model.

A file picked by a person ("Use a model file on this computer…") or just downloaded is
checked before llama.cpp sees it, so a PNG renamed ``.gguf``, a truncated download or an
embedding model gets a clear message instead of a crash or a vague load failure:

- the magic ``GGUF`` and a known version (2 or 3);
- the metadata: architecture, name, quantization (``general.file_type``), context length,
  whether it carries a chat template;
- the tensor table: the file must be long enough to hold every tensor it lists.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from agentmaker.errors import ModelFileError

MAGIC = b"GGUF"
#: Chat-model architectures the bundled llama.cpp runs (names as GGUF writes them).
CHAT_ARCHITECTURES = frozenset(
    [
        "llama",
        "llama4",
        "qwen2",
        "qwen2moe",
        "qwen3",
        "qwen3moe",
        "phi2",
        "phi3",
        "phimoe",
        "gemma",
        "gemma2",
        "gemma3",
        "mistral3",
        "granite",
        "granitemoe",
        "stablelm",
        "starcoder2",
        "deepseek",
        "deepseek2",
        "olmo",
        "olmo2",
        "olmoe",
        "command-r",
        "cohere2",
        "internlm2",
        "exaone",
        "exaone4",
        "smollm3",
        "falcon",
        "falcon-h1",
        "gpt2",
        "gptneox",
        "bloom",
        "mpt",
        "baichuan",
        "chatglm",
        "glm4",
        "glm4moe",
        "minicpm",
        "minicpm3",
        "orion",
        "qwen",
        "starcoder",
        "refact",
        "mamba",
        "mamba2",
        "rwkv6",
        "rwkv7",
        "jamba",
        "nemotron",
        "arcee",
        "ernie4_5",
        "hunyuan-dense",
        "gpt-oss",
        "seed_oss",
        "plamo",
        "plamo2",
        "xverse",
        "openelm",
        "arctic",
        "dbrx",
        "bitnet",
        "t5",
        "jais",
        "chameleon",
        "granitehybrid",
        "lfm2",
    ]
)
#: Architectures that are models, just not chat models: say so instead of "unknown".
NOT_CHAT = {
    "bert": "an embedding model",
    "nomic-bert": "an embedding model",
    "jina-bert-v2": "an embedding model",
    "clip": "the image part of a vision model (an mmproj file)",
    "whisper": "a speech model",
    "wavtokenizer-dec": "a speech model",
}
# general.file_type → the quantization people know by name.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
}  # fmt: skip
# ggml tensor type → (elements per block, bytes per block), to know each tensor's size.
_BLOCKS = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
    9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176),
    14: (256, 210), 15: (256, 292), 16: (256, 66), 17: (256, 74), 18: (256, 98),
    19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82), 23: (256, 136), 24: (1, 1),
    25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
    34: (256, 54), 35: (256, 66),
}  # fmt: skip
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}  # fmt: skip
_STRING, _ARRAY = 8, 9
# Metadata this large is not a real model header (guards against reading garbage).
_MAX_STRING = 64 * 1024 * 1024
_MAX_COUNT = 50_000_000


@dataclass(frozen=True)
class GgufInfo:
    """What a GGUF file says about itself."""

    path: Path
    version: int
    architecture: str
    name: str
    quantization: str
    context_length: int | None
    has_chat_template: bool
    tensor_count: int
    size_bytes: int


class _Truncated(Exception):
    pass


class _Reader:
    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def read(self, n: int) -> bytes:
        data = self.stream.read(n)
        if len(data) != n:
            raise _Truncated
        return data

    def scalar(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        length = self.scalar("<Q")
        if length > _MAX_STRING:
            raise ValueError(f"a metadata string of {length} bytes")
        return self.read(length).decode("utf-8", errors="replace")

    def value(self, kind: int, keep: bool = True) -> Any:
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item_kind, count = self.scalar("<I"), self.scalar("<Q")
            if count > _MAX_COUNT:
                raise ValueError(f"a metadata array of {count} items")
            if item_kind in _SCALARS:  # skip fixed-size items in one seek
                self.stream.seek(struct.calcsize(_SCALARS[item_kind]) * count, 1)
                return None
            for _ in range(count):  # token lists: not needed, read past them
                self.value(item_kind, keep=False)
            return None
        raise ValueError(f"unknown metadata type {kind}")


def read_gguf(path: str | Path, *, chat: bool = True) -> GgufInfo:
    """The header of the GGUF file at ``path``, checked (see the module docstring).

    ``chat=True`` also refuses architectures llama.cpp cannot chat with. Raises
    :class:`ModelFileError` with a message that names the file and says what to do.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as stream:
            info = _parse(path, _Reader(stream), size)
    except FileNotFoundError as exc:
        raise ModelFileError("The file does not exist.", path) from exc
    except OSError as exc:
        raise ModelFileError(f"The file could not be read ({exc.strerror or exc}).", path) from exc
    except _Truncated as exc:
        raise ModelFileError(
            "The file is cut short (an interrupted download?). Download it again.", path
        ) from exc
    except (ValueError, UnicodeDecodeError, struct.error) as exc:
        raise ModelFileError(
            f"The file's GGUF header is damaged ({exc}). Download it again.", path
        ) from exc
    if chat:
        _check_chat(info)
    return info


def _parse(path: Path, reader: _Reader, size: int) -> GgufInfo:
    head = reader.stream.read(4)
    if head != MAGIC:
        kind = _sniff(head)
        raise ModelFileError(
            f"This is not a GGUF model file{f' (it looks like {kind})' if kind else ''}. "
            "Choose a .gguf file downloaded for llama.cpp.",
            path,
        )
    version = reader.scalar("<I")
    if version not in (2, 3):
        raise ModelFileError(
            f"GGUF version {version} is not supported (2 and 3 are). Download a newer "
            "conversion of this model.",
            path,
        )
    tensors, entries = reader.scalar("<Q"), reader.scalar("<Q")
    meta: dict[str, Any] = {}
    for _ in range(entries):
        key = reader.string()
        meta[key] = reader.value(reader.scalar("<I"))
    end = _tensor_data_end(reader, tensors, int(meta.get("general.alignment") or 32))
    if end > size:
        raise _Truncated
    arch = str(meta.get("general.architecture") or "")
    context = meta.get(f"{arch}.context_length")
    file_type = meta.get("general.file_type")
    return GgufInfo(
        path=path,
        version=version,
        architecture=arch,
        name=str(meta.get("general.name") or path.stem),
        quantization=FILE_TYPES.get(file_type, f"type {file_type}")
        if file_type is not None
        else "unknown",
        context_length=int(context) if context else None,
        has_chat_template="tokenizer.chat_template" in meta,
        tensor_count=tensors,
        size_bytes=size,
    )


def _tensor_data_end(reader: _Reader, tensors: int, alignment: int) -> int:
    """The byte offset where the last tensor ends (from the tensor table)."""
    if tensors > _MAX_COUNT:
        raise ValueError(f"{tensors} tensors")
    last = 0
    for _ in range(tensors):
        reader.string()
        dims = [reader.scalar("<Q") for _ in range(reader.scalar("<I"))]
        kind, offset = reader.scalar("<I"), reader.scalar("<Q")
        elements = 1
        for d in dims:
            elements *= d
        block, nbytes = _BLOCKS.get(kind, (1, 0))  # unknown type: count its offset only
        last = max(last, offset + elements // block * nbytes)
    start = reader.stream.tell()
    start += -start % alignment
    return start + last


def _check_chat(info: GgufInfo) -> None:
    arch = info.architecture
    if arch in NOT_CHAT:
        raise ModelFileError(
            f"This is {NOT_CHAT[arch]} ({arch}), not a chat model. Choose an 'Instruct' or "
            "'Chat' model file.",
            info.path,
        )
    if arch not in CHAT_ARCHITECTURES:
        raise ModelFileError(
            f"The model architecture {arch or '(none)'!r} is not one the built-in runtime "
            "can run. Choose another model, or use it through a model server.",
            info.path,
        )


def _sniff(head: bytes) -> str:
    """A guess at what a non-GGUF file is, from its first bytes."""
    known = {
        b"\x89PNG": "a PNG image",
        b"%PDF": "a PDF document",
        b"PK\x03\x04": "a ZIP archive",
        b"\xff\xd8\xff": "a JPEG image",
        b"<!DO": "a web page",
        b"<htm": "a web page",
        b"{": "a JSON file",
    }
    for magic, kind in known.items():
        if head.startswith(magic):
            return kind
    return "an empty file" if not head else ""
