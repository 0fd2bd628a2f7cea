"""The whole hybrid retriever on one PostgreSQL database: atomic writes, model check.

A write touching both legs is one transaction (joining the caller's, so the source
store and the bookkeeping commit with it). The async twins speak psycopg's async API:
both legs of a search run at once on two pooled async connections.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from agentmaker.retrieval.database import SHARED_USER
from agentmaker.retrieval.fingerprint import MODEL_KEY, check_fingerprint, fingerprint_json
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.ports import Embedder, FusionStrategy, Reranker
from agentmaker.retrieval.postgres.bulk import BATCH_SIZE, BulkReport, bulk_add
from agentmaker.retrieval.postgres.db import PgDatabase, Plan
from agentmaker.retrieval.postgres.items import PgItemTable, delete_plan
from agentmaker.retrieval.postgres.keyword_index import PgKeywordIndex
from agentmaker.retrieval.postgres.vector_store import PgVectorStore, _array
from agentmaker.retrieval.types import (
    MetadataFilter,
    RetrievalConfig,
    RetrievalResult,
    Scope,
    check_scope,
)


class PgHybridRetriever(HybridRetriever):
    """A :class:`HybridRetriever` whose two legs share one PostgreSQL database."""

    vector_store: PgVectorStore
    keyword_index: PgKeywordIndex

    def __init__(
        self,
        embedder: Embedder,
        db: PgDatabase,
        *,
        metadata_columns: Sequence[str] = (),
        reranker: Reranker | None = None,
        config: RetrievalConfig | None = None,
        fusion: FusionStrategy | None = None,
        owns_db: bool = True,
        shared_user: str | None = SHARED_USER,
    ) -> None:
        self.db = db
        self._owns_db = owns_db
        self.items = PgItemTable(db, metadata_columns=metadata_columns, shared_user=shared_user)
        self._check_model(embedder)
        vectors = PgVectorStore(db, items=self.items, dimension=embedder.dimension)
        keywords = PgKeywordIndex(db, items=self.items)
        super().__init__(embedder, vectors, keywords, reranker, config=config, fusion=fusion)

    def _check_model(self, embedder: Embedder) -> None:
        given = embedder.fingerprint
        with self.db.transaction():
            self.db.execute_pg("SELECT pg_advisory_xact_lock(hashtext('agentmaker:migrate'))")
            stored = self.db.get_meta(MODEL_KEY)
            if stored is None:
                self.db.set_meta(MODEL_KEY, fingerprint_json(given))
                return
        check_fingerprint(stored, given, self.db.path)

    @property
    def metadata_columns(self) -> tuple[str, ...]:
        """The fields that filters may name."""
        return self.items.metadata_columns

    # --- writes: one transaction for both legs -------------------------------------

    def _write_plan(self, items: list[RetrievalResult], scope: Scope | None) -> Plan[None]:
        if not items:
            return
        rowids = yield from self.items.upsert_plan(items, scope)
        vectors = np.stack([np.asarray(i.embedding, dtype=np.float32) for i in items])
        yield from self.vector_store.index_plan(rowids, vectors)
        yield from self.keyword_index.index_plan(rowids, [i.content for i in items])

    def _replace_plan(
        self, old_ids: Sequence[str], items: list[RetrievalResult], scope: Scope | None
    ) -> Plan[None]:
        keep = {i.id for i in items}
        stale = [i for i in old_ids if i not in keep]
        if stale:
            yield from self._delete_plan(stale, None, True, None)
        yield from self._write_plan(items, scope)

    def _delete_plan(
        self,
        ids: Sequence[str] | None,
        scope: Scope | None,
        all_scopes: bool,
        filters: Sequence[MetadataFilter] | None,
    ) -> Plan[int]:
        return delete_plan(
            self.items, [self.vector_store, self.keyword_index], ids, scope, all_scopes, filters
        )

    def _write_both(self, items: list[RetrievalResult], scope: Scope | None) -> None:
        with self.db.transaction():
            self.db.run(self._write_plan(items, scope))

    def _replace(
        self, old_ids: Sequence[str], items: list[RetrievalResult], scope: Scope | None
    ) -> None:
        with self.db.transaction():
            self.db.run(self._replace_plan(old_ids, items, scope))

    def delete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        if ids is None:
            scope = check_scope("delete", scope, all_scopes)
        with self.db.transaction():
            return self.db.run(self._delete_plan(ids, scope, all_scopes, filters))

    def bulk_add(
        self,
        items: Iterable[RetrievalResult],
        *,
        scope: Scope | None = None,
        batch_size: int = BATCH_SIZE,
        rebuild_index: bool | None = None,
        total: int | None = None,
        memory_mb: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> BulkReport:
        """Add many items in large transactions, the HNSW index built once when the
        import is as large as the library (see :mod:`agentmaker.retrieval.postgres.bulk`)."""
        return bulk_add(
            self,
            items,
            scope=scope,
            batch_size=batch_size,
            rebuild_index=rebuild_index,
            total=total,
            memory_mb=memory_mb,
            progress=progress,
        )

    def stored_items(self, ids: Sequence[str]) -> dict[str, tuple[str, np.ndarray]]:
        """``{id: (indexed text, vector)}`` for stored items (missing ids left out)."""
        rows = self.db.query_pg(
            f"SELECT i.id, i.content, v.embedding FROM {self.items.table} i "
            f"JOIN {self.vector_store.table} v ON v.rowid = i.rowid WHERE i.id = ANY(%s)",
            (list(ids),),
        )
        return {r[0]: (r[1], _array(r[2])) for r in rows}

    # --- async twins on psycopg's async connections --------------------------------

    async def _alegs(
        self,
        query: str,
        vector: np.ndarray,
        pool: int,
        scope: Scope,
        filters: Sequence[MetadataFilter] | None,
    ) -> tuple[list[RetrievalResult], list[RetrievalResult]]:
        dense, keyword = await self.db.gather(
            self.vector_store.search_plan(vector, pool, scope, filters),
            self.keyword_index.search_plan(query, pool, scope, filters),
        )
        return dense, keyword

    async def aadd(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        if not items:
            return
        embedded = await self._aembed_missing(items)
        await self.db.arun(self._write_plan(embedded, scope), transaction=True)

    async def areplace(
        self,
        old_ids: Sequence[str],
        items: Sequence[RetrievalResult],
        *,
        scope: Scope | None = None,
    ) -> None:
        embedded = await self._aembed_missing(items)
        await self.db.arun(self._replace_plan(old_ids, embedded, scope), transaction=True)

    async def adelete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        if ids is None:
            scope = check_scope("delete", scope, all_scopes)
        return await self.db.arun(
            self._delete_plan(ids, scope, all_scopes, filters), transaction=True
        )

    def stop_workers(self, *, wait: bool = True) -> None:
        """Nothing to stop (no worker threads); kept for the Library facade."""

    def close(self) -> None:
        self.keyword_index.close()
        if self._owns_db:
            self.db.close()


def build_postgres_hybrid(
    dsn: str | PgDatabase,
    embedder: Embedder,
    *,
    metadata_columns: Sequence[str] = (),
    config: RetrievalConfig | None = None,
    reranker: Reranker | None = None,
    fusion: FusionStrategy | None = None,
) -> PgHybridRetriever:
    """Build the whole hybrid retriever on a PostgreSQL + pgvector database.

    The tables are created on first open; the embedding model's fingerprint is checked
    against the one stored there (a different model raises
    :class:`EmbeddingModelMismatchError`).
    """
    owns = not isinstance(dsn, PgDatabase)
    db = PgDatabase(dsn) if not isinstance(dsn, PgDatabase) else dsn
    try:
        return PgHybridRetriever(
            embedder,
            db,
            metadata_columns=metadata_columns,
            reranker=reranker,
            config=config,
            fusion=fusion,
            owns_db=owns,
        )
    except BaseException:
        if owns:
            db.close()
        raise


def clear_indexes(db: PgDatabase) -> None:
    """Empty both legs and the item table (for a change of embedder; the documents stay).

    The vector table goes: its column type carries the old model's dimension, and the
    next retriever built on ``db`` creates it again for the new one.
    """
    with db.transaction():
        db.execute_pg("SELECT pg_advisory_xact_lock(hashtext('agentmaker:migrate'))")
        db.execute_pg("TRUNCATE items, kw_postings, kw_docs, kw_terms")
        db.execute_pg("UPDATE kw_stats SET docs = 0, tokens = 0")
        db.execute_pg("DROP TABLE IF EXISTS vec_vectors")
        db.execute_pg("DELETE FROM schema_versions WHERE component = 'vectors:vec_vectors'")
