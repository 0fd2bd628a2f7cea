"""The whole hybrid retriever on one SQLite connection: atomic writes, model check."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from agentmaker.retrieval.fingerprint import MODEL_KEY, check_fingerprint, fingerprint_json
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.ports import Embedder, FusionStrategy, Reranker
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
from agentmaker.retrieval.sqlite.items import ItemTable, chunked
from agentmaker.retrieval.sqlite.vec_store import SqliteVecStore
from agentmaker.retrieval.types import (
    MetadataFilter,
    RetrievalConfig,
    RetrievalResult,
    Scope,
    check_scope,
)

T = TypeVar("T")


class SqliteHybridRetriever(HybridRetriever):
    """A :class:`HybridRetriever` whose two indexes share one SQLite connection.

    A write touching both indexes is one transaction, so it happens wholly or not at
    all. The async twins run in one worker thread this retriever owns (splitting the
    legs would only contend for the connection's lock).
    """

    vector_store: SqliteVecStore
    keyword_index: Fts5KeywordIndex

    def __init__(
        self,
        embedder: Embedder,
        db: SqliteDatabase,
        *,
        metadata_columns: Sequence[str] = (),
        reranker: Reranker | None = None,
        config: RetrievalConfig | None = None,
        fusion: FusionStrategy | None = None,
        owns_db: bool = True,
    ) -> None:
        self.db = db
        self._owns_db = owns_db
        self.items = ItemTable(db, metadata_columns=metadata_columns)
        self._check_model(embedder)
        vectors = SqliteVecStore(db, items=self.items, dimension=embedder.dimension)
        keywords = Fts5KeywordIndex(db, items=self.items, committed_reads=True)
        super().__init__(embedder, vectors, keywords, reranker, config=config, fusion=fusion)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentmaker-sqlite")
        # The keyword leg runs here, on its own read connection, while the dense leg
        # runs in the calling thread.
        self._keyword_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="agentmaker-keyword"
        )

    def _check_model(self, embedder: Embedder) -> None:
        given = embedder.fingerprint
        stored = self.db.get_meta(MODEL_KEY)
        if stored is None:
            self.db.set_meta(MODEL_KEY, fingerprint_json(given))
            return
        check_fingerprint(stored, given, str(self.db.path))

    @property
    def notice(self) -> str | None:
        """Why the last search's dense results were missing or partial (the vector
        index of a large library still loading or catching up), else None."""
        return self.vector_store.notice

    @property
    def metadata_columns(self) -> tuple[str, ...]:
        """The fields that filters may name."""
        return self.items.metadata_columns

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

    # --- writes: one transaction for both indexes ----------------------------------

    def _write_both(self, items: list[RetrievalResult], scope: Scope | None) -> None:
        with self.db.transaction():
            self._write_rows(items, scope)

    def _write_rows(self, items: list[RetrievalResult], scope: Scope | None) -> None:
        rowids = self.items.upsert(items, scope)
        self.vector_store.index_rows(rowids, _stack(items))
        self.keyword_index.index_rows(rowids, [i.content for i in items])

    def _replace(
        self, old_ids: Sequence[str], items: list[RetrievalResult], scope: Scope | None
    ) -> None:
        keep = {i.id for i in items}
        stale = [i for i in old_ids if i not in keep]
        with self.db.transaction():
            if stale:
                self._delete_rows(self.items.rowids_for(stale, None, None))
            if items:
                self._write_rows(items, scope)

    def _delete_rows(self, rowids: list[int]) -> None:
        self.vector_store.unindex_rows(rowids)
        self.keyword_index.unindex_rows(rowids)
        self.items.delete_rows(rowids)

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
            rowids = self.items.rowids_for(ids, scope, filters)
            self._delete_rows(rowids)
        return len(rowids)

    def stored_items(self, ids: Sequence[str]) -> dict[str, tuple[str, np.ndarray]]:
        """``{id: (indexed text, vector)}`` for stored items (missing ids left out).

        Lets a caller move or copy items without embedding them again.
        """
        out: dict[str, tuple[str, np.ndarray]] = {}
        for part in chunked(list(ids), 5000):
            rows = self.db.query(
                f"SELECT i.id, i.content, v.embedding FROM {self.items.table} i "
                f"JOIN {self.vector_store.table} v ON v.rowid = i.rowid "
                f"WHERE i.id IN ({','.join('?' * len(part))})",
                list(part),
            )
            for item_id, content, blob in rows:
                out[item_id] = (content, np.frombuffer(blob, dtype=np.float32))
        return out

    # --- async twins in the one worker thread ------------------------------------

    async def _alegs(
        self,
        query: str,
        vector: np.ndarray,
        pool: int,
        scope: Scope,
        filters: Sequence[MetadataFilter] | None,
    ) -> tuple[list[RetrievalResult], list[RetrievalResult]]:
        # In the one worker thread (the keyword leg beside it, see _legs).
        return await self._run(self._legs, query, vector, pool, scope, filters)

    async def aadd(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        if not items:
            return
        await self._run(self._write_both, await self._aembed_missing(items), scope)

    async def areplace(
        self,
        old_ids: Sequence[str],
        items: Sequence[RetrievalResult],
        *,
        scope: Scope | None = None,
    ) -> None:
        await self._run(self._replace, old_ids, await self._aembed_missing(items), scope)

    async def adelete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        return await self._run(
            self.delete, ids, scope=scope, all_scopes=all_scopes, filters=filters
        )

    def _legs(
        self,
        query: str,
        vector: np.ndarray,
        pool: int,
        scope: Scope,
        filters: Sequence[MetadataFilter] | None,
    ) -> tuple[list[RetrievalResult], list[RetrievalResult]]:
        """Both legs at once: the keyword leg reads committed data on its own connection
        (inside a transaction, or in memory, they run one after the other: the keyword
        leg must see this thread's uncommitted writes, or has no connection of its own).
        """
        if self.db.in_transaction or self.db.in_memory:
            return super()._legs(query, vector, pool, scope, filters)
        keyword = self._keyword_executor.submit(
            self.keyword_index.search, query, top_k=pool, scope=scope, filters=filters
        )
        try:
            dense = self.vector_store.search(vector, top_k=pool, scope=scope, filters=filters)
        finally:
            keyword_results = keyword.result()
        return dense, keyword_results

    def stop_workers(self, *, wait: bool = True) -> None:
        """Stop the threads that run the async twins and the keyword leg."""
        self._executor.shutdown(wait=wait)
        self._keyword_executor.shutdown(wait=wait)

    def close(self) -> None:
        self.stop_workers()
        if self._owns_db:
            self.db.close()


def _stack(items: Sequence[RetrievalResult]) -> np.ndarray:
    return np.stack([np.asarray(i.embedding, dtype=np.float32) for i in items])


def build_sqlite_hybrid(
    embedder: Embedder,
    path: str | Path | SqliteDatabase = ":memory:",
    *,
    metadata_columns: Sequence[str] = (),
    reranker: Reranker | None = None,
    config: RetrievalConfig | None = None,
    fusion: FusionStrategy | None = None,
) -> SqliteHybridRetriever:
    """Build the whole hybrid retriever on one SQLite connection (a file or in memory).

    On open, the embedding model's fingerprint is checked against the one stored in the
    file: a different model raises :class:`EmbeddingModelMismatchError`.
    """
    owns = not isinstance(path, SqliteDatabase)
    db = SqliteDatabase(path) if not isinstance(path, SqliteDatabase) else path
    try:
        return SqliteHybridRetriever(
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
