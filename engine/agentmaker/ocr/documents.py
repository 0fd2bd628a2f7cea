"""Documents out of OCR'd pages: a scan on its own, or OCR text spliced into a PDF.

Both keep the contract of the PDF reader: pages joined by a blank line and
``metadata["page_spans"] = [[start, end, page, label], ...]`` with the exact character
range of every physical page (empty ranges for pages without text), so the PDF
chunker splits per page and citations name the physical page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmaker.rag.documents import Document

PAGE_SEPARATOR = "\n\n"


def ocr_document(
    path: Path,
    pages: list[int],
    texts: dict[int, str],
    labels: dict[int, str],
    *,
    source_format: str,
) -> Document:
    """A ``pdf``-format Document made only of OCR text (a fully scanned PDF, an image)."""
    parts: list[str] = []
    spans: list[list[Any]] = []
    position = 0
    for number in sorted(pages):
        text = texts.get(number, "")
        label = labels.get(number, str(number))
        if not text:
            spans.append([position, position, number, label])
            continue
        if parts:
            parts.append(PAGE_SEPARATOR)
            position += len(PAGE_SEPARATOR)
        parts.append(text)
        spans.append([position, position + len(text), number, label])
        position += len(text)
    metadata: dict[str, Any] = {
        "warnings": [],
        "source_format": source_format,
        "page_count": len(pages),
        "page_spans": spans,
        "pages_without_text": [n for n in sorted(pages) if not texts.get(n)],
    }
    if source_format == "pptx":  # a deck of picture-only slides: cited by slide
        metadata["page_unit"] = "slide"
    return Document(content="".join(parts), title=path.stem, format="pdf", metadata=metadata)


def splice_ocr_pages(base: Document, texts: dict[int, str]) -> Document:
    """``base`` (a PDF read from its text layer) with OCR text put into its empty pages.

    Each OCR'd page's text goes where the page belongs in ``content`` (before any form
    or comment text the reader found on that page); every later page span moves by the
    inserted length. Text outside the page spans is kept as it was.
    """
    content = base.content
    spans = sorted(
        (list(s) for s in base.metadata.get("page_spans") or []), key=lambda s: (s[0], s[2])
    )
    pieces: list[str] = []
    new_spans: list[list[Any]] = []
    cursor = 0
    offset = 0
    for start, end, number, label in spans:
        text = texts.get(number, "")
        if not text:
            new_spans.append([start + offset, end + offset, number, label])
            continue
        pieces.append(content[cursor:start])
        cursor = start
        if start < end:  # the page has form or comment text only: OCR text goes first
            insert = text + PAGE_SEPARATOR
            new_spans.append([start + offset, end + offset + len(insert), number, label])
        elif start > 0:
            insert = PAGE_SEPARATOR + text
            begin = start + offset + len(PAGE_SEPARATOR)
            new_spans.append([begin, begin + len(text), number, label])
        else:
            insert = text + (PAGE_SEPARATOR if content else "")
            new_spans.append([start + offset, start + offset + len(text), number, label])
        pieces.append(insert)
        offset += len(insert)
    pieces.append(content[cursor:])
    metadata = dict(base.metadata)
    metadata["page_spans"] = sorted(new_spans, key=lambda s: (s[0], s[2]))
    metadata["pages_without_text"] = [
        n for n in metadata.get("pages_without_text") or [] if not texts.get(n)
    ]
    return Document(
        content="".join(pieces),
        doc_id=base.doc_id,
        title=base.title,
        source=base.source,
        format=base.format,
        metadata=metadata,
    )
