"""Split a :class:`Document` into :class:`Chunk` objects sized in tokens.

The splitter follows ``doc.format``:

- ``md`` / ``markdown`` (and ``docx``, ``html``, ``epub``, whose readers may mark
  headings with ``#``): by heading section, keeping the full heading path;
- ``pdf``: per page (``metadata["page_spans"]``), never across a page boundary;
- ``json`` / ``jsonl`` / ``ndjson`` / ``csv`` / ``tsv``: by record;
- anything else: plain text by paragraphs, sentences, words, then raw tokens.

Every chunk carries ``metadata["start_char"]`` / ``["end_char"]``. For text, Markdown
and PDF chunks ``doc.content[start_char:end_char] == chunk.content``; for structured
data the content is the rendered record(s) and the offsets span the raw record text.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmaker.errors import ConfigurationError
from agentmaker.rag.documents import Chunk, Document
from agentmaker.rag.markdown_splitter import split_markdown
from agentmaker.rag.structured_splitter import STRUCTURED_FORMATS, split_structured
from agentmaker.rag.text_splitter import Piece, split_paged_text, split_text

#: Below this a chunk cannot hold even a short sentence with its overlap.
MIN_CHUNK_TOKENS = 16
MARKDOWN_FORMATS = frozenset({"md", "markdown", "docx", "html", "htm", "epub"})


@dataclass(frozen=True)
class ChunkingConfig:
    """Chunk size and overlap, in ``cl100k_base`` tokens.

    ``overlap_tokens`` of the end of a chunk are repeated at the start of the next one
    (within one section, page or text; never across them).
    """

    chunk_tokens: int = 512
    overlap_tokens: int = 64

    def __post_init__(self) -> None:
        for name in ("chunk_tokens", "overlap_tokens"):
            value = getattr(self, name)
            # bool is an int subclass; True as a chunk size is a bug, not a setting.
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigurationError(f"{name} must be a whole number of tokens, not {value!r}.")
        if self.chunk_tokens < MIN_CHUNK_TOKENS:
            raise ConfigurationError(
                f"chunk_tokens is {self.chunk_tokens}, but chunks need at least "
                f"{MIN_CHUNK_TOKENS} tokens. Use a larger chunk size (512 is a good default)."
            )
        if not 0 <= self.overlap_tokens < self.chunk_tokens:
            raise ConfigurationError(
                f"overlap_tokens is {self.overlap_tokens}, but it must be at least 0 and "
                f"smaller than chunk_tokens ({self.chunk_tokens}). "
                "Use an overlap of about an eighth of the chunk size."
            )


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
            return paged
    return split_text(text, config)


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
