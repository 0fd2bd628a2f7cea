"""Small, valid GGUF files written by the tests (header, metadata, one F32 tensor)."""

from __future__ import annotations

import struct
from pathlib import Path


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(
    path: Path,
    *,
    architecture: str = "llama",
    elements: int = 256 * 1024,
    version: int = 3,
    name: str = "Test Model",
) -> Path:
    """A GGUF file of about ``4 * elements`` bytes that :func:`read_gguf` accepts."""
    meta = [
        ("general.architecture", 8, _string(architecture)),
        ("general.name", 8, _string(name)),
        ("general.file_type", 4, struct.pack("<I", 15)),  # Q4_K_M
        (f"{architecture}.context_length", 4, struct.pack("<I", 4096)),
        ("tokenizer.chat_template", 8, _string("{{ messages }}")),
        # An array of strings, as the token list is, to exercise skipping it.
        ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 3) + b"".join(map(_string, "abc"))),
    ]
    head = b"GGUF" + struct.pack("<IQQ", version, 1, len(meta))
    for key, kind, value in meta:
        head += _string(key) + struct.pack("<I", kind) + value
    head += _string("token_embd.weight") + struct.pack("<I", 1) + struct.pack("<Q", elements)
    head += struct.pack("<IQ", 0, 0)  # F32 at offset 0 of the data section
    head += b"\0" * (-len(head) % 32)
    path.write_bytes(head + bytes(range(256)) * (elements * 4 // 256))
    return path
