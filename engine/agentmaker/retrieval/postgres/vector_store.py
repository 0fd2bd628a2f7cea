"""PgVectorStore: vectors in pgvector, searched by an HNSW index (cosine distance).

The vectors live in their own table keyed by the item table's rowid; a search is one
query that joins the item table, so scope and metadata filters apply inside it. pgvector
below 0.8 filters *after* the HNSW walk (``hnsw.ef_search`` candidates), so a query whose
filter leaves fewer than ``top_k`` of them runs again as an exact scan of the rows that
pass the filter: a rare match is never lost, and such a filter is selective, so the scan
is small. Nothing is cached in memory: every search reads committed rows.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from agentmaker.errors import ConfigurationError
from agentmaker.retrieval.ports import VectorStore
from agentmaker.retrieval.postgres.db import Copy, PgDatabase, Plan
from agentmaker.retrieval.postgres.items import RESULT_COLUMNS, PgItemTable, PgLeg, result
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

#: HNSW candidates per search (pgvector's default is 40; the hybrid asks for 20-50).
#: Measured on real MiniLM vectors (REPORT §11): recall@10 against exact search at 1M
#: chunks 0.84 / 0.92 / 0.96 at 40 / 100 / 200, dense p50 3.4 / 4.6 / 7.6 ms.
EF_SEARCH = 200
#: The most ``maintenance_work_mem`` a session of this app asks for to build the HNSW
#: index (MB). pgvector builds the graph in memory while it fits, and several times
#: slower once it does not; the graph takes about ``4 * dimension + 700`` bytes a vector.
BUILD_MEMORY_MB = 1024
#: Parallel workers a build asks for (pgvector 0.6 builds HNSW in parallel).
BUILD_WORKERS = 2

log = logging.getLogger(__name__)


class PgVectorStore(PgLeg, VectorStore):
    """Vector store on PostgreSQL + pgvector. Alone it opens its own pool; built by
    ``build_postgres_hybrid`` it shares the database and item table with the keywords."""

    def __init__(
        self,
        dsn: str | PgDatabase,
        *,
        dimension: int | None = None,
        metadata_columns: Sequence[str] = (),
        items: PgItemTable | None = None,
        table: str = "vec_vectors",
    ) -> None:
        if isinstance(dsn, Path):
            raise ConfigurationError("PgVectorStore needs a postgresql:// URL, not a file.")
        self._owns_db = not isinstance(dsn, PgDatabase)
        self.db = PgDatabase(dsn) if not isinstance(dsn, PgDatabase) else dsn
        self._owns_items = items is None
        self.items = items or PgItemTable(
            self.db, table="vec_items", metadata_columns=metadata_columns
        )
        self.table = table
        stored = self.db.get_meta(f"{table}.dimension")
        if stored is not None and dimension is not None and int(stored) != dimension:
            raise ConfigurationError(
                f"This vector store holds {stored}-dimensional vectors; {dimension} were given."
            )
        self.dimension = dimension or (int(stored) if stored else None)
        if self.dimension:
            self._create(self.dimension)

    def _create(self, dimension: int) -> None:
        # The column's type carries the dimension, so the table is made once it is known.
        self.db.migrate(
            f"vectors:{self.table}",
            [
                f"CREATE TABLE {self.table} (rowid BIGINT PRIMARY KEY, "
                f"embedding vector({dimension}) NOT NULL);\n"
                f"CREATE INDEX {self.table}_hnsw ON {self.table} "
                "USING hnsw (embedding vector_cosine_ops)",
            ],
        )
        if self.db.get_meta(f"{self.table}.dimension") is None:
            self.db.set_meta(f"{self.table}.dimension", str(dimension))
        if not self.has_index():
            self._restore_index()

    # --- the HNSW index ------------------------------------------------------

    @property
    def index_name(self) -> str:
        """The HNSW index's name."""
        return f"{self.table}_hnsw"

    @property
    def build_lock(self) -> str:
        """The session advisory lock a bulk import holds while the index is away."""
        return f"agentmaker:hnsw:{self.table}"

    def has_index(self) -> bool:
        """True when the HNSW index exists and is valid (a failed concurrent build
        leaves an invalid one behind)."""
        rows = self.db.query_pg(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = %s AND c.relnamespace = current_schema()::regnamespace",
            (self.index_name,),
        )
        return bool(rows and rows[0][0])

    def _restore_index(self) -> None:
        """An import that was interrupted after it dropped the index (a crash, a killed
        app) left none: build it again, unless an import is running right now (it holds
        the build lock and builds the index itself when it ends)."""
        with self.db.pool.connection() as conn:
            got = conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (self.build_lock,))
            row = got.fetchone()
            if not (row and row[0]):
                log.info(
                    "%s: an import is running; its HNSW index comes when it ends", self.db.path
                )
                return
            try:
                if not self.has_index():
                    log.warning(
                        "%s: the HNSW index is missing (an import was interrupted); "
                        "building it again",
                        self.db.path,
                    )
                    try:
                        build_index(conn, self)
                    except psycopg.errors.InsufficientPrivilege:
                        # A member's login that does not own the tables: searches stay
                        # exact (right, slower) until the owner builds the index.
                        log.warning(
                            "%s: the HNSW index is missing and this login may not build it; "
                            "ask the library's owner to run: CREATE INDEX CONCURRENTLY "
                            "%s ON %s USING hnsw (embedding vector_cosine_ops)",
                            self.db.path,
                            self.index_name,
                            self.table,
                        )
            finally:
                conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (self.build_lock,))

    def drop_index(self, conn: psycopg.Connection[Any]) -> None:
        """Drop the HNSW index (a bulk import builds it again at the end; searches
        meanwhile scan exactly). Waits for running searches, blocks new ones briefly."""
        conn.execute(f"DROP INDEX IF EXISTS {self.index_name}")

    # --- writes -------------------------------------------------------------

    def _check_vectors(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2:
            raise ConfigurationError("Vectors must be a 2-D array (one row per item).")
        if self.dimension is None:
            self.dimension = int(vectors.shape[1])
            self._create(self.dimension)
        if vectors.shape[1] != self.dimension:
            raise ConfigurationError(
                f"Got {vectors.shape[1]}-dimensional vectors for a store of "
                f"{self.dimension} dimensions."
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vectors / norms

    def index_plan(self, rowids: Sequence[int], vectors: np.ndarray) -> Plan[None]:
        """Store (or replace) the vectors of item rows: a replaced row's vector is
        deleted, then the batch is copied in (one round trip, binary)."""
        if len(rowids) == 0:
            return
        vectors = self._check_vectors(vectors)
        latest = {int(r): i for i, r in enumerate(rowids)}  # a rowid twice: its last vector
        yield (f"DELETE FROM {self.table} WHERE rowid = ANY(%s)", (list(latest),))
        yield Copy(
            self.table,
            ("rowid", "embedding"),
            ("bigint", "vector"),
            [(r, vectors[i]) for r, i in latest.items()],
            cleaned=True,
        )

    def unindex_plan(self, rowids: Sequence[int]) -> Plan[None]:
        """Remove the vectors of item rows."""
        if rowids and self.dimension:
            yield (f"DELETE FROM {self.table} WHERE rowid = ANY(%s)", (list(rowids),))

    def add_plan(self, items: Sequence[RetrievalResult], scope: Scope | None) -> Plan[None]:
        missing = [item.id for item in items if item.embedding is None]
        if missing:
            raise ConfigurationError(
                f"{len(missing)} item(s) have no embedding (first: {missing[0]!r}). "
                "Embed them first, or add them through a HybridRetriever."
            )
        if not items:
            return
        vectors = np.stack([np.asarray(item.embedding, dtype=np.float32) for item in items])
        rowids = yield from self.item_rowids_plan(items, scope)
        yield from self.index_plan(rowids, vectors)

    def count(self, *, scope: Scope | None = None) -> int:
        if not self.dimension:
            return 0
        where, params = self.items.where(scope, None)
        return int(
            self.db.query_pg(
                f"SELECT count(*) FROM {self.table} v JOIN {self.items.table} i "
                f"ON i.rowid = v.rowid WHERE {where}",
                params,
            )[0][0]
        )

    # --- search -------------------------------------------------------------

    def search_plan(
        self,
        vector: np.ndarray,
        top_k: int,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
        *,
        exact: bool = False,
    ) -> Plan[list[RetrievalResult]]:
        """Nearest items by cosine similarity (``score``), best first."""
        self.items.check_filters(filters)
        if self.dimension is None:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        if norm:
            query = query / norm
        where, params = self.items.where(scope, filters, search=True)
        restricted = where != "TRUE"
        rows: list[tuple[object, ...]] = []
        if not exact:
            yield (f"SET hnsw.ef_search = {max(EF_SEARCH, top_k)}", ())
            rows = yield self._select(query, top_k, where, params, exact=False)
        if exact or (restricted and len(rows) < top_k):
            rows = yield self._select(query, top_k, where, params, exact=True)
        results = []
        for _rowid, distance, embedding, *rest in rows:
            similarity = 1.0 - float(distance)  # type: ignore[arg-type]
            item = result(rest, similarity)
            item.embedding = _array(embedding)
            item.metadata["vector_similarity"] = similarity
            results.append(item)
        return results

    def _select(
        self, query: np.ndarray, top_k: int, where: str, params: list[object], *, exact: bool
    ) -> tuple[str, list[object]]:
        # "+ 0" keeps the planner off the HNSW index: an exact sort of the filtered rows.
        order = "(v.embedding <=> %s) + 0, v.rowid" if exact else "v.embedding <=> %s"
        return (
            f"SELECT v.rowid, v.embedding <=> %s, v.embedding, {RESULT_COLUMNS} "
            f"FROM {self.table} v JOIN {self.items.table} i ON i.rowid = v.rowid "
            f"WHERE {where} ORDER BY {order} LIMIT %s",
            [query, *params, query, top_k],
        )

    def search(
        self,
        vector: np.ndarray,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
        exact: bool = False,
    ) -> list[RetrievalResult]:
        """Nearest items by cosine similarity; ``exact=True`` skips the HNSW index."""
        return self.db.run(self.search_plan(vector, top_k, scope, filters, exact=exact))

    async def asearch(
        self,
        vector: np.ndarray,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """Async twin of :meth:`search` (psycopg's async API)."""
        return await self.db.arun(self.search_plan(vector, top_k, scope, filters))

    def close(self) -> None:
        if self._owns_db:
            self.db.close()


def build_memory_mb(rows: int, dimension: int, cap: int = BUILD_MEMORY_MB) -> int:
    """``maintenance_work_mem`` for building the HNSW index over ``rows`` vectors: room
    for the whole graph (so pgvector builds it in memory), at least 64 MB, at most ``cap``."""
    need = rows * (4 * dimension + 700) * 1.15 / 2**20
    return int(max(64, min(cap, need)))


def build_index(
    conn: psycopg.Connection[Any],
    store: PgVectorStore,
    *,
    memory_mb: int | None = None,
    workers: int = BUILD_WORKERS,
) -> float:
    """Build the store's HNSW index on an autocommit connection, ``CONCURRENTLY`` (other
    apps keep searching and writing meanwhile); seconds taken.

    The session asks for ``maintenance_work_mem`` (from :func:`build_memory_mb` unless
    given) and ``max_parallel_maintenance_workers``; both are reset afterwards, since the
    connection goes back to the pool.
    """
    started = time.perf_counter()
    if store.has_index():
        return 0.0
    rows = conn.execute(f"SELECT count(*) FROM {store.table}").fetchone()
    count = int(rows[0]) if rows else 0
    mb = memory_mb or build_memory_mb(count, store.dimension or 0)
    conn.execute(f"SET maintenance_work_mem = '{int(mb)}MB'")
    conn.execute(f"SET max_parallel_maintenance_workers = {int(workers)}")
    try:
        # A concurrent build that failed (or was killed) leaves an invalid index behind.
        conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {store.index_name}")
        conn.execute(
            f"CREATE INDEX CONCURRENTLY {store.index_name} ON {store.table} "
            "USING hnsw (embedding vector_cosine_ops)"
        )
    finally:
        conn.execute("RESET maintenance_work_mem")
        conn.execute("RESET max_parallel_maintenance_workers")
    return time.perf_counter() - started


def _array(value: object) -> np.ndarray:
    """A vector column's value as float32 (pgvector's Python package gives a ``Vector``)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)
