"""From a file path or raw text to a :class:`Document`, before anything is indexed.

Which file types can be read, the stable doc_id a file gets from its path, reading a
file (in this process or in a child process), and wrapping raw text as a document.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmaker.errors import EmptyDocumentError, UnsupportedFormatError
from agentmaker.rag.documents import Document

if TYPE_CHECKING:
    from agentmaker.rag.ingest.reader_process import ReaderProcess


def supported_extensions() -> set[str]:
    """File extensions the readers handle (lower case, with the dot)."""
    # The readers pull in pypdf, python-docx and BeautifulSoup: import them on first use.
    from agentmaker.rag.readers import SUPPORTED_EXTENSIONS

    return {e.lower() for e in SUPPORTED_EXTENSIONS}


def doc_id_for_path(path: str | os.PathLike[str]) -> str:
    """A stable document id derived from the file's real absolute path.

    Symbolic links are resolved: a file reached through a link and through its real
    path is one document (indexed once, cited under its real path).
    """
    absolute = os.path.normcase(os.path.realpath(os.fspath(path)))
    return hashlib.sha256(absolute.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def read_document(
    path: Path,
    password: str | None,
    *,
    max_bytes: int,
    reader_process: ReaderProcess | None = None,
) -> Document:
    """Read a supported file (in ``reader_process`` when given); its doc_id and source
    derive from its absolute path."""
    from agentmaker.rag.readers import read_file

    supported = supported_extensions()
    if path.suffix.lower() not in supported:
        raise UnsupportedFormatError(
            f"files of type '{path.suffix or 'without extension'}' cannot be indexed "
            f"(supported: {', '.join(sorted(supported))}).",
            path,
        )
    if reader_process is not None:
        doc = reader_process.read(path, password, max_bytes)
    else:
        doc = read_file(path, password=password, max_bytes=max_bytes)
    doc.doc_id = doc_id_for_path(path)
    doc.source = os.path.realpath(path)
    return doc


def text_document(
    text: str,
    source: str,
    fmt: str | None,
    title: str,
    doc_id: str | None,
    metadata: dict[str, Any] | None,
) -> Document:
    """Raw text as a document; see :meth:`IngestionPipeline.ingest_text` for the defaults."""
    if not text.strip():
        raise EmptyDocumentError("the text is empty: nothing to index.", source or None)
    fmt = (fmt or Path(source).suffix.lstrip(".") or "txt").lower()
    fmt = {"markdown": "md", "ndjson": "jsonl", "text": "txt"}.get(fmt, fmt)
    if doc_id is None:
        key = f"text:{source}" if source else f"text:{text}"
        doc_id = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return Document(
        content=text,
        doc_id=doc_id,
        title=title or Path(source).stem or text.strip().splitlines()[0][:80],
        source=source,
        format=fmt,
        metadata=dict(metadata or {}),
    )
