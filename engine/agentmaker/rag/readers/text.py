"""Turn bytes into text without ever failing on the first bad byte.

Order of trust: a byte-order mark; strict UTF-8; "UTF-8 with a few broken bytes";
an encoding the document declares (HTML ``<meta charset>``); charset-normalizer's
guess (compared with cp1252, the most common legacy encoding); cp1252 with
replacement characters as the last resort. Whatever was done is recorded, so the
user can see that a file was decoded as, say, cp1252.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path

from agentmaker.rag.documents import Document
from agentmaker.rag.readers.detect import looks_like_utf16_without_bom

# Longest BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# charset-normalizer only needs a sample; the full text is decoded afterwards.
_GUESS_SAMPLE = 256 * 1024

# surrogateescape turns each undecodable byte into one of these.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")

_SINGLE_BYTE_PREFIXES = ("cp125", "latin", "iso8859", "mac_", "cp8", "cp4", "koi8", "tis")


@dataclass
class DecodedText:
    """Text decoded from bytes, with the encoding used and notes for the user."""

    text: str
    encoding: str
    warnings: list[str] = field(default_factory=list)


def _count_replacements(text: str) -> int:
    return text.count("\ufffd")


def _mostly_utf8(data: bytes) -> str | None:
    """Decode as UTF-8 if the file is clearly UTF-8 with a few damaged bytes.

    Many valid multi-byte sequences and few invalid bytes mean a damaged UTF-8 file;
    re-decoding all of it as cp1252 would turn every correct character into mojibake.
    """
    text = data.decode("utf-8", errors="surrogateescape")
    bad = len(_ESCAPED_BYTE.findall(text))
    non_ascii = len(text) - len(text.encode("ascii", errors="ignore"))
    good_multibyte = non_ascii - bad
    if good_multibyte >= 4 * bad:
        return data.decode("utf-8", errors="replace")
    return None


def _letters(text: str) -> int:
    """Non-ASCII letters: a correct legacy decoding yields letters, a wrong one symbols."""
    return sum(1 for ch in text if ord(ch) > 127 and ch.isalpha())


def _guess_legacy(data: bytes) -> str:
    """Pick a legacy encoding: charset-normalizer's guess, kept honest against cp1252."""
    guess: str | None = None
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data[:_GUESS_SAMPLE]).best()
        guess = best.encoding if best is not None else None
    except Exception:  # a detector failure must never stop the import
        guess = None
    guess = _known_encoding(guess)
    if guess is None:
        return "cp1252"
    if guess.startswith(_SINGLE_BYTE_PREFIXES) and guess != "cp1252":
        # Short Western texts are often labelled cp1250; cp1252 is far more common,
        # so it wins unless the guess decodes to clearly more letters.
        sample = data[:_GUESS_SAMPLE]
        ours = _letters(sample.decode("cp1252", errors="replace"))
        theirs = _letters(sample.decode(guess, errors="replace"))
        if theirs <= ours:
            return "cp1252"
    return guess


def _known_encoding(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name.strip()).name
    except LookupError:
        return None


def decode_bytes(data: bytes, *, declared: str | None = None) -> DecodedText:
    """Decode a text file's bytes; never raises on bad bytes.

    ``declared`` is an encoding named by the document itself (an HTML ``<meta
    charset>``); it is used only when the bytes are not valid UTF-8.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            result = DecodedText(text, encoding)
            if encoding != "utf-8":
                result.warnings.append(f"Decoded as {encoding.upper()} (byte-order mark).")
            _note_replacements(result)
            return result
    utf16 = looks_like_utf16_without_bom(data[:8192])
    if utf16:
        result = DecodedText(data.decode(utf16, errors="replace"), utf16)
        result.warnings.append(f"Decoded as {utf16.upper()} (no byte-order mark).")
        _note_replacements(result)
        return result
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    repaired = _mostly_utf8(data)
    if repaired is not None:
        result = DecodedText(repaired, "utf-8")
        result.warnings.append(
            f"The file is UTF-8 with {_count_replacements(repaired)} invalid byte(s) "
            f"(first at byte {first_bad}); they were replaced with \ufffd."
        )
        return result
    declared_encoding = _known_encoding(declared)
    if declared_encoding is None or declared_encoding == "utf-8":
        encoding, source = _guess_legacy(data), "detected"
    else:
        encoding, source = declared_encoding, "declared by the document"
    result = DecodedText(data.decode(encoding, errors="replace"), encoding)
    result.warnings.append(
        f"The file is not UTF-8 (first invalid byte at offset {first_bad}); "
        f"decoded as {encoding} ({source})."
    )
    _note_replacements(result)
    return result


def _note_replacements(result: DecodedText) -> None:
    count = _count_replacements(result.text)
    if count:
        result.warnings.append(
            f"{count} byte sequence(s) could not be decoded and were replaced with \ufffd."
        )


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF, so character offsets mean the same on every OS."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def c1_control_count(text: str) -> int:
    """C1 controls (U+0080-U+009F) in decoded text usually mean earlier mojibake."""
    return sum(1 for ch in text if "\x80" <= ch <= "\x9f")


def read_text_file(path: Path, data: bytes) -> Document:
    """Read a plain text file (``.txt``, ``.log``, ``.rst``…) into a ``txt`` Document."""
    decoded = decode_bytes(data)
    text = normalize_newlines(decoded.text)
    warnings = list(decoded.warnings)
    c1 = c1_control_count(text)
    if c1:
        warnings.append(
            f"The text contains {c1} C1 control character(s) (U+0080-U+009F); it was "
            "probably mis-decoded before it was saved (mojibake). Indexed as is."
        )
    return Document(
        content=text,
        title=path.stem,
        format="txt",
        metadata={"encoding": decoded.encoding, "warnings": warnings},
    )
