"""Split a :class:`Document` into :class:`Chunk` objects sized in tokens.

The splitter follows ``doc.format``:

- ``md`` / ``markdown`` (and ``docx``, ``html``, ``epub``, whose readers may mark
  headings with ``#``): by heading section, keeping the full heading path;
- ``pdf``: per page (``metadata["page_spans"]``), never across a page boundary;
  presentations the same, per slide (``location`` "slide 7");
- ``sheet``: spreadsheet rows grouped within a sheet ("Sheet 'Budget', row 42");
- ``mail``: per message (``metadata["sections"]``), each split as Markdown;
- ``json`` / ``jsonl`` / ``ndjson`` / ``csv`` / ``tsv``: by record;
- anything else: plain text by paragraphs, sentences, words, then raw tokens.

Every chunk carries ``metadata["start_char"]`` / ``["end_char"]``. For text, Markdown
and PDF chunks ``doc.content[start_char:end_char] == chunk.content``; for structured
data the content is the rendered record(s) and the offsets span the raw record text.
"""

from __future__ import annotations

import bisect
import re

from agentmaker.rag.chunking.config import ChunkingConfig
from agentmaker.rag.chunking.located import label_slides, split_sections, split_sheets
from agentmaker.rag.chunking.markdown import split_markdown
from agentmaker.rag.chunking.structured import STRUCTURED_FORMATS, split_structured
from agentmaker.rag.chunking.text import Piece, split_paged_text, split_text
from agentmaker.rag.documents import Chunk, Document

MARKDOWN_FORMATS = frozenset({"md", "markdown", "docx", "html", "htm", "epub"})
_NEWLINE = re.compile("\n")


def _pieces(doc: Document, config: ChunkingConfig) -> list[Piece]:
    fmt = doc.format.lower().lstrip(".")
    text = doc.content
    if fmt in MARKDOWN_FORMATS:
        return split_markdown(text, config)
    if fmt in STRUCTURED_FORMATS:
        structured = split_structured(
            text, fmt, config, csv_dialect=doc.metadata.get("csv_dialect")
        )
        # None: the data does not parse (the reader normally rejects that); the raw
        # text is still worth indexing.
        if structured is not None:
            return structured
    if fmt == "pdf":
        paged = split_paged_text(text, config, doc.metadata.get("page_spans"))
        if paged is not None:
            if doc.metadata.get("page_unit") == "slide":
                return label_slides(paged, doc.metadata.get("page_titles"))
            return paged
    if fmt == "sheet":
        rows = split_sheets(text, config, doc.metadata.get("sheet_spans"))
        if rows is not None:
            return rows
    if fmt == "mail":
        sections = split_sections(text, config, doc.metadata.get("sections"))
        if sections is not None:
            return sections
        return split_markdown(text, config)
    return label_lines(text, split_text(text, config))


def label_lines(text: str, pieces: list[Piece]) -> list[Piece]:
    """Plain text has no pages or headings: cite it by line ("lines 1,204–1,230")."""
    breaks = [match.start() for match in _NEWLINE.finditer(text)]
    for piece in pieces:
        first = bisect.bisect_right(breaks, piece.start) + 1
        last = bisect.bisect_left(breaks, max(piece.start, piece.end - 1)) + 1
        piece.metadata["line_start"], piece.metadata["line_end"] = first, last
        piece.metadata["location"] = (
            f"line {first:,}" if first == last else f"lines {first:,}–{last:,}"
        )
    return pieces


def split_document(
    doc: Document,
    chunk_tokens: int = 512,
    overlap_tokens: int = 64,
    *,
    config: ChunkingConfig | None = None,
) -> list[Chunk]:
    """Split ``doc`` into chunks of at most ``chunk_tokens`` tokens, in document order.

    ``config``, when given, takes precedence over ``chunk_tokens`` / ``overlap_tokens``.
    Raises :class:`ConfigurationError` for invalid sizes. A blank document gives ``[]``.
    """
    if config is None:
        config = ChunkingConfig(chunk_tokens=chunk_tokens, overlap_tokens=overlap_tokens)
    chunks: list[Chunk] = []
    for piece in _pieces(doc, config):
        if not piece.content.strip():
            continue
        metadata = {"start_char": piece.start, "end_char": piece.end, **piece.metadata}
        chunks.append(
            Chunk(
                content=piece.content,
                doc_id=doc.doc_id,
                heading_path=piece.heading_path,
                index=len(chunks),
                metadata=metadata,
            )
        )
    return chunks
