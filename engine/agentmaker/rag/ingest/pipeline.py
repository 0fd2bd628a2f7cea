"""IngestionPipeline: files and text in; chunks in the source store and the index.

Per document: read → split → contextualize → embed (outside any lock) → write the
source store and the index in one transaction when they share a library file. An
unchanged document short-circuits on its fingerprint (nothing split, nothing embedded);
a changed one replaces its old version atomically, so a failure loses nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agentmaker.background import STOP_GRACE_S, finish_in_thread
from agentmaker.errors import EmptyDocumentError, NoTextLayerError
from agentmaker.rag.chunking.split import ChunkingConfig, split_document
from agentmaker.rag.documents import MAIL_FIELDS, Chunk, Document
from agentmaker.rag.ingest import batch_run, maintenance
from agentmaker.rag.ingest.batch import BatchReport, CancelToken, FileOutcome, ProgressCallback
from agentmaker.rag.ingest.contextualizers import Contextualizer
from agentmaker.rag.ingest.loading import (
    doc_id_for_path,
    read_document,
    supported_extensions,
    text_document,
)
from agentmaker.rag.ingest.maintenance import VerifyReport
from agentmaker.rag.ingest.reader_process import ReaderProcess
from agentmaker.rag.ingest.steps import IngestReport, OcrScheduler
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.sqlite.bookkeeping import SqliteBookkeeping
from agentmaker.retrieval.sync import IndexSync, SyncIndexSync
from agentmaker.retrieval.types import RetrievalResult, Scope
from agentmaker.unicode_text import repair

if TYPE_CHECKING:
    from agentmaker.rag.config import RagConfig

# doc_id_for_path, supported_extensions (``loading``), VerifyReport (``maintenance``) and
# CancelToken (``batch``) live elsewhere but stay importable from here, as callers expect.
__all__ = [
    "EMBED_BATCH",
    "RAG_SCOPE",
    "CancelToken",
    "IngestReport",
    "IngestionPipeline",
    "OcrScheduler",
    "VerifyReport",
    "doc_id_for_path",
    "supported_extensions",
]

RAG_SCOPE = Scope(base="rag")
EMBED_BATCH = 32


class IngestionPipeline:
    """Reads, splits and indexes documents into a retriever and a source store."""

    def __init__(
        self,
        retriever: HybridRetriever,
        source_store: SourceStore,
        contextualizer: Contextualizer | None = None,
        *,
        chunking: ChunkingConfig | None = None,
        index_sync: IndexSync | None = None,
        scope: Scope = RAG_SCOPE,
        max_file_bytes: int = 512 * 1024 * 1024,
    ) -> None:
        self.retriever = retriever
        self.source_store = source_store
        self.contextualizer = contextualizer
        self.chunking = chunking or ChunkingConfig()
        self.index_sync = index_sync or SyncIndexSync(SqliteBookkeeping(source_store.db))
        self.scope = scope
        self.max_file_bytes = max_file_bytes
        #: Set by the app to read scans; None leaves image-only pages unread (and says so).
        self.ocr: OcrScheduler | None = None
        #: Set by the app to read files in a child process (see ``reader_process``).
        self.reader_process: ReaderProcess | None = None

    @classmethod
    def from_config(
        cls,
        config: RagConfig,
        *,
        retriever: HybridRetriever,
        source_store: SourceStore,
        contextualizer: Contextualizer | None = None,
    ) -> IngestionPipeline:
        """A pipeline with ``config``'s chunking and contextualizer, on a shared backend."""
        return cls(
            retriever,
            source_store,
            contextualizer or config.make_contextualizer(),
            chunking=config.chunking,
            scope=config.scope,
        )

    # --- shared steps -------------------------------------------------------

    def transaction(self) -> AbstractContextManager[Any]:
        """One transaction on the library file when the index and the source store
        share it (so a write lands in both or neither); otherwise a no-op."""
        db = getattr(self.retriever, "db", None)
        return db.transaction() if db is not None and db is self.source_store.db else nullcontext()

    def fingerprint(self, doc: Document) -> str:
        """What decides whether ``doc`` must be re-indexed: its content and the recipe
        (chunk sizes, contextualizer, embedding model) that indexing it would use."""
        return self._fingerprint(doc)

    def _fingerprint(self, doc: Document) -> str:
        recipe = (
            f"{doc.fingerprint}|{self.chunking.chunk_tokens}/{self.chunking.overlap_tokens}"
            f"|{self.contextualizer.name if self.contextualizer else '-'}"
            f"|{self.retriever.embedder.fingerprint}"
        )
        return hashlib.sha256(recipe.encode()).hexdigest()

    def _is_current(self, doc: Document, fingerprint: str) -> bool:
        if (
            self.index_sync.is_current(doc.doc_id, fingerprint)
            and self.source_store.fingerprint_of(doc.doc_id) == fingerprint
        ):
            return True
        # A stored version that adds OCR text to this very reading (its scanned pages
        # read later) is current too: re-indexing the text layer alone would lose them.
        info = self.source_store.get_document(doc.doc_id)
        return (
            info is not None
            and info.metadata.get("source_fingerprint") == fingerprint
            and doc.doc_id not in self.index_sync.pending()
        )

    def _split(self, doc: Document) -> list[Chunk]:
        chunks = split_document(
            doc,
            chunk_tokens=self.chunking.chunk_tokens,
            overlap_tokens=self.chunking.overlap_tokens,
        )
        if not chunks:
            raise EmptyDocumentError("the document has no text to index.", doc.source or None)
        ocr_pages = set(doc.metadata.get("ocr_pages") or ())
        if ocr_pages:
            for chunk in chunks:
                if chunk.metadata.get("page") in ocr_pages:
                    chunk.metadata["ocr"] = True
        return chunks

    def _items(
        self, doc: Document, chunks: Sequence[Chunk], texts: Sequence[str], vectors: np.ndarray
    ) -> list[RetrievalResult]:
        items = []
        for chunk, text, vector in zip(chunks, texts, vectors, strict=True):
            meta: dict[str, Any] = {
                "doc_id": doc.doc_id,
                "index": chunk.index,
                "heading_path": chunk.heading_path,
                "title": doc.title,
                "format": doc.format,
            }
            for key in ("page", "page_label", "ocr", "location"):
                if key in chunk.metadata:
                    meta[key] = chunk.metadata[key]
            for key in MAIL_FIELDS:  # a message's (or its attachment's) sender, recipients, day
                value = chunk.metadata.get(key) or doc.metadata.get(key)
                if value:
                    meta[key] = value
            items.append(
                RetrievalResult(
                    content=text,
                    source=doc.source,
                    id=chunk.chunk_id,
                    embedding=vector,
                    metadata=meta,
                )
            )
        return items

    def write_document(
        self,
        doc: Document,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        *,
        fingerprint: str | None = None,
        texts: Sequence[str] | None = None,
    ) -> None:
        """Write a document whose chunks are already embedded (atomically).

        For callers that have the vectors already (a renamed file, a rebuild): nothing
        is embedded. ``texts`` are the indexed texts (contextualized when omitted).
        """
        texts = list(texts) if texts is not None else self.contextualize(doc, chunks)
        items = self._items(doc, chunks, texts, vectors)
        self._write(doc, chunks, items, fingerprint or self._fingerprint(doc))

    def _write(
        self, doc: Document, chunks: Sequence[Chunk], items: list[RetrievalResult], fp: str
    ) -> None:
        with self.transaction():
            # The old chunk ids are read under the document's lock: another process
            # writing this document at the same moment cannot leave its chunks behind.
            self.source_store.lock_document(doc.doc_id)
            old_ids = self.source_store.chunk_ids_of(doc.doc_id)

            def apply() -> None:
                self.source_store.put(doc, chunks, fingerprint=fp)
                self.retriever.replace(old_ids, items, scope=self.scope)

            self.index_sync.write(doc.doc_id, fp, apply)

    def embed_texts(
        self,
        texts: Sequence[str],
        cancel: CancelToken | None,
        on_batch: Callable[[int], None] | None,
    ) -> np.ndarray:
        """Embed ``texts`` in batches, checking ``cancel`` between them."""
        parts = []
        done = 0
        for start in range(0, len(texts), EMBED_BATCH):
            if cancel is not None:
                cancel.raise_if_cancelled()
            batch = texts[start : start + EMBED_BATCH]
            parts.append(self.retriever.embedder.embed_batch(list(batch)))
            done += len(batch)
            if on_batch is not None:
                on_batch(done)
        dim = self.retriever.embedder.dimension
        return np.concatenate(parts) if parts else np.zeros((0, dim), dtype=np.float32)

    def contextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        """The texts to index for ``chunks`` (context added; the source keeps them clean)."""
        if self.contextualizer is None:
            return [c.content for c in chunks]
        return self.contextualizer.contextualize(doc, chunks)

    # --- one document -------------------------------------------------------

    def ingest_document(
        self,
        doc: Document,
        *,
        cancel: CancelToken | None = None,
        on_embedded: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Index a document already read (the primitive under ``ingest_file``/``_text``).

        ``doc.attachments`` (an e-mail's files) are indexed as documents of their own,
        ``<doc_id>.a<n>``, linked by ``parent_doc_id``; the report counts their chunks
        too. Attachments a new version no longer has are deleted.
        """
        if not doc.attachments and not self._attachment_ids(doc.doc_id):
            return self._ingest_one(doc, cancel, on_embedded)
        children = []
        for number, child in enumerate(doc.attachments, start=1):
            child.doc_id = f"{doc.doc_id}.a{number}"
            child.source = child.source or doc.source
            child.metadata["parent_doc_id"] = doc.doc_id
            children.append(child)
        stale = set(self._attachment_ids(doc.doc_id)) - {c.doc_id for c in children}
        doc.metadata["attachment_ids"] = [c.doc_id for c in children]
        report = self._ingest_one(doc, cancel, on_embedded)
        if report.skipped:  # the stored parent keeps its older list: record the new one
            self.source_store.set_metadata_value(
                doc.doc_id, "attachment_ids", doc.metadata["attachment_ids"]
            )
        for child in children:
            try:
                child_report = self._ingest_one(child, cancel, None)
            except EmptyDocumentError:
                continue
            report.chunks += child_report.chunks
            report.skipped = report.skipped and child_report.skipped
            name = child.metadata.get("attachment") or child.title
            report.warnings.extend(f"{name}: {w}" for w in child_report.warnings)
        for doc_id in sorted(stale):
            maintenance.delete_document(self, doc_id)
        return report

    def _attachment_ids(self, doc_id: str) -> list[str]:
        info = self.source_store.get_document(doc_id) if doc_id else None
        ids = info.metadata.get("attachment_ids") if info is not None else None
        return [str(i) for i in ids] if isinstance(ids, list) else []

    def _ingest_one(
        self,
        doc: Document,
        cancel: CancelToken | None,
        on_embedded: Callable[[int, int], None] | None,
    ) -> IngestReport:
        # Words that are not valid Unicode (lone surrogates) are made readable: the
        # tokenizers and embedders refuse them. The source keeps its exact file name.
        doc.content, doc.title = repair(doc.content), repair(doc.title)
        warnings = list(doc.metadata.get("warnings") or [])
        fp = self._fingerprint(doc)
        if self._is_current(doc, fp):
            count = len(self.source_store.chunk_ids_of(doc.doc_id))
            return IngestReport(doc.doc_id, count, True, doc.title, doc.source, warnings)
        chunks = self._split(doc)
        texts = self.contextualize(doc, chunks)
        total = len(texts)
        vectors = self.embed_texts(
            texts, cancel, (lambda n: on_embedded(n, total)) if on_embedded else None
        )
        if cancel is not None:
            cancel.raise_if_cancelled()
        self._write(doc, chunks, self._items(doc, chunks, texts, vectors), fp)
        return IngestReport(doc.doc_id, len(chunks), False, doc.title, doc.source, warnings)

    def ingest_file(
        self, path: str | os.PathLike[str], *, password: str | None = None
    ) -> IngestReport:
        """Read a file, split it and index it; its doc_id derives from its absolute path.

        A scan (no text layer) goes to the OCR queue when one is attached (the report
        says ``ocr_queued``); without one it raises :class:`NoTextLayerError`.
        """
        file = Path(path)
        if self.ocr is not None and file.suffix.lower() in self.ocr.extensions:
            return self._queue_for_ocr(file)
        try:
            doc = self.read_file(file, password)
        except NoTextLayerError:
            if self.ocr is None:
                raise
            return self._queue_for_ocr(file)
        return self.ingest_document(doc)

    def _queue_for_ocr(self, file: Path) -> IngestReport:
        assert self.ocr is not None
        doc_id = doc_id_for_path(file)
        self.ocr.schedule(file, doc_id, None)
        return IngestReport(
            doc_id, 0, False, file.name, os.path.realpath(file), ["queued for OCR"], True
        )

    def read_file(self, path: Path, password: str | None) -> Document:
        """Read one file into a document (typed errors for bad files)."""
        return read_document(
            path, password, max_bytes=self.max_file_bytes, reader_process=self.reader_process
        )

    def ingest_text(
        self,
        text: str,
        *,
        source: str = "",
        fmt: str | None = None,
        title: str = "",
        doc_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> IngestReport:
        """Index raw text. ``fmt`` defaults to the extension of ``source`` (else txt).

        The doc_id is derived from ``source`` when one is given, so ingesting the same
        source again replaces (or skips) instead of duplicating.
        """
        return self.ingest_document(text_document(text, source, fmt, title, doc_id, metadata))

    # --- many files (see ``batch_ingest``) ----------------------------------

    def ingest_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        passwords: dict[str, str] | None = None,
    ) -> BatchReport:
        """Ingest files and folders (recursively); one bad file never stops the rest.

        ``progress`` is called from the thread running this method. Cancelling stops
        at the next file or embedding batch; a document being written is either wholly
        indexed or not at all.
        """
        return batch_run.ingest_paths(
            self, paths, progress=progress, cancel=cancel, passwords=passwords
        )

    def ingest_path(
        self,
        file: str | os.PathLike[str],
        *,
        password: str | None = None,
        cancel: CancelToken | None = None,
    ) -> FileOutcome:
        """Ingest one file and report its outcome instead of raising for a bad file."""
        return batch_run.ingest_path(self, file, password=password, cancel=cancel)

    # --- maintenance (see ``maintenance``) ----------------------------------

    def delete_document(self, doc_id: str) -> bool:
        """Remove a document (and its attachments) from the source store and the index;
        False if unknown."""
        for child in self._attachment_ids(doc_id):
            maintenance.delete_document(self, child)
        return maintenance.delete_document(self, doc_id)

    def stored_document(self, doc_id: str) -> tuple[Document, list[Chunk]] | None:
        """A stored document rebuilt from the source store, with its chunks."""
        return maintenance.stored_document(self, doc_id)

    def reindex_document(self, doc_id: str, *, cancel: CancelToken | None = None) -> int:
        """Re-push one stored document's chunks into the index (no re-reading)."""
        return maintenance.reindex_document(self, doc_id, cancel=cancel)

    def rebuild_index(
        self,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> int:
        """Re-push every document from the source store into the index.

        For a backend or embedding-model migration: build the new retriever, give it to
        a pipeline over the same source store, and call this. Returns the chunk count.
        """
        return maintenance.rebuild_index(self, progress=progress, cancel=cancel)

    def heal(self) -> list[str]:
        """Finish writes that died half-way (pending keys): re-index or remove each."""
        return maintenance.heal(self)

    def verify(self) -> VerifyReport:
        """Report where the source store and the index disagree; repair nothing."""
        return maintenance.verify(self)

    def stats(self) -> dict[str, Any]:
        """Counts of documents, chunks and indexed items."""
        return maintenance.stats(self)

    # --- async twins ---------------------------------------------------------
    # Reading, splitting and embedding are CPU-bound and SQLite is blocking, so each
    # twin runs its sync counterpart in a worker thread and keeps the loop free.

    async def aingest_file(
        self, path: str | os.PathLike[str], *, password: str | None = None
    ) -> IngestReport:
        """Async twin of :meth:`ingest_file`."""
        return await asyncio.to_thread(self.ingest_file, path, password=password)

    async def aingest_text(self, text: str, **kwargs: Any) -> IngestReport:
        """Async twin of :meth:`ingest_text`."""
        return await asyncio.to_thread(lambda: self.ingest_text(text, **kwargs))

    async def adelete_document(self, doc_id: str) -> bool:
        """Async twin of :meth:`delete_document`."""
        return await asyncio.to_thread(self.delete_document, doc_id)

    async def aingest_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        passwords: dict[str, str] | None = None,
    ) -> BatchReport:
        """Async twin of :meth:`ingest_paths`; cancelling the task cancels the batch.

        The task ends once the batch stopped (after the current step, at most
        ``STOP_GRACE_S``), so the library can be closed safely right after.
        """
        token = cancel or CancelToken()
        paths = list(paths)
        return await finish_in_thread(
            lambda: self.ingest_paths(paths, progress=progress, cancel=token, passwords=passwords),
            name="ingest",
            on_cancel=token.cancel,
            grace=STOP_GRACE_S,
        )

    async def arebuild_index(
        self,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> int:
        """Async twin of :meth:`rebuild_index`."""
        return await asyncio.to_thread(self.rebuild_index, progress=progress, cancel=cancel)
