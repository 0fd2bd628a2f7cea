"""OpenDocument text (.odt) to Markdown-shaped text, headings kept as for Word.

``content.xml`` is parsed with defusedxml (entity declarations refused) after the
container check. ``text:h`` headings become ``#`` lines at their outline level, so the
Markdown splitter keeps heading paths; list items become ``-`` lines, tables pipe
rows; footnotes/endnotes and comments are marked (``[Footnote 1] …``,
``[Comment by Ana] …``) right after their paragraph. The tree is walked with an
explicit stack, never recursion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmaker.errors import CorruptDocumentError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.ods import open_odf

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_H, _P, _LIST, _ITEM = f"{_TEXT}h", f"{_TEXT}p", f"{_TEXT}list", f"{_TEXT}list-item"
_NOTE, _NOTE_BODY, _NOTE_CITATION = f"{_TEXT}note", f"{_TEXT}note-body", f"{_TEXT}note-citation"
_ANNOTATION = f"{_OFFICE}annotation"
_TBL, _ROW, _CELL = f"{_TABLE}table", f"{_TABLE}table-row", f"{_TABLE}table-cell"
_CHARS = {f"{_TEXT}s": " ", f"{_TEXT}tab": "\t", f"{_TEXT}line-break": "\n"}
# Inside a paragraph: subtrees whose text is not part of the line.
_SKIP_INLINE = frozenset({_NOTE, _ANNOTATION, f"{_TEXT}tracked-changes", f"{_TEXT}bookmark"})


def _inline_text(element: Any) -> str:
    """Visible text of a paragraph or heading, without its notes and comments."""
    parts: list[str] = []
    stack: list[Any] = [element]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        if item is not element and item.tag in _SKIP_INLINE:
            continue  # its tail was pushed by its parent
        if item.tag in _CHARS:
            count = int(item.get(f"{_TEXT}c") or 1) if item.tag == f"{_TEXT}s" else 1
            parts.append(_CHARS[item.tag] * min(count, 100))
        elif item.text:
            parts.append(item.text)
        # Children in order, each followed by its tail (pushed first, so popped after).
        for child in reversed(list(item)):
            if child.tail:
                stack.append(child.tail)
            stack.append(child)
    text = "".join(parts)
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _note_blocks(element: Any) -> list[str]:
    blocks = []
    for note in element.iter(_NOTE):
        kind = "Endnote" if note.get(f"{_TEXT}note-class") == "endnote" else "Footnote"
        citation = note.find(_NOTE_CITATION)
        label = (citation.text or "").strip() if citation is not None else ""
        body = note.find(_NOTE_BODY)
        text = " ".join(_inline_text(p) for p in body.iter(_P)) if body is not None else ""
        if text.strip():
            blocks.append(f"[{kind}{' ' + label if label else ''}] {text.strip()}")
    for annotation in element.iter(_ANNOTATION):
        creator = annotation.find(f"{_DC}creator")
        by = f" by {creator.text.strip()}" if creator is not None and creator.text else ""
        text = " ".join(_inline_text(p) for p in annotation.iter(_P))
        if text.strip():
            blocks.append(f"[Comment{by}] {text.strip()}")
    return blocks


def _table_block(table: Any) -> str:
    rows = []
    for row in table.iter(_ROW):
        cells = [" ".join(_inline_text(p) for p in cell.iter(_P)) for cell in row.iter(_CELL)]
        if any(cells):
            rows.append(f"| {' | '.join(cells)} |")
    if len(rows) > 1:
        rows.insert(1, "|" + " --- |" * max(row.count(" | ") + 1 for row in rows))
    return "\n".join(rows)


def odt_blocks(body: Any) -> tuple[list[str], list[tuple[int, str]]]:
    """Markdown-shaped blocks of an ``office:text`` element, and its headings."""
    blocks: list[str] = []
    headings: list[tuple[int, str]] = []
    stack: list[tuple[Any, int]] = [(child, 0) for child in reversed(list(body))]
    while stack:
        element, list_depth = stack.pop()
        tag = element.tag
        if tag == _H:
            text = " ".join(_inline_text(element).split())
            if text:
                level = min(max(int(element.get(f"{_TEXT}outline-level") or 1), 1), 6)
                headings.append((level, text))
                blocks.append(f"{'#' * level} {text}")
            blocks.extend(_note_blocks(element))
        elif tag == _P:
            text = _inline_text(element)
            if text:
                prefix = "  " * (list_depth - 1) + "- " if list_depth else ""
                blocks.append(prefix + text.replace("\n", " ") if list_depth else text)
            blocks.extend(_note_blocks(element))
        elif tag == _TBL:
            table = _table_block(element)
            if table:
                blocks.append(table)
        elif tag in (_LIST, _ITEM) or tag.startswith(_TEXT):  # lists, sections, indexes
            depth = list_depth + 1 if tag == _LIST else list_depth
            stack.extend((child, depth) for child in reversed(list(element)))
    return blocks, headings


def read_odt_file(path: Path) -> Document:
    """Read an ``.odt`` document into an ``md`` Document (headings as ``#`` lines)."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    with open_odf(path, "OpenDocument text document", "odt") as archive:
        try:
            root = fromstring(archive.read("content.xml"))
            has_meta = "meta.xml" in archive.namelist()
            meta = fromstring(archive.read("meta.xml")) if has_meta else None
        except DefusedXmlException as exc:
            raise CorruptDocumentError(
                f"contains XML the app refuses to expand ({exc}); it was not read.", path
            ) from None
        except Exception as exc:
            raise CorruptDocumentError(
                f"is damaged: its content cannot be read ({type(exc).__name__}: {exc}); "
                "save it again from LibreOffice.",
                path,
            ) from None
    body = root.find(f"{_OFFICE}body/{_OFFICE}text")
    blocks, headings = odt_blocks(body) if body is not None else ([], [])
    title_element = meta.find(f"{_OFFICE}meta/{_DC}title") if meta is not None else None
    core_title = (title_element.text or "").strip() if title_element is not None else ""
    first = next((text for level, text in headings if level == 1), "")
    return Document(
        content="\n\n".join(blocks),
        title=core_title or first or path.stem,
        format="md",
        metadata={"warnings": [], "headings": len(headings)},
    )
