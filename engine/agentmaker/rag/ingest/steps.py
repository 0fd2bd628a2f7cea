"""What batches and maintenance need of a pipeline: :class:`PipelineSteps`.

``batch_run`` (many files) and ``maintenance`` (delete, re-index, rebuild, verify) are
functions over a pipeline. They take this protocol instead of importing
:class:`~agentmaker.rag.ingest.pipeline.IngestionPipeline`, which calls them, so the
three modules do not import each other in a circle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agentmaker.rag.documents import Chunk, Document
from agentmaker.rag.ingest.batch import CancelToken
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.sync import IndexSync
from agentmaker.retrieval.types import Scope


@dataclass
class IngestReport:
    """The outcome of ingesting one document."""

    doc_id: str
    chunks: int
    skipped: bool
    title: str = ""
    source: str = ""
    warnings: list[str] = field(default_factory=list)
    #: The file is a scan: it waits in the OCR queue (``chunks == 0`` until it is read).
    ocr_queued: bool = False


class OcrScheduler(Protocol):
    """Receives files (or pages) that need OCR; reads them later, in the background."""

    #: Image types it reads (e.g. ``{".png", ".jpg"}``), added to what a scan picks up.
    extensions: frozenset[str]

    def schedule(self, path: Path, doc_id: str, pages: list[int] | None) -> None:
        """Queue ``pages`` (1-based; None: every page) of ``path`` for OCR."""


class PipelineSteps(Protocol):
    """The parts of an ingestion pipeline that batches and maintenance work with."""

    retriever: HybridRetriever
    source_store: SourceStore
    index_sync: IndexSync
    scope: Scope
    ocr: OcrScheduler | None

    def transaction(self) -> AbstractContextManager[Any]:
        """One transaction over the index and the source store (or a no-op)."""

    def read_file(self, path: Path, password: str | None) -> Document:
        """Read one file into a document (typed errors for bad files)."""

    def contextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        """The texts to index for ``chunks`` (context added; the source keeps them clean)."""

    def embed_texts(
        self,
        texts: Sequence[str],
        cancel: CancelToken | None,
        on_batch: Callable[[int], None] | None,
    ) -> np.ndarray:
        """Embed ``texts`` in batches, checking ``cancel`` between them."""

    def ingest_document(
        self,
        doc: Document,
        *,
        cancel: CancelToken | None = None,
        on_embedded: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Index a document already read."""

    def write_document(
        self,
        doc: Document,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        *,
        fingerprint: str | None = None,
        texts: Sequence[str] | None = None,
    ) -> None:
        """Write a document whose chunks are already embedded (atomically)."""

    def stored_document(self, doc_id: str) -> tuple[Document, list[Chunk]] | None:
        """A document and its chunks as the source store holds them."""

    def reindex_document(self, doc_id: str, *, cancel: CancelToken | None = None) -> int:
        """Re-embed and re-index one stored document; returns its chunk count."""
