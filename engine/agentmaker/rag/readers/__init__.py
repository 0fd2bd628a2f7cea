"""Document readers: one file in, one ``Document`` out, or a typed error.

``read_file`` picks the reader from the extension, checks the extension against
the content (a PNG named ``.md`` is refused), enforces the size limit and turns
every failure into one of the ``agentmaker.errors.DocumentError`` subclasses, whose
message names the file and says what to do. No raw library exception escapes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from agentmaker.errors import (
    CorruptDocumentError,
    DocumentError,
    EmptyDocumentError,
    FileTooLargeError,
    UnsupportedFormatError,
)
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.delimited import read_delimited_file
from agentmaker.rag.readers.detect import (
    EXTENSION_FORMATS,
    SNIFF_BYTES,
    TEXT_SOURCE_FORMATS,
    check_content,
    sniff_format,
)
from agentmaker.rag.readers.docx import read_docx_file
from agentmaker.rag.readers.epub import read_epub_file
from agentmaker.rag.readers.html import read_html_file
from agentmaker.rag.readers.mail import read_eml_file, read_mbox_file
from agentmaker.rag.readers.mail_msg import read_msg_file
from agentmaker.rag.readers.markdown import read_markdown_file
from agentmaker.rag.readers.ods import read_ods_file
from agentmaker.rag.readers.odt import read_odt_file
from agentmaker.rag.readers.pdf import read_pdf_file
from agentmaker.rag.readers.pptx import read_pptx_file
from agentmaker.rag.readers.rtf import read_rtf_file
from agentmaker.rag.readers.structured import read_json_file, read_jsonl_file
from agentmaker.rag.readers.text import read_text_file
from agentmaker.rag.readers.xlsx import read_xlsx_file

__all__ = ["DEFAULT_MAX_BYTES", "SUPPORTED_EXTENSIONS", "read_file", "sniff_format"]

_LOG = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 512 * 1024 * 1024

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(EXTENSION_FORMATS)
"""Lower-case extensions with their dot (``".pdf"``) that ``read_file`` accepts."""

_TEXT_READERS: dict[str, Callable[[Path, bytes], Document]] = {
    "md": read_markdown_file,
    "txt": read_text_file,
    "json": read_json_file,
    "jsonl": read_jsonl_file,
    "csv": lambda path, data: read_delimited_file(path, data, tab_separated=False),
    "tsv": lambda path, data: read_delimited_file(path, data, tab_separated=True),
    "html": read_html_file,
    "eml": read_eml_file,
}
# Readers of whole files (path in), and whether they take a password.
_FILE_READERS: dict[str, tuple[Callable[..., Document], bool]] = {
    "pdf": (read_pdf_file, True),
    "docx": (read_docx_file, True),
    "pptx": (read_pptx_file, True),
    "xlsx": (read_xlsx_file, True),
    "epub": (read_epub_file, False),
    "ods": (read_ods_file, False),
    "odt": (read_odt_file, False),
    "rtf": (read_rtf_file, False),
    "mbox": (read_mbox_file, False),
    "msg": (read_msg_file, False),
}


def _stat(path: Path) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise DocumentError(
            "does not exist; it may have been moved, renamed or deleted.", path
        ).coded("file_missing") from None
    except PermissionError:
        raise DocumentError(
            "cannot be opened: permission denied. Check the file's permissions.", path
        ).coded("file_locked") from None
    except OSError as exc:
        raise DocumentError(f"cannot be opened ({exc.strerror or exc}).", path) from None
    if not path.is_file():
        raise UnsupportedFormatError("is not a regular file (it may be a folder).", path)
    return info


def _read(path: Path, limit: int) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(limit)
    except PermissionError:
        raise DocumentError(
            "cannot be opened: permission denied. Check the file's permissions.", path
        ).coded("file_locked") from None
    except OSError as exc:
        raise DocumentError(f"cannot be read ({exc.strerror or exc}).", path) from None


def _too_large(path: Path, size: int, max_bytes: int) -> FileTooLargeError:
    return FileTooLargeError(
        f"is {size / 1024**2:,.1f} MB, more than the limit of {max_bytes / 1024**2:,.1f} MB. "
        "Split it or raise the size limit in the settings.",
        path,
    ).coded(size_mb=f"{size / 1024**2:,.1f}", limit_mb=f"{max_bytes / 1024**2:,.1f}")


def read_file(
    path: str | os.PathLike[str],
    *,
    password: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Document:
    """Read one file into a ``Document``.

    ``password`` opens encrypted PDFs and password-protected Word, PowerPoint and
    Excel files; ``max_bytes`` refuses larger files before
    reading them. ``Document.format`` names the splitter (``md`` for DOCX, ODT, RTF,
    HTML and EPUB; ``pdf`` (paged) for PPTX; ``sheet`` for XLSX/ODS; ``mail`` for
    e-mail); ``metadata`` holds ``source_format``, ``size_bytes``, ``mtime`` and
    ``warnings`` (plain-language notes about what the reader did), plus per-format
    extras such as ``page_spans`` for PDFs.

    Raises a ``DocumentError`` subclass naming the file on any failure.
    """
    resolved = Path(os.path.abspath(os.fspath(path)))
    extension = resolved.suffix.lower()
    formats = EXTENSION_FORMATS.get(extension)
    if formats is None:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise UnsupportedFormatError(
            f"has a file type ({extension or 'no extension'}) that cannot be indexed. "
            f"Supported types: {supported}.",
            resolved,
        ).coded("unsupported_type", extension=extension or "—", supported=supported)
    source_format, splitter_format = formats
    info = _stat(resolved)
    if info.st_size > max_bytes:
        raise _too_large(resolved, info.st_size, max_bytes)
    if info.st_size == 0:
        raise EmptyDocumentError("is empty (0 bytes); there is nothing to index.", resolved)

    is_text = source_format in TEXT_SOURCE_FORMATS
    data = _read(resolved, max_bytes + 1 if is_text else SNIFF_BYTES)
    if len(data) > max_bytes:  # the file grew since stat()
        raise _too_large(resolved, len(data), max_bytes)
    if not data.strip() and info.st_size <= len(data):
        raise EmptyDocumentError("contains only whitespace; there is no text to index.", resolved)
    check_content(source_format, data[:SNIFF_BYTES], resolved, extension)
    try:
        if is_text:
            document = _TEXT_READERS[source_format](resolved, data)
        else:
            reader, takes_password = _FILE_READERS[source_format]
            document = reader(resolved, password=password) if takes_password else reader(resolved)
    except DocumentError:
        raise
    except MemoryError:
        raise FileTooLargeError(
            "is too large to read with the memory available. Split it into smaller files.",
            resolved,
        ) from None
    except RecursionError:
        raise CorruptDocumentError(
            "is nested too deeply to be read; it is probably generated or damaged.",
            resolved,
        ) from None
    except Exception as exc:
        # A reader bug or a library failing in a way nobody anticipated: keep the
        # traceback for the log, give the user a plain sentence.
        _LOG.warning("Unexpected failure reading %s", resolved, exc_info=True)
        raise CorruptDocumentError(
            f"could not be read ({type(exc).__name__}: {exc}). It may be damaged; "
            "try re-exporting it.",
            resolved,
        ) from exc

    if not document.content.strip():
        raise EmptyDocumentError(
            "contains no text (only whitespace or empty elements); there is nothing to index.",
            resolved,
        )
    document.source = str(resolved)
    document.format = document.format or splitter_format
    document.title = document.title or resolved.stem
    metadata = document.metadata
    metadata.setdefault("warnings", [])
    metadata["source_format"] = source_format
    metadata["size_bytes"] = info.st_size
    metadata["mtime"] = info.st_mtime
    return document
