"""Looking after a library that is already indexed: delete, re-index, rebuild, heal, verify.

Nothing here reads files: everything works from what the source store holds. Each
function takes the :class:`IngestionPipeline` whose methods of the same name call it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentmaker.rag.documents import Chunk, Document
from agentmaker.retrieval.types import MetadataFilter

if TYPE_CHECKING:
    from agentmaker.rag.ingest.batch import CancelToken
    from agentmaker.rag.ingest.steps import PipelineSteps


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


def delete_document(pipeline: PipelineSteps, doc_id: str) -> bool:
    """Remove a document from the source store and the index; False if unknown."""
    with pipeline.transaction():
        pipeline.source_store.lock_document(doc_id)
        ids = pipeline.source_store.chunk_ids_of(doc_id)
        existed = pipeline.source_store.get_document(doc_id) is not None or bool(ids)

        def apply() -> None:
            if ids:
                pipeline.retriever.delete(ids)
            pipeline.source_store.delete(doc_id)

        pipeline.index_sync.remove(doc_id, apply)
    return existed


def stored_document(pipeline: PipelineSteps, doc_id: str) -> tuple[Document, list[Chunk]] | None:
    """A stored document rebuilt from the source store, with its chunks."""
    info = pipeline.source_store.get_document(doc_id)
    if info is None:
        return None
    doc = Document(
        content=pipeline.source_store.document_text(doc_id) or "",
        doc_id=doc_id,
        title=info.title,
        source=info.source,
        format=info.format,
        metadata=info.metadata,
    )
    return doc, pipeline.source_store.chunks_of(doc_id)


def reindex_document(
    pipeline: PipelineSteps, doc_id: str, *, cancel: CancelToken | None = None
) -> int:
    """Re-push one stored document's chunks into the index (no re-reading)."""
    stored = pipeline.stored_document(doc_id)
    if stored is None:
        return 0
    doc, chunks = stored
    texts = pipeline.contextualize(doc, chunks)
    vectors = pipeline.embed_texts(texts, cancel, None)
    fingerprint = pipeline.source_store.fingerprint_of(doc_id) or None
    pipeline.write_document(doc, chunks, vectors, fingerprint=fingerprint, texts=texts)
    return len(chunks)


def rebuild_index(
    pipeline: PipelineSteps,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancel: CancelToken | None = None,
) -> int:
    """Re-push every document from the source store into the index; the chunk count."""
    docs = pipeline.source_store.list_documents()
    total = 0
    for number, info in enumerate(docs):
        if cancel is not None:
            cancel.raise_if_cancelled()
        total += pipeline.reindex_document(info.doc_id, cancel=cancel)
        if progress is not None:
            progress(number + 1, len(docs))
    return total


def heal(pipeline: PipelineSteps) -> list[str]:
    """Finish writes that died half-way (pending keys): re-index or remove each."""

    def repair(doc_id: str) -> None:
        if pipeline.source_store.get_document(doc_id) is not None:
            pipeline.reindex_document(doc_id)
        else:
            if "doc_id" in getattr(pipeline.retriever, "metadata_columns", ()):
                pipeline.retriever.delete(
                    scope=pipeline.scope, filters=[MetadataFilter("doc_id", doc_id)]
                )
            pipeline.index_sync.remove(doc_id, lambda: None)

    return pipeline.index_sync.heal(repair)


def verify(pipeline: PipelineSteps) -> VerifyReport:
    """Report where the source store and the index disagree; repair nothing."""
    source_ids = pipeline.source_store.all_chunk_ids()
    report = VerifyReport(pending=sorted(pipeline.index_sync.pending()))
    items = getattr(pipeline.retriever, "items", None)
    if items is not None:
        rows = items.db.query(
            f"SELECT id FROM {items.table} WHERE s_base = ?", (pipeline.scope.base or "",)
        )
        index_ids = {r[0] for r in rows}
        report.missing_from_index = sorted(source_ids - index_ids)
        report.orphaned_in_index = sorted(index_ids - source_ids)
    elif pipeline.retriever.count(scope=pipeline.scope) != len(source_ids):
        report.missing_from_index = ["<count differs>"]
    return report


def stats(pipeline: PipelineSteps) -> dict[str, Any]:
    """Counts of documents, chunks and indexed items."""
    docs = pipeline.source_store.list_documents()
    formats: dict[str, int] = {}
    for info in docs:
        # The file's own type (docx, html), not the splitter it went through (md).
        kind = str(info.metadata.get("source_format") or info.format)
        formats[kind] = formats.get(kind, 0) + 1
    return {
        "documents": len(docs),
        "chunks": pipeline.source_store.count_chunks(),
        "indexed": pipeline.retriever.count(scope=pipeline.scope),
        "formats": formats,
        "embedding_model": str(pipeline.retriever.embedder.fingerprint),
    }
