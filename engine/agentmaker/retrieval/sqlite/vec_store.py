"""SqliteVecStore: vectors in a SQLite file, searched through an HNSW graph (large
libraries) or an in-memory bit index (small ones).

Storage is a plain table of float32 blobs (with their sign-bit codes) keyed by the item
table's rowid. From ``graph_min_size`` vectors on, candidates come from an HNSW graph
kept in a file beside the library (``graph_index``: a rebuildable cache, verified at
open, loaded in the background); below that, and while a graph is being built, search
shortlists by Hamming distance in memory (``binary_index``). Either way the candidates
are re-scored with exact cosine similarity on the stored floats.

Why not a vec0 virtual table: measured on this 2-core machine at 100k x 384-d, vec0's
float KNN took ~62 ms and its bit KNN ~22 ms (80 ms with a metadata filter), and 400
point lookups by rowid 88 ms; the bit index here scans in ~3 ms and a plain-table
lookup of 400 floats takes ~5 ms. sqlite-vec is still loaded: ``search(exact=True)``
uses its ``vec_distance_cosine`` as the exact reference (benchmarks measure recall with it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agentmaker.errors import ConfigurationError
from agentmaker.retrieval.ports import VectorStore
from agentmaker.retrieval.sqlite.binary_index import BinaryIndex, binary_codes
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.graph_index import GRAPH_MIN_SIZE, GraphIndex
from agentmaker.retrieval.sqlite.items import ItemRowIndex, ItemTable, chunked
from agentmaker.retrieval.types import SCOPE_DIMENSIONS, MetadataFilter, RetrievalResult, Scope


class SqliteVecStore(ItemRowIndex, VectorStore):
    """Vector store on SQLite. Alone it opens its own file; built by
    ``build_sqlite_hybrid`` it shares the connection and item table with the keyword index.
    """

    def __init__(
        self,
        path: str | Path | SqliteDatabase = ":memory:",
        *,
        dimension: int | None = None,
        metadata_columns: Sequence[str] = (),
        items: ItemTable | None = None,
        table: str = "vec_vectors",
        shortlist_factor: int = 100,
        min_shortlist: int = 2000,
        graph_min_size: int = GRAPH_MIN_SIZE,
        graph_candidates: int = 100,
        graph_threads: int = 1,
    ) -> None:
        self._owns_db = not isinstance(path, SqliteDatabase)
        self.db = SqliteDatabase(path) if not isinstance(path, SqliteDatabase) else path
        self._owns_items = items is None
        self.items = items or ItemTable(
            self.db, table="vec_items", metadata_columns=metadata_columns
        )
        self.table = table
        self.shortlist_factor = shortlist_factor
        self.min_shortlist = min_shortlist
        self.db.migrate(
            f"vectors:{table}",
            [
                f"CREATE TABLE {table} (rowid INTEGER PRIMARY KEY, "
                "embedding BLOB NOT NULL, bits BLOB NOT NULL)",
                # Every vector write is logged (same transaction) for the graph index.
                # Not AUTOINCREMENT (one more page written per transaction): trimming
                # keeps the newest entry, so a sequence number is never reused.
                f"CREATE TABLE {table}_log (seq INTEGER PRIMARY KEY, rowid INTEGER NOT NULL)",
            ],
        )
        stored = self.db.get_meta(f"{table}.dimension")
        if stored is not None and dimension is not None and int(stored) != dimension:
            raise ConfigurationError(
                f"This vector store holds {stored}-dimensional vectors; {dimension} were given."
            )
        self.dimension = dimension or (int(stored) if stored else None)
        if self.dimension and stored is None:
            self.db.set_meta(f"{table}.dimension", str(self.dimension))
        self._columns = [f"s_{d}" for d in SCOPE_DIMENSIONS] + [
            f"m_{f}" for f in self.items.metadata_columns
        ]
        self._index: BinaryIndex | None = None
        self._seen_version = -1
        self.graph_min_size = graph_min_size
        self.graph_candidates = graph_candidates
        self.graph_threads = graph_threads
        self.graph: GraphIndex | None = None
        #: Why the last search's dense results are missing or partial (None: they are not).
        self.notice: str | None = None
        if self.dimension:
            self._start_graph()

    def _size_estimate(self) -> int:
        # max(rowid) is O(log n); count(*) would read the whole table (1.5 GB at 1M).
        return int(self.db.query(f"SELECT max(rowid) FROM {self.table}")[0][0] or 0)

    def _start_graph(self) -> None:
        self.graph = GraphIndex(
            self.db,
            self.table,
            int(self.dimension or 0),
            min_size=self.graph_min_size,
            threads=self.graph_threads,
        )
        self.db.before_close(self.graph.close)
        self.graph.start(self._size_estimate())

    # --- in-memory index ------------------------------------------------------

    def _ensure_index(self) -> BinaryIndex:
        """Load the bit index on first use, and reload it after another process wrote."""
        with self.db.lock:
            version = self.db.data_version()
            if self._index is not None and version == self._seen_version:
                return self._index
            index = BinaryIndex(self.dimension or 0, self._columns)
            rows = self.db.query(f"SELECT rowid, bits FROM {self.table}")
            if rows:
                rowids = [r[0] for r in rows]
                codes = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint64).reshape(
                    len(rows), index.words
                )
                values = {r[0]: r[1:] for r in self.items.filter_values()}
                index.upsert(rowids, codes, [values[r] for r in rowids])
            self._index = index
            self._seen_version = version
            return index

    def _drop_index(self) -> None:
        self._index = None

    # --- writes -------------------------------------------------------------

    def _check_vectors(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2:
            raise ConfigurationError("Vectors must be a 2-D array (one row per item).")
        if self.dimension is None:
            self.dimension = int(vectors.shape[1])
            self.db.set_meta(f"{self.table}.dimension", str(self.dimension))
        if vectors.shape[1] != self.dimension:
            raise ConfigurationError(
                f"Got {vectors.shape[1]}-dimensional vectors for a store of "
                f"{self.dimension} dimensions."
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vectors / norms

    def index_rows(self, rowids: Sequence[int], vectors: np.ndarray) -> None:
        """Store vectors for item rows (used directly by the shared-connection retriever)."""
        if len(rowids) == 0:
            return
        vectors = self._check_vectors(vectors)
        codes = binary_codes(vectors)
        with self.db.transaction():
            self.db.executemany(
                f"INSERT INTO {self.table}(rowid, embedding, bits) VALUES (?, ?, ?) "
                "ON CONFLICT(rowid) DO UPDATE SET embedding = excluded.embedding, "
                "bits = excluded.bits",
                [(int(r), vectors[i].tobytes(), codes[i].tobytes()) for i, r in enumerate(rowids)],
            )
            self._log(rowids)
            if self._index is not None:
                values = {r[0]: r[1:] for r in self.items.filter_values(rowids)}
                index = self._index
                self.db.after_commit(
                    lambda: index.upsert(rowids, codes, [values[int(r)] for r in rowids])
                )
                self.db.after_rollback(self._drop_index)

    def unindex_rows(self, rowids: Sequence[int]) -> None:
        """Remove the vectors of item rows."""
        if not rowids:
            return
        with self.db.transaction():
            for part in chunked(list(rowids)):
                self.db.execute(
                    f"DELETE FROM {self.table} WHERE rowid IN ({','.join('?' * len(part))})", part
                )
            self._log(rowids)
            if self._index is not None:
                index = self._index
                self.db.after_commit(lambda: index.remove(rowids))
                self.db.after_rollback(self._drop_index)

    def _log(self, rowids: Sequence[int]) -> None:
        """Log written rowids for the graph (its pending rows), in the write's transaction."""
        self.db.executemany(
            f"INSERT INTO {self.table}_log(rowid) VALUES (?)", [(int(r),) for r in rowids]
        )
        if self.graph is None:
            self._start_graph()
        graph = self.graph
        assert graph is not None
        self.db.after_rollback(graph.forget_pending)
        self.db.after_commit(lambda: graph.grown(self._size_estimate()))
        if graph.status == "too small":
            # No graph to catch up: keep the log short (a build reads the whole table).
            self.db.execute(
                f"DELETE FROM {self.table}_log WHERE seq < "
                f"(SELECT max(seq) FROM {self.table}_log) - ?",
                (4 * self.graph_min_size,),
            )

    def add(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        missing = [item.id for item in items if item.embedding is None]
        if missing:
            raise ConfigurationError(
                f"{len(missing)} item(s) have no embedding (first: {missing[0]!r}). "
                "Embed them first, or add them through a HybridRetriever."
            )
        if not items:
            return
        vectors = np.stack([np.asarray(item.embedding, dtype=np.float32) for item in items])
        with self.db.transaction():
            if self._owns_items:
                rowids = self.items.upsert(items, scope)
            else:
                rowids = self.items.rowids_for([i.id for i in items], None, None)
            self.index_rows(rowids, vectors)

    # --- search -------------------------------------------------------------

    def search(
        self,
        vector: np.ndarray,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
        exact: bool = False,
    ) -> list[RetrievalResult]:
        """Nearest items by cosine similarity (``score``), best first.

        ``exact=True`` scans every float vector with sqlite-vec's ``vec_distance_cosine``
        (slow; the reference that the fast path is measured against).
        """
        self.items.check_filters(filters)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        if norm:
            query = query / norm
        if self.dimension is None:
            return []
        self.notice = None
        if exact:
            scored = self._exact(query, top_k, scope, filters)
        elif self.graph is not None and self.graph.ready:
            scored = self._from_graph(query, top_k, scope, filters)
            if self.graph.behind:
                self.notice = (
                    f"{self.graph.behind} passages added last are not in the vector index "
                    "yet (it is catching up); until then only keywords find them."
                )
        elif (
            self._index is None
            and self.graph is not None
            and self.graph.status in ("building", "failed")
            and self._size_estimate() >= 5 * self.graph_min_size
        ):
            # Loading the bit codes of a large library would block for seconds: answer
            # with the other leg, and say why.
            self.notice = (
                "The vector index of this library is being rebuilt; until it is ready, "
                "search uses keywords only."
            )
            scored = []
        else:
            scored = self._approximate(query, top_k, scope, filters)
        found = self.items.fetch([rowid for rowid, _, _ in scored])
        results = []
        for rowid, similarity, embedding in scored:
            item = found.get(rowid)
            if item is None:
                continue
            item.score = similarity
            item.embedding = embedding
            item.metadata["vector_similarity"] = similarity
            results.append(item)
        return results

    def _conditions(
        self, scope: Scope | None, filters: Sequence[MetadataFilter] | None
    ) -> list[tuple[str, list[object]]]:
        conditions: list[tuple[str, list[object]]] = [
            (f"s_{name}", [value]) for name, value in (scope or Scope()).items()
        ]
        for flt in filters or ():
            conditions.append((f"m_{flt.field}", list(flt.values)))
        return conditions

    def _approximate(
        self,
        query: np.ndarray,
        top_k: int,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
    ) -> list[tuple[int, float, np.ndarray]]:
        with self.db.lock:
            index = self._ensure_index()
            mask = index.mask(self._conditions(scope, filters))
            count = max(top_k * self.shortlist_factor, self.min_shortlist)
            shortlist = index.shortlist(binary_codes(query)[0], count, mask)
            rows: list[tuple[int, bytes]] = []
            for part in chunked([int(r) for r in shortlist]):
                rows += self.db.query(
                    f"SELECT rowid, embedding FROM {self.table} "
                    f"WHERE rowid IN ({','.join('?' * len(part))})",
                    part,
                )
        return self._rescore(query, rows, top_k)

    def _rescore(
        self, query: np.ndarray, rows: list[tuple[int, bytes]], top_k: int
    ) -> list[tuple[int, float, np.ndarray]]:
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(
            len(rows), -1
        )
        similarities = matrix @ query
        best = np.argsort(-similarities, kind="stable")[:top_k]
        return [(int(rows[i][0]), float(similarities[i]), matrix[i].copy()) for i in best]

    def _from_graph(
        self,
        query: np.ndarray,
        top_k: int,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
    ) -> list[tuple[int, float, np.ndarray]]:
        """Graph candidates, kept by the scope and filters (SQL on the few candidates),
        re-scored exactly. A filter that keeps too few of them widens the search, then
        falls back to the exact scan of the rows it selects."""
        assert self.graph is not None
        where, params = self.items.where(scope, filters, alias="i")
        count = max(2 * top_k, self.graph_candidates)
        with self.db.lock:
            while True:
                candidates = [int(r) for r in self.graph.search(query, count)]
                rows: list[tuple[int, bytes]] = []
                for part in chunked(candidates):
                    marks = ",".join("?" * len(part))
                    if where == "1":
                        rows += self.db.query(
                            f"SELECT rowid, embedding FROM {self.table} WHERE rowid IN ({marks})",
                            part,
                        )
                    else:
                        rows += self.db.query(
                            f"SELECT v.rowid, v.embedding FROM {self.table} v "
                            f"JOIN {self.items.table} i ON i.rowid = v.rowid "
                            f"WHERE v.rowid IN ({marks}) AND {where}",
                            [*part, *params],
                        )
                if len(rows) >= min(top_k, len(candidates)) or where == "1":
                    return self._rescore(query, rows, top_k)
                if count >= 4096:
                    return self._exact(query, top_k, scope, filters)
                count *= 4

    def _exact(
        self,
        query: np.ndarray,
        top_k: int,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
    ) -> list[tuple[int, float, np.ndarray]]:
        where, params = self.items.where(scope, filters, alias="i")
        rows = self.db.query(
            f"SELECT v.rowid, vec_distance_cosine(v.embedding, ?) AS d, v.embedding "
            f"FROM {self.table} v JOIN {self.items.table} i ON i.rowid = v.rowid "
            f"WHERE {where} ORDER BY d LIMIT ?",
            [query.tobytes(), *params, top_k],
        )
        return [
            (int(rowid), 1.0 - float(d), np.frombuffer(blob, dtype=np.float32).copy())
            for rowid, d, blob in rows
        ]

    def close(self) -> None:
        if self.graph is not None:
            self.graph.close()
        self._index = None
        if self._owns_db:
            self.db.close()
