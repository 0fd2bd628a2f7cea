"""Large imports into a team library: big batches, copied in, the HNSW index built once.

``retriever.add`` of one document is one transaction of about a dozen statements, and
every vector goes into the HNSW graph as it arrives (pgvector walks the graph for each
insert: most of the time of a write). An import of many thousands of chunks does better:

- batches of ``batch_size`` items, each one transaction (all or nothing; a document kept
  inside one batch is all or nothing too): the item rows in one ``INSERT … SELECT
  unnest``, vectors, postings and per-row term lists by binary ``COPY``, and the term
  statistics of the whole batch in one ``INSERT … ON CONFLICT DO UPDATE`` under the
  statistics lock, taken by the batch's last statements only;
- when the import is at least as large as the library (a new library, or one that is
  about to double), the HNSW index is dropped first and built once at the end, in
  parallel and in memory (pgvector 0.6; see ``vector_store.build_index`` for the session
  settings). Meanwhile searches of every app scan the vectors exactly: correct, slower.

The import holds a session advisory lock while the index is away: an app that opens the
library then knows the missing index is on its way, and an app that finds it missing
with nobody holding that lock (the import crashed) builds it again
(``PgVectorStore._restore_index``). The lock goes with the importer's connection, so a
killed importer never leaves it held.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass
from typing import Protocol

import psycopg

from agentmaker.errors import StorageError
from agentmaker.retrieval.postgres.db import PgDatabase
from agentmaker.retrieval.postgres.items import PgItemTable
from agentmaker.retrieval.postgres.keyword_index import PgKeywordIndex
from agentmaker.retrieval.postgres.vector_store import PgVectorStore, build_index
from agentmaker.retrieval.types import RetrievalResult, Scope


class BulkTarget(Protocol):
    """What an import writes through: ``PgHybridRetriever`` (named here as a protocol so
    that this module does not import the one that calls it)."""

    db: PgDatabase
    items: PgItemTable
    vector_store: PgVectorStore
    keyword_index: PgKeywordIndex

    def _embed_missing(self, items: Sequence[RetrievalResult]) -> list[RetrievalResult]: ...

    def _write_both(self, items: list[RetrievalResult], scope: Scope | None) -> None: ...


log = logging.getLogger(__name__)

#: Items a batch writes in one transaction.
BATCH_SIZE = 5000
#: Imports smaller than this keep the HNSW index in place (building it costs more).
REBUILD_MIN = 5_000


@dataclass
class BulkReport:
    """What :func:`bulk_add` did."""

    items: int = 0
    batches: int = 0
    seconds: float = 0.0
    #: True when the HNSW index was dropped for the import and built again after it.
    index_rebuilt: bool = False
    #: Seconds the index build took (part of ``seconds``).
    index_seconds: float = 0.0


def _batches(items: Iterable[RetrievalResult], size: int) -> Iterator[list[RetrievalResult]]:
    it = iter(items)
    while batch := list(itertools.islice(it, size)):
        yield batch


def bulk_add(
    retriever: BulkTarget,
    items: Iterable[RetrievalResult],
    *,
    scope: Scope | None = None,
    batch_size: int = BATCH_SIZE,
    rebuild_index: bool | None = None,
    total: int | None = None,
    memory_mb: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> BulkReport:
    """Add many items (upsert by id) in large transactions; see the module's docstring.

    ``rebuild_index``: None decides by size (``total``, or ``len(items)``, at least
    :data:`REBUILD_MIN` and at least the library's item count). A batch that fails
    raises :class:`StorageError` naming it; the batches before it stay stored, nothing
    of it does, and the index is built again before the error is raised.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    db, store = retriever.db, retriever.vector_store
    if total is None and isinstance(items, Sized):
        total = len(items)
    if rebuild_index is None:
        # Every person's rows count (the items have row-level security, the vectors not).
        existing = (
            int(db.query_pg(f"SELECT count(*) FROM {store.table}")[0][0]) if store.dimension else 0
        )
        rebuild_index = total is not None and total >= max(REBUILD_MIN, existing)
    report = BulkReport()
    started = time.perf_counter()
    with db.pool.connection() as holder:
        if rebuild_index:
            holder.execute("SELECT pg_advisory_lock(hashtext(%s))", (store.build_lock,))
            if not _drop_index(retriever):
                holder.execute("SELECT pg_advisory_unlock(hashtext(%s))", (store.build_lock,))
                rebuild_index = False
        try:
            for batch in _batches(items, batch_size):
                _write(retriever, batch, scope, report)
                if progress is not None:
                    progress(report.items)
        finally:
            if rebuild_index:
                try:
                    report.index_seconds = build_index(holder, store, memory_mb=memory_mb)
                    report.index_rebuilt = True
                finally:
                    holder.execute("SELECT pg_advisory_unlock(hashtext(%s))", (store.build_lock,))
    if report.items:
        # Planner statistics for the grown tables (cheap; autovacuum does the rest). Not
        # the vector table: another importer's CREATE INDEX CONCURRENTLY holds it and
        # waits for every open transaction, so an ANALYZE queued behind it deadlocks.
        for table in (retriever.items.table, *retriever.keyword_index.tables):
            db.execute_pg(f"ANALYZE {table}")
    report.seconds = time.perf_counter() - started
    return report


def _drop_index(retriever: BulkTarget) -> bool:
    """Drop the HNSW index for the import; False when this login may not (a member's
    login on tables the library's owner made: the import keeps the index, slower)."""
    db, store = retriever.db, retriever.vector_store
    try:
        with db.transaction():
            db.execute_pg("SELECT pg_advisory_xact_lock(hashtext('agentmaker:migrate'))")
            db.execute_pg(f"DROP INDEX IF EXISTS {store.index_name}")
    except psycopg.errors.InsufficientPrivilege:
        log.warning(
            "%s: this login may not drop the HNSW index (the library's owner may); "
            "the import keeps it in place",
            db.path,
        )
        return False
    return True


def _write(
    retriever: BulkTarget,
    batch: Sequence[RetrievalResult],
    scope: Scope | None,
    report: BulkReport,
) -> None:
    embedded = retriever._embed_missing(batch)
    try:
        retriever._write_both(embedded, scope)
    except psycopg.Error as exc:
        detail = (getattr(exc, "diag", None) and exc.diag.message_primary) or str(exc)
        raise StorageError(
            f"Importing into the team library {retriever.db.path} failed in batch "
            f"{report.batches + 1} (items {report.items + 1}-{report.items + len(batch)}, "
            f"first id {batch[0].id!r}): {detail}. The {report.items} items before it are "
            "stored; nothing of this batch is. Fix the item and import the rest again "
            "(items already stored are replaced, not duplicated)."
        ) from exc
    report.items += len(batch)
    report.batches += 1
