"""Which reader a file needs: from its extension, checked against its first bytes.

A file's extension says what the user *expects*; its magic bytes say what it *is*.
A PNG saved as ``notes.md`` must be refused with a clear message instead of being
indexed as garbage, and a UTF-16 text file (which is full of NUL bytes) must not be
mistaken for binary data.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from agentmaker.errors import (
    CorruptDocumentError,
    DocumentError,
    FileTooLargeError,
    FormatMismatchError,
    PasswordRequiredError,
)

# extension -> (source format, splitter format)
EXTENSION_FORMATS: dict[str, tuple[str, str]] = {
    ".md": ("md", "md"),
    ".markdown": ("md", "md"),
    ".txt": ("txt", "txt"),
    ".text": ("txt", "txt"),
    ".log": ("txt", "txt"),
    ".rst": ("txt", "txt"),
    ".json": ("json", "json"),
    ".jsonl": ("jsonl", "jsonl"),
    ".ndjson": ("jsonl", "jsonl"),
    ".csv": ("csv", "csv"),
    ".tsv": ("tsv", "csv"),
    ".pdf": ("pdf", "pdf"),
    ".docx": ("docx", "md"),
    ".html": ("html", "md"),
    ".htm": ("html", "md"),
    ".xhtml": ("html", "md"),
    ".epub": ("epub", "md"),
}

TEXT_SOURCE_FORMATS = frozenset({"md", "txt", "json", "jsonl", "csv", "tsv", "html"})

SNIFF_BYTES = 8192

# What a content kind is called in a message to the user.
KIND_NAMES: dict[str, str] = {
    "pdf": "a PDF document",
    "png": "a PNG image",
    "jpeg": "a JPEG image",
    "gif": "a GIF image",
    "webp": "a WebP image",
    "tiff": "a TIFF image",
    "bmp": "a BMP image",
    "zip": "a ZIP archive",
    "docx": "a Word document (.docx)",
    "xlsx": "an Excel workbook (.xlsx)",
    "pptx": "a PowerPoint presentation (.pptx)",
    "epub": "an EPUB e-book",
    "odf": "an OpenDocument file",
    "ole2": "an old Microsoft Office file (.doc/.xls) or an encrypted Office file",
    "gzip": "a gzip archive",
    "7z": "a 7-Zip archive",
    "rar": "a RAR archive",
    "sqlite": "an SQLite database",
    "elf": "a program (executable)",
    "mp3": "an MP3 audio file",
    "mp4": "a video or audio file (MP4)",
    "binary": "binary data",
    "text": "plain text",
}

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"PK\x07\x08", "zip"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole2"),
    (b"\x1f\x8b", "gzip"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
    (b"SQLite format 3\x00", "sqlite"),
    (b"\x7fELF", "elf"),
    (b"ID3\x02", "mp3"),
    (b"ID3\x03", "mp3"),
    (b"ID3\x04", "mp3"),
)

_TEXT_BOMS = (
    b"\xef\xbb\xbf",
    b"\xff\xfe\x00\x00",
    b"\x00\x00\xfe\xff",
    b"\xff\xfe",
    b"\xfe\xff",
)


def has_text_bom(head: bytes) -> bool:
    """True when ``head`` starts with a UTF-8/16/32 byte-order mark."""
    return head.startswith(_TEXT_BOMS)


def looks_like_utf16_without_bom(head: bytes) -> str | None:
    """Guess BOM-less UTF-16 from NUL bytes in every other position.

    Returns ``"utf-16-le"``, ``"utf-16-be"`` or ``None``. Mostly-Latin UTF-16 text
    has a NUL in nearly every high byte, which random binary data does not.
    """
    sample = head[: len(head) - len(head) % 2]
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    half = len(sample) // 2
    if odd.count(0) >= 0.7 * half and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) >= 0.7 * half and odd.count(0) == 0:
        return "utf-16-be"
    return None


def sniff_bytes(head: bytes) -> str:
    """Name the kind of content from its first bytes: ``pdf``, ``png``, ``zip``, ``text``…

    ``text`` means "plausibly text in some encoding"; ``binary`` means NUL bytes or
    control characters that no text file has.
    """
    if has_text_bom(head):
        return "text"
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp":
        return "mp4"
    if head[:2] == b"BM" and len(head) > 14 and head[6:10] == b"\x00\x00\x00\x00":
        return "bmp"
    # The PDF spec lets readers accept junk before the header (within 1 KiB).
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if b"\x00" in head:
        return "text" if looks_like_utf16_without_bom(head) else "binary"
    # Text files hardly ever contain C0 controls other than tab/newline/formfeed/ESC.
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    if head and controls > max(8, len(head) // 20):
        return "binary"
    return "text"


def _zip_kind(path: Path) -> str:
    """Tell Office/EPUB containers apart by their member names (needs the whole file)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return zip_kind(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return "zip"


def zip_kind(member_names: list[str] | set[str]) -> str:
    """``docx``, ``xlsx``, ``pptx``, ``epub``, ``odf`` or plain ``zip`` from member names."""
    names = set(member_names)
    if "word/document.xml" in names:
        return "docx"
    if "xl/workbook.xml" in names:
        return "xlsx"
    if "ppt/presentation.xml" in names:
        return "pptx"
    if "META-INF/container.xml" in names:
        return "epub"
    if "content.xml" in names and "mimetype" in names:
        return "odf"
    return "zip"


def sniff_format(source: str | os.PathLike[str] | bytes) -> str:
    """Name what a file really contains, ignoring its extension.

    ``source`` is a path or the file's first bytes. Returns one of the keys of
    ``KIND_NAMES`` (``pdf``, ``docx``, ``png``, ``text``, ``binary``…). For a path, ZIP
    files are looked into to tell ``docx``/``xlsx``/``epub`` apart.
    """
    if isinstance(source, bytes):
        return sniff_bytes(source[:SNIFF_BYTES])
    path = Path(source)
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise DocumentError(f"cannot be opened ({exc.strerror or exc}).", path) from None
    kind = sniff_bytes(head)
    return _zip_kind(path) if kind == "zip" else kind


def _is_encrypted_office(head: bytes, path: Path) -> bool:
    """An encrypted .docx is an OLE2 container holding an ``EncryptionInfo`` stream."""
    marker = "EncryptionInfo".encode("utf-16-le")
    if marker in head:
        return True
    try:
        with path.open("rb") as handle:
            return marker in handle.read(1024 * 1024)
    except OSError:
        return False


def check_content(source_format: str, head: bytes, path: Path, extension: str) -> None:
    """Raise ``FormatMismatchError`` when the bytes do not fit the file's extension."""
    kind = sniff_bytes(head)
    if source_format in TEXT_SOURCE_FORMATS:
        if kind == "text":
            return
        if kind == "binary":
            raise FormatMismatchError(
                f"is named {extension} but contains binary data, not text. "
                "Check that it is the right file; it cannot be indexed as text.",
                path,
            )
        raise _mismatch(kind, extension, path)
    if source_format == "pdf":
        if kind != "pdf":
            raise _mismatch(kind, extension, path)
        return
    # docx and epub are ZIP containers.
    if kind == "zip":
        return
    if source_format == "docx" and kind == "ole2":
        if _is_encrypted_office(head, path):
            raise PasswordRequiredError(
                "is a password-protected Word document. Remove the password in Word "
                "(File > Info > Protect Document) and save it again to index it.",
                path,
            )
        raise FormatMismatchError(
            "is an old Word 97-2003 (.doc) file named .docx. Open it in Word or "
            "LibreOffice and save it as .docx to index it.",
            path,
        )
    raise _mismatch(kind, extension, path)


def mismatch_error(kind: str, extension: str, path: Path) -> FormatMismatchError:
    """The error for a file whose content (``kind``) does not fit its extension."""
    return _mismatch(kind, extension, path)


def _mismatch(kind: str, extension: str, path: Path) -> FormatMismatchError:
    actual = KIND_NAMES.get(kind, kind)
    expected = EXPECTED_NAMES.get(extension, f"a {extension} file")
    return FormatMismatchError(
        f"is named {extension} but is actually {actual}, not {expected}. "
        "Rename it to its real type or choose the right file.",
        path,
    )


EXPECTED_NAMES: dict[str, str] = {
    ".md": "Markdown text",
    ".markdown": "Markdown text",
    ".txt": "plain text",
    ".text": "plain text",
    ".log": "plain text",
    ".rst": "plain text",
    ".json": "JSON text",
    ".jsonl": "JSON Lines text",
    ".ndjson": "JSON Lines text",
    ".csv": "CSV text",
    ".tsv": "tab-separated text",
    ".pdf": "a PDF document",
    ".docx": "a Word document",
    ".html": "an HTML page",
    ".htm": "an HTML page",
    ".xhtml": "an HTML page",
    ".epub": "an EPUB e-book",
}


# Office files and e-books are ZIP archives; a small archive that unpacks to
# gigabytes (a "ZIP bomb") would exhaust memory long before any text is read.
MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024


def check_zip(path: Path, what: str) -> list[str]:
    """Check that ``path`` is a complete, sane ZIP archive; return its member names.

    ``what`` names the document type in messages (``"Word document"``).
    """
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise CorruptDocumentError(
            f"is damaged or incomplete (it is not a complete ZIP archive: {exc}); "
            f"re-download the {what} or save it again.",
            path,
        ) from None
    except (OSError, EOFError, ValueError) as exc:
        raise CorruptDocumentError(
            f"is damaged or incomplete (the ZIP archive cannot be read: {exc}); "
            f"re-download the {what} or save it again.",
            path,
        ) from None
    if sum(info.file_size for info in infos) > MAX_UNPACKED_BYTES:
        raise FileTooLargeError(
            f"unpacks to more than {MAX_UNPACKED_BYTES // 1024**3} GiB, which is far more "
            f"than any real {what}; it was not opened.",
            path,
        )
    return [info.filename for info in infos]
