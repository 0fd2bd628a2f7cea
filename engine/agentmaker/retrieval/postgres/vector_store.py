"""PgVectorStore: vectors in pgvector, searched by an HNSW index (cosine distance).

The vectors live in their own table keyed by the item table's rowid; a search is one
query that joins the item table, so scope and metadata filters apply inside it. pgvector
below 0.8 filters *after* the HNSW walk (``hnsw.ef_search`` candidates), so a query whose
filter leaves fewer than ``top_k`` of them runs again as an exact scan of the rows that
pass the filter: a rare match is never lost, and such a filter is selective, so the scan
is small. Nothing is cached in memory: every search reads committed rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agentmaker.errors import ConfigurationError
from agentmaker.retrieval.ports import VectorStore
from agentmaker.retrieval.postgres.db import Many, PgDatabase, Plan
from agentmaker.retrieval.postgres.items import RESULT_COLUMNS, PgItemTable, PgLeg, result
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

#: HNSW candidates per search (pgvector's default is 40; the hybrid asks for 20-50).
EF_SEARCH = 100


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
        """Store (or replace) the vectors of item rows."""
        if len(rowids) == 0:
            return
        vectors = self._check_vectors(vectors)
        yield Many(
            f"INSERT INTO {self.table}(rowid, embedding) VALUES (%s, %s) "
            "ON CONFLICT (rowid) DO UPDATE SET embedding = excluded.embedding",
            [(int(r), vectors[i]) for i, r in enumerate(rowids)],
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


def _array(value: object) -> np.ndarray:
    """A vector column's value as float32 (pgvector's Python package gives a ``Vector``)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)
