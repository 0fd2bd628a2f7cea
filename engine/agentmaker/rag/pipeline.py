"""IngestionPipeline: files and text in; chunks in the source store and the index.

Per document: read → split → contextualize → embed (outside any lock) → write the
source store and the index in one transaction when they share a library file. An
unchanged document short-circuits on its fingerprint (nothing split, nothing embedded);
a changed one replaces its old version atomically, so a failure loses nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from agentmaker.errors import (
    DocumentError,
    EmptyDocumentError,
    NoTextLayerError,
    OperationCancelledError,
    StorageError,
    UnsupportedFormatError,
)
from agentmaker.rag.batch import (
    BatchReport,
    CancelToken,
    FileOutcome,
    IngestProgress,
    ProgressCallback,
    describe_error,
    error_kind,
    walk_paths,
)
from agentmaker.rag.chunking import ChunkingConfig, split_document
from agentmaker.rag.contextualizers import Contextualizer
from agentmaker.rag.documents import Chunk, Document
from agentmaker.rag.reader_process import ReaderProcess
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.sync import IndexSync, SqliteBookkeeping, SyncIndexSync
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

if TYPE_CHECKING:
    from agentmaker.rag.config import RagConfig

log = logging.getLogger(__name__)

RAG_SCOPE = Scope(base="rag")
EMBED_BATCH = 32
# Above this many files a batch sends no per-file "queued" reports (a list of a
# million rows helps nobody); progress still reports every file as it is done.
QUEUE_LISTING_LIMIT = 5000


def supported_extensions() -> set[str]:
    """File extensions the readers handle (lower case, with the dot)."""
    # The readers pull in pypdf, python-docx and BeautifulSoup: import them on first use.
    from agentmaker.rag.readers import SUPPORTED_EXTENSIONS

    return {e.lower() for e in SUPPORTED_EXTENSIONS}


def doc_id_for_path(path: str | os.PathLike[str]) -> str:
    """A stable document id derived from the file's absolute path."""
    absolute = os.path.normcase(os.path.abspath(os.fspath(path)))
    return hashlib.sha256(absolute.encode("utf-8", "surrogatepass")).hexdigest()[:24]


class OcrScheduler(Protocol):
    """Receives files (or pages) that need OCR; reads them later, in the background."""

    #: Image types it reads (e.g. ``{".png", ".jpg"}``), added to what a scan picks up.
    extensions: frozenset[str]

    def schedule(self, path: Path, doc_id: str, pages: list[int] | None) -> None:
        """Queue ``pages`` (1-based; None: every page) of ``path`` for OCR."""


def _no_emit(*args: Any, **kwargs: Any) -> None:
    """A progress sink that drops reports."""


@dataclass
class IngestReport:
    """The outcome of ingesting one document."""

    doc_id: str
    chunks: int
    skipped: bool
    title: str = ""
    source: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass
