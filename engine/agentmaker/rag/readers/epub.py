"""EPUB e-books: the spine's XHTML documents in reading order, as Markdown text.

An EPUB is a ZIP: ``META-INF/container.xml`` names the package file (OPF), whose
spine lists the chapters in order. Each chapter goes through the HTML reader;
``metadata["section_spans"]`` maps character ranges back to chapter files.
DRM-encrypted chapters cannot be read and are refused with a clear message.
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

from agentmaker.errors import CorruptDocumentError, UnsupportedFormatError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.detect import check_zip, mismatch_error, zip_kind
from agentmaker.rag.readers.html import html_to_markdown
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines

_CONTAINER = "META-INF/container.xml"
_ENCRYPTION = "META-INF/encryption.xml"
# Font obfuscation is not DRM: the text is readable.
_FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> bytes:
    """A member's bytes; a CRC or decompression failure means a damaged download."""
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise CorruptDocumentError(
            f"is damaged: {name} cannot be unpacked ({exc}); re-download it.", path
        ) from None


def _xml(archive: zipfile.ZipFile, name: str, path: Path) -> Any:
    try:
        return ElementTree.fromstring(_member(archive, name, path))
    except KeyError:
        raise CorruptDocumentError(
            f"is damaged: {name} is missing from the e-book; re-download it.", path
        ) from None
    except ElementTree.ParseError as exc:
        raise CorruptDocumentError(
            f"is damaged: {name} is not valid XML ({exc}); re-download it.", path
        ) from None


def _encrypted_members(archive: zipfile.ZipFile, names: set[str], path: Path) -> set[str]:
    """Members encrypted with anything other than font obfuscation."""
    if _ENCRYPTION not in names:
        return set()
    root = _xml(archive, _ENCRYPTION, path)
    encrypted: set[str] = set()
    for data in root.iterfind(".//{*}EncryptedData"):
        method = data.find("{*}EncryptionMethod")
        algorithm = method.get("Algorithm", "") if method is not None else ""
        reference = data.find(".//{*}CipherReference")
        if reference is not None and algorithm not in _FONT_OBFUSCATION:
            encrypted.add(unquote(reference.get("URI", "")))
    return encrypted


def read_epub_file(path: Path) -> Document:
    """Read an ``.epub`` into an ``md`` Document, chapters in spine order."""
    names = set(check_zip(path, "e-book"))
    if _CONTAINER not in names:
        raise mismatch_error(zip_kind(names), path.suffix.lower(), path)
    warnings: list[str] = []
    with zipfile.ZipFile(path) as archive:
        container = _xml(archive, _CONTAINER, path)
        rootfile = container.find(".//{*}rootfile")
        opf_name = unquote(rootfile.get("full-path", "")) if rootfile is not None else ""
        if not opf_name:
            raise CorruptDocumentError(
                "is damaged: its container does not name a package file; re-download it.",
                path,
            )
        opf = _xml(archive, opf_name, path)
        base = posixpath.dirname(opf_name)
        manifest = {
            item.get("id", ""): item
            for item in opf.iterfind(".//{*}item")
            if item.get("id") and item.get("href")
        }
        encrypted = _encrypted_members(archive, names, path)
        parts: list[str] = []
        spans: list[list[Any]] = []
        position = 0
        for itemref in opf.iterfind(".//{*}itemref"):
            item = manifest.get(itemref.get("idref", ""))
            if item is None or item.get("media-type", "") not in _HTML_TYPES:
                continue
            member = posixpath.normpath(posixpath.join(base, unquote(item.get("href", ""))))
            if member in encrypted:
                raise UnsupportedFormatError(
                    "is protected by DRM (its chapters are encrypted); it cannot be "
                    "indexed. Use a DRM-free copy of the book.",
                    path,
                )
            if member not in names:
                warnings.append(f"Chapter {member} is listed but missing; it was skipped.")
                continue
            decoded = decode_bytes(_member(archive, member, path))
            text, _ = html_to_markdown(normalize_newlines(decoded.text))
            if not text:
                continue
            if parts:
                parts.append("\n\n")
                position += 2
            parts.append(text)
            spans.append([position, position + len(text), member])
            position += len(text)
    title_element = opf.find(".//{*}title")
    title = " ".join((title_element.text or "").split()) if title_element is not None else ""
    metadata: dict[str, object] = {"warnings": warnings, "section_spans": spans}
    return Document(
        content="".join(parts), title=title or path.stem, format="md", metadata=metadata
    )
