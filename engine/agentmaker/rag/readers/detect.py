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

from agentmaker.errors import DocumentError, FormatMismatchError
from agentmaker.rag.readers.containers import check_archive

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
    ".pptx": ("pptx", "pdf"),
    ".xlsx": ("xlsx", "sheet"),
    ".xlsm": ("xlsx", "sheet"),
    ".ods": ("ods", "sheet"),
    ".odt": ("odt", "md"),
    ".rtf": ("rtf", "md"),
    ".eml": ("eml", "mail"),
    ".mbox": ("mbox", "mail"),
    ".msg": ("msg", "mail"),
}

TEXT_SOURCE_FORMATS = frozenset({"md", "txt", "json", "jsonl", "csv", "tsv", "html", "eml"})
#: Formats stored in a ZIP container, with the content kind (``zip_kind``) each needs.
ZIP_SOURCE_FORMATS: dict[str, str] = {
    "docx": "docx",
    "epub": "epub",
    "pptx": "pptx",
    "xlsx": "xlsx",
    "ods": "ods",
    "odt": "odt",
}
#: OOXML formats that Office encrypts into an OLE2 container when a password is set.
ENCRYPTABLE_FORMATS = frozenset({"docx", "pptx", "xlsx"})

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
    "ods": "an OpenDocument spreadsheet (.ods)",
    "odt": "an OpenDocument text document (.odt)",
    "odp": "an OpenDocument presentation (.odp)",
    "rtf": "an RTF document",
    "ole2": "an old Microsoft Office file (.doc/.xls/.ppt), an Outlook message (.msg) "
    "or an encrypted Office file",
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
    (b"{\\rtf", "rtf"),
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
            kind = zip_kind(archive.namelist())
            return odf_kind(archive) if kind == "odf" else kind
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return "zip"


_ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
}


def odf_kind(archive: zipfile.ZipFile) -> str:
    """``odt``, ``ods``, ``odp`` or ``odf`` (another OpenDocument type) from ``mimetype``."""
    try:
        info = archive.getinfo("mimetype")
        if info.file_size > 200:
            return "odf"
        mimetype = archive.read(info).decode("ascii", "replace").strip()
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, EOFError):
        return "odf"
    return _ODF_MIMETYPES.get(mimetype, "odf")


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


_OLD_OFFICE = {
    "docx": "an old Word 97-2003 (.doc) file named .docx. Open it in Word or LibreOffice "
    "and save it as .docx to index it.",
    "pptx": "an old PowerPoint 97-2003 (.ppt) file named .pptx. Open it in PowerPoint or "
    "LibreOffice and save it as .pptx to index it.",
    "xlsx": "an old Excel 97-2003 (.xls) file named .xlsx. Open it in Excel or LibreOffice "
    "and save it as .xlsx to index it.",
}


def check_content(source_format: str, head: bytes, path: Path, extension: str) -> None:
    """Raise ``FormatMismatchError`` when the bytes do not fit the file's extension.

    ZIP containers are checked by their first bytes here; which Office type the ZIP
    holds is checked by its reader (``require_zip_kind``), which opens it anyway.
    """
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
    if source_format in ("pdf", "rtf"):
        if kind != source_format:
            raise _mismatch(kind, extension, path)
        return
    if source_format == "msg":
        if kind != "ole2":
            raise _mismatch(kind, extension, path)
        return
    if source_format == "mbox":
        if kind != "text":
            raise _mismatch(kind, extension, path)
        return
    if source_format in ZIP_SOURCE_FORMATS and kind == "zip":
        return
    if source_format in ENCRYPTABLE_FORMATS and kind == "ole2":
        if _is_encrypted_office(head, path):
            return  # the reader asks for the password (or decrypts with it)
        raise FormatMismatchError(f"is {_OLD_OFFICE[source_format]}", path)
    raise _mismatch(kind, extension, path)


def require_zip_kind(names: list[str], path: Path, source_format: str, odf: str = "") -> None:
    """Raise the mismatch error when a ZIP holds another type than ``source_format``.

    ``odf`` is the OpenDocument kind read from the ``mimetype`` member, if any.
    """
    kind = zip_kind(names)
    if kind == "odf" and odf:
        kind = odf
    if kind != ZIP_SOURCE_FORMATS[source_format]:
        raise _mismatch(kind, path.suffix.lower(), path)


def check_image(path: Path) -> None:
    """Raise ``FormatMismatchError`` when an image file's bytes are not that image type."""
    expected = {
        ".png": "png",
        ".jpg": "jpeg",
        ".jpeg": "jpeg",
        ".tif": "tiff",
        ".tiff": "tiff",
        ".webp": "webp",
    }.get(path.suffix.lower())
    if expected is None:
        return
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError as exc:
        raise DocumentError(f"cannot be opened ({exc.strerror or exc}).", path) from None
    kind = sniff_bytes(head)
    if kind != expected:
        raise _mismatch(kind, path.suffix.lower(), path)


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
    ".pptx": "a PowerPoint presentation",
    ".xlsx": "an Excel workbook",
    ".xlsm": "an Excel workbook",
    ".ods": "an OpenDocument spreadsheet",
    ".odt": "an OpenDocument text document",
    ".rtf": "an RTF document",
    ".eml": "an e-mail message",
    ".mbox": "a mailbox (mbox)",
    ".msg": "an Outlook message",
    ".png": "a PNG image",
    ".jpg": "a JPEG image",
    ".jpeg": "a JPEG image",
    ".tif": "a TIFF image",
    ".tiff": "a TIFF image",
    ".webp": "a WebP image",
}


def check_zip(path: Path, what: str) -> list[str]:
    """Check that ``path`` is a complete, sane ZIP archive; return its member names.

    ``what`` names the document type in messages (``"Word document"``). ZIP bombs and
    XML parts with a DOCTYPE are refused (see ``containers``).
    """
    return check_archive(path, path, what)
