"""The protobuf wire format, just what :mod:`agentmaker.models.onnx_quantize` needs.

A LEN record's payload stays a ``memoryview`` of the input, so a rewrite copies the
fields it does not touch byte for byte. No ``protobuf`` or ``onnx`` package is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

# Wire types
VARINT, I64, LEN, I32 = 0, 1, 2, 5


class DerivationError(Exception):
    """The source model does not have the structure the rewrite expects."""


@dataclass(frozen=True)
class Record:
    number: int
    wire: int
    value: int | memoryview  # varint/fixed value, or the payload of a LEN record
    raw: memoryview  # the whole record, key included


def read_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise DerivationError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise DerivationError("varint too long")


def records(buf: memoryview) -> list[Record]:
    out: list[Record] = []
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | memoryview
        if wire == VARINT:
            value, pos = read_varint(buf, pos)
        elif wire == I64:
            value, pos = int.from_bytes(buf[pos : pos + 8], "little"), pos + 8
        elif wire == I32:
            value, pos = int.from_bytes(buf[pos : pos + 4], "little"), pos + 4
        elif wire == LEN:
            size, pos = read_varint(buf, pos)
            value, pos = buf[pos : pos + size], pos + size
        else:
            raise DerivationError(f"unsupported wire type {wire}")
        if pos > len(buf):
            raise DerivationError("truncated record")
        out.append(Record(number, wire, value, buf[start:pos]))
    return out


def varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def len_field(number: int, payload: bytes | bytearray | memoryview) -> bytes:
    return key(number, LEN) + varint(len(payload)) + bytes(payload)


def str_field(number: int, text: str) -> bytes:
    return len_field(number, text.encode("utf-8"))


def int_field(number: int, value: int) -> bytes:
    return key(number, VARINT) + varint(value)


def text(value: int | memoryview) -> str:
    if not isinstance(value, memoryview):
        raise DerivationError("expected a string field")
    return bytes(value).decode("utf-8")


def payload(value: int | memoryview) -> memoryview:
    if not isinstance(value, memoryview):
        raise DerivationError("expected a message field")
    return value