class VerifyReport:
    """Divergence between the source store and the index (nothing is repaired)."""

    missing_from_index: list[str] = field(default_factory=list)
    orphaned_in_index: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when source store and index agree."""
        return not (self.missing_from_index or self.orphaned_in_index or self.pending)


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

    @property
    def _shared_db(self) -> Any:
        """The library file when the index and source store share it, else None."""
        db = getattr(self.retriever, "db", None)
        return db if db is not None and db is self.source_store.db else None

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
            for key in ("page", "page_label", "ocr"):
                if key in chunk.metadata:
                    meta[key] = chunk.metadata[key]
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
        texts = list(texts) if texts is not None else self._contextualize(doc, chunks)
        items = self._items(doc, chunks, texts, vectors)
        self._write(doc, chunks, items, fingerprint or self._fingerprint(doc))

    def _write(
        self, doc: Document, chunks: Sequence[Chunk], items: list[RetrievalResult], fp: str
    ) -> None:
        old_ids = self.source_store.chunk_ids_of(doc.doc_id)

        def apply() -> None:
            self.source_store.put(doc, chunks, fingerprint=fp)
            self.retriever.replace(old_ids, items, scope=self.scope)

        shared = self._shared_db
        if shared is not None:
            with shared.transaction():
                self.index_sync.write(doc.doc_id, fp, apply)
        else:
            self.index_sync.write(doc.doc_id, fp, apply)

    def _embed(
        self,
        texts: Sequence[str],
        cancel: CancelToken | None,
        on_batch: Callable[[int], None] | None,
    ) -> np.ndarray:
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

    def _contextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
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
        """Index a document already read (the primitive under ``ingest_file``/``_text``)."""
        warnings = list(doc.metadata.get("warnings") or [])
        fp = self._fingerprint(doc)
        if self._is_current(doc, fp):
            count = len(self.source_store.chunk_ids_of(doc.doc_id))
            return IngestReport(doc.doc_id, count, True, doc.title, doc.source, warnings)
        chunks = self._split(doc)
        texts = self._contextualize(doc, chunks)
        total = len(texts)
        vectors = self._embed(
            texts, cancel, (lambda n: on_embedded(n, total)) if on_embedded else None
        )
        if cancel is not None:
            cancel.raise_if_cancelled()
        self._write(doc, chunks, self._items(doc, chunks, texts, vectors), fp)
        return IngestReport(doc.doc_id, len(chunks), False, doc.title, doc.source, warnings)

    def ingest_file(
        self, path: str | os.PathLike[str], *, password: str | None = None
    ) -> IngestReport:
        """Read a file, split it and index it; its doc_id derives from its absolute path."""
        doc = self._read(Path(path), password)
        return self.ingest_document(doc)

    def _read(self, path: Path, password: str | None) -> Document:
        from agentmaker.rag.readers import read_file

        supported = supported_extensions()
        if path.suffix.lower() not in supported:
            raise UnsupportedFormatError(
                f"files of type '{path.suffix or 'without extension'}' cannot be indexed "
                f"(supported: {', '.join(sorted(supported))}).",
                path,
            )
        if self.reader_process is not None:
            doc = self.reader_process.read(path, password, self.max_file_bytes)
        else:
            doc = read_file(path, password=password, max_bytes=self.max_file_bytes)
        doc.doc_id = doc_id_for_path(path)
        doc.source = os.path.abspath(path)
        return doc

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
        return self.ingest_document(self._text_document(text, source, fmt, title, doc_id, metadata))

    @staticmethod
    def _text_document(
        text: str,
        source: str,
        fmt: str | None,
        title: str,
        doc_id: str | None,
        metadata: dict[str, Any] | None,
    ) -> Document:
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

    # --- many files ---------------------------------------------------------

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
        cancel = cancel or CancelToken()
        passwords = passwords or {}
        paths = list(paths)
        report = BatchReport()
        supported = supported_extensions() | set(self.ocr.extensions if self.ocr else ())

        def candidates() -> Iterator[tuple[Path, int]]:
            # Walked twice (count, then ingest) rather than held in a list, so a folder
            # of a million files costs no more memory than a folder of ten.
            for file, explicit in walk_paths(paths, cancel=cancel):
                if not explicit and file.suffix.lower() not in supported:
                    report.skipped_unsupported += 1
                    continue
                try:
                    size = file.stat().st_size
                except OSError:
                    size = 0
                yield file, size

        total_files = total_bytes = 0
        listed: list[Path] = []
        for file, size in candidates():
            total_files += 1
            total_bytes += size
            if total_files <= QUEUE_LISTING_LIMIT:
                listed.append(file)
        done_bytes = 0

        def emit(path: Path, stage: Any, done: int, **extra: Any) -> None:
            if progress is not None:
                progress(
                    IngestProgress(
                        str(path), stage, done, total_files, done_bytes, total_bytes, **extra
                    )
                )

        if total_files <= QUEUE_LISTING_LIMIT:
            for file in listed:
                emit(file, "queued", 0)
        listed.clear()
        skipped, number = report.skipped_unsupported, 0
        for file, size in candidates():
            if number >= total_files:  # files that appeared after the count wait for next time
                break
            if cancel.cancelled:
                report.cancelled = True
                report.files.append(FileOutcome(str(file), "cancelled"))
                emit(file, "cancelled", number)
                number += 1
                continue
            emit(file, "reading", number)
            outcome = self._ingest_one(file, passwords.get(str(file)), cancel, emit, number)
            report.files.append(outcome)
            done_bytes += size
            number += 1
            if outcome.status == "cancelled":
                report.cancelled = True
            emit(
                file,
                outcome.status,
                number,
                chunks=outcome.chunks,
                error=outcome.error,
                error_kind=outcome.error_kind,
            )
        report.skipped_unsupported = skipped  # the second walk counted them again
        return report

    def ingest_path(
        self,
        file: str | os.PathLike[str],
        *,
        password: str | None = None,
        cancel: CancelToken | None = None,
    ) -> FileOutcome:
        """Ingest one file and report its outcome instead of raising for a bad file."""
        return self._ingest_one(Path(file), password, cancel or CancelToken(), _no_emit, 0)

    def _ingest_one(
        self,
        file: Path,
        password: str | None,
        cancel: CancelToken,
        emit: Callable[..., None],
        number: int,
    ) -> FileOutcome:
        ocr = self.ocr
        if ocr is not None and file.suffix.lower() in ocr.extensions:
            ocr.schedule(file, doc_id_for_path(file), None)
            return FileOutcome(str(file), "ocr_queued", doc_id_for_path(file))
        try:
            doc = self._read(file, password)
            report = self.ingest_document(
                doc,
                cancel=cancel,
                on_embedded=lambda n, total: emit(
                    file, "embedding", number, chunks=total, chunks_embedded=n
                ),
            )
        except OperationCancelledError:
            return FileOutcome(str(file), "cancelled")
        except NoTextLayerError as exc:
            if ocr is None:
                return FileOutcome(
                    str(file), "failed", error=describe_error(exc, str(file)), error_kind="no_text"
                )
            ocr.schedule(file, doc_id_for_path(file), None)
            return FileOutcome(str(file), "ocr_queued", doc_id_for_path(file))
        except StorageError:
            raise  # disk full, read-only library: every later file would fail too
        except (DocumentError, OSError) as exc:
            log.info("could not ingest %s: %s", file, exc)
            return FileOutcome(
                str(file),
                "failed",
                error=describe_error(exc, str(file)),
                error_kind=error_kind(exc),
            )
        except Exception as exc:
            log.exception("unexpected failure ingesting %s", file)
            return FileOutcome(
                str(file), "failed", error=describe_error(exc, str(file)), error_kind="other"
            )
        missing = doc.metadata.get("pages_without_text") or []
        if ocr is not None and missing and not report.skipped:
            ocr.schedule(file, report.doc_id, list(missing))
        status: Literal["unchanged", "indexed"] = "unchanged" if report.skipped else "indexed"
        return FileOutcome(
            str(file), status, report.doc_id, report.chunks, warnings=report.warnings
        )

    # --- maintenance --------------------------------------------------------

    def delete_document(self, doc_id: str) -> bool:
        """Remove a document from the source store and the index; False if unknown."""
        ids = self.source_store.chunk_ids_of(doc_id)
        existed = self.source_store.get_document(doc_id) is not None or bool(ids)

        def apply() -> None:
            if ids:
                self.retriever.delete(ids)
            self.source_store.delete(doc_id)

        shared = self._shared_db
        if shared is not None:
            with shared.transaction():
                self.index_sync.remove(doc_id, apply)
        else:
            self.index_sync.remove(doc_id, apply)
        return existed

    def stored_document(self, doc_id: str) -> tuple[Document, list[Chunk]] | None:
        """A stored document rebuilt from the source store, with its chunks."""
        info = self.source_store.get_document(doc_id)
        if info is None:
            return None
        doc = Document(
            content=self.source_store.document_text(doc_id) or "",
            doc_id=doc_id,
            title=info.title,
            source=info.source,
            format=info.format,
            metadata=info.metadata,
        )
        return doc, self.source_store.chunks_of(doc_id)

    def reindex_document(self, doc_id: str, *, cancel: CancelToken | None = None) -> int:
        """Re-push one stored document's chunks into the index (no re-reading)."""
        stored = self.stored_document(doc_id)
        if stored is None:
            return 0
        doc, chunks = stored
        texts = self._contextualize(doc, chunks)
        vectors = self._embed(texts, cancel, None)
        fingerprint = self.source_store.fingerprint_of(doc_id) or None
        self.write_document(doc, chunks, vectors, fingerprint=fingerprint, texts=texts)
        return len(chunks)

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
        docs = self.source_store.list_documents()
        total = 0
        for number, info in enumerate(docs):
            if cancel is not None:
                cancel.raise_if_cancelled()
            total += self.reindex_document(info.doc_id, cancel=cancel)
            if progress is not None:
                progress(number + 1, len(docs))
        return total

    def heal(self) -> list[str]:
        """Finish writes that died half-way (pending keys): re-index or remove each."""

        def repair(doc_id: str) -> None:
            if self.source_store.get_document(doc_id) is not None:
                self.reindex_document(doc_id)
            else:
                if "doc_id" in getattr(self.retriever, "metadata_columns", ()):
                    self.retriever.delete(
                        scope=self.scope, filters=[MetadataFilter("doc_id", doc_id)]
                    )
                self.index_sync.remove(doc_id, lambda: None)

        return self.index_sync.heal(repair)

    def verify(self) -> VerifyReport:
        """Report where the source store and the index disagree; repair nothing."""
        source_ids = self.source_store.all_chunk_ids()
        report = VerifyReport(pending=sorted(self.index_sync.pending()))
        items = getattr(self.retriever, "items", None)
        if items is not None:
            rows = items.db.query(
                f"SELECT id FROM {items.table} WHERE s_base = ?", (self.scope.base or "",)
            )
            index_ids = {r[0] for r in rows}
            report.missing_from_index = sorted(source_ids - index_ids)
            report.orphaned_in_index = sorted(index_ids - source_ids)
        elif self.retriever.count(scope=self.scope) != len(source_ids):
            report.missing_from_index = ["<count differs>"]
        return report

    def stats(self) -> dict[str, Any]:
        """Counts of documents, chunks and indexed items."""
        docs = self.source_store.list_documents()
        formats: dict[str, int] = {}
        for info in docs:
            formats[info.format] = formats.get(info.format, 0) + 1
        return {
            "documents": len(docs),
            "chunks": self.source_store.count_chunks(),
            "indexed": self.retriever.count(scope=self.scope),
            "formats": formats,
            "embedding_model": str(self.retriever.embedder.fingerprint),
        }

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
        """Async twin of :meth:`ingest_paths`; cancelling the task cancels the batch."""
        token = cancel or CancelToken()
        paths = list(paths)
        try:
            return await asyncio.to_thread(
                self.ingest_paths, paths, progress=progress, cancel=token, passwords=passwords
            )
        except asyncio.CancelledError:
            token.cancel()
            raise

    async def arebuild_index(
        self,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> int:
        """Async twin of :meth:`rebuild_index`."""
        return await asyncio.to_thread(self.rebuild_index, progress=progress, cancel=cancel)
