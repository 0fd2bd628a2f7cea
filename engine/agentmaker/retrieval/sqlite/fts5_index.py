"""Fts5KeywordIndex: BM25 keyword search with SQLite FTS5.

A contentless FTS5 table (the text lives in the item table) with the ``porter
unicode61`` tokenizer: English stemming, diacritics folded, CJK via bigrams (see
``text_analysis``). The best rows are ranked without the scope/metadata filter and
then checked against it; when most of them fail it, the MATCH runs in its own
materialised CTE and the filter joins after it (combining MATCH with a JOIN filter in
one WHERE has turned 8 ms queries into 20 s ones elsewhere). ``ORDER BY bm25()`` is used
rather than ``ORDER BY rank`` (1.6-1.8x faster here). Large indexes rank only the rows
that can reach the top (``fts5_topk``). With ``committed_reads`` a search outside a
transaction runs on the calling thread's read connection, so it never waits for a writer.

From ``FAST_MIN_ROWS`` rows on, a library file also keeps a tantivy copy of the index
beside it (``keyword_cache``: top-k pruning, ~1 ms at 1M rows where FTS5 takes 100+ ms);
every keyword write logs its rowid in ``<table>_log`` in its transaction, and a search
uses the copy only when it reflects the search's snapshot exactly, else FTS5.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from agentmaker.retrieval.ports import KeywordIndex
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.fts5_topk import (
    K1,
    TOKENIZE,
    Stemmer,
    Word,
    idf,
    quote,
    read_varint,
    tiered_top_k,
)
from agentmaker.retrieval.sqlite.items import ItemRowIndex, ItemTable, chunked
from agentmaker.retrieval.sqlite.keyword_cache import KeywordCache
from agentmaker.retrieval.sqlite.tantivy_index import META_ROWID
from agentmaker.retrieval.text_analysis import (
    _CJK_RUN,
    compounds,
    index_text,
    match_expression,
    query_terms,
)
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

QueryFn = Callable[..., list]


class Fts5KeywordIndex(ItemRowIndex, KeywordIndex):
    """Keyword index on SQLite FTS5. Alone it opens its own file; built by
    ``build_sqlite_hybrid`` it shares the connection and item table with the vectors.
    """

    def __init__(
        self,
        path: str | Path | SqliteDatabase = ":memory:",
        *,
        metadata_columns: Sequence[str] = (),
        items: ItemTable | None = None,
        table: str = "kw_fts",
        committed_reads: bool = False,
        fast_min_rows: int | None = None,
    ) -> None:
        self._owns_db = not isinstance(path, SqliteDatabase)
        self.db = SqliteDatabase(path) if not isinstance(path, SqliteDatabase) else path
        self._owns_items = items is None
        self.items = items or ItemTable(
            self.db, table="kw_items", metadata_columns=metadata_columns
        )
        self.table = table
        self.db.migrate(
            f"fts:{table}",
            [
                f"CREATE VIRTUAL TABLE {table} USING fts5(text, content='', "
                f"contentless_delete=1, tokenize='{TOKENIZE}')",
                # How many rows hold each term (read-only connections cannot make one).
                f"CREATE VIRTUAL TABLE {table}_vocab USING fts5vocab({table}, 'row')",
                # Every keyword write is logged (same transaction) for the tantivy copy.
                f"CREATE TABLE IF NOT EXISTS {table}_log "
                "(seq INTEGER PRIMARY KEY, rowid INTEGER NOT NULL)",
            ],
        )
        #: Search on this thread's read connection (committed data, never waits for a
        #: writer) unless the calling thread is inside a transaction.
        self.committed_reads = committed_reads
        self._stemmer = Stemmer()
        # Rows holding each stem (counting them walks the stem's whole doclist), valid
        # while this index has not written and no other connection has committed.
        self._rows_per_stem: dict[str, int] = {}
        self._rows_version: tuple[int, int, int] | None = None
        self._rows_lock = threading.Lock()
        self._writes = 0
        #: Which index answered the last search: "tantivy" or "fts5" (diagnostics).
        self.served_by = ""
        #: The tantivy copy (None for an in-memory index).
        self.cache: KeywordCache | None = None
        if not self.db.in_memory:
            self.cache = KeywordCache(self.db, table, self.items.table, min_rows=fast_min_rows)
            self.db.before_close(self.cache.close)
            self.cache.start()

    def index_rows(self, rowids: Sequence[int], texts: Sequence[str]) -> None:
        """Index texts for item rows (replacing what those rows had)."""
        if not rowids:
            return
        with self.db.transaction():
            self._wrote()
            self._delete(rowids)
            self.db.executemany(
                f"INSERT INTO {self.table}(rowid, text) VALUES (?, ?)",
                [(int(r), index_text(t)) for r, t in zip(rowids, texts, strict=True)],
            )
            self._log(rowids)

    def unindex_rows(self, rowids: Sequence[int]) -> None:
        """Remove item rows from the index."""
        if not rowids:
            return
        with self.db.transaction():
            self._wrote()
            self._delete(rowids)
            self._log(rowids)

    def clear(self) -> None:
        """Remove every row from the index (for a rebuild of the whole library); the
        tantivy copy learns it from one log entry (rowid 0: "everything")."""
        with self.db.transaction():
            self._wrote()
            self.db.execute(f"DELETE FROM {self.table}")
            self._log([META_ROWID])

    def _delete(self, rowids: Sequence[int]) -> None:
        for part in chunked(list(rowids)):
            self.db.execute(
                f"DELETE FROM {self.table} WHERE rowid IN ({','.join('?' * len(part))})", part
            )

    def _log(self, rowids: Sequence[int]) -> None:
        """Log written rowids for the tantivy copy, in the write's transaction (the
        text an entry stands for is the item's ``content``, read when it is folded)."""
        cache = self.cache
        if cache is None:
            return
        self.db.after_commit(cache.grown)
        if cache.kept():
            self.db.executemany(
                f"INSERT INTO {self.table}_log(rowid) VALUES (?)", [(int(r),) for r in rowids]
            )

    def add(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        if not items:
            return
        with self.db.transaction():
            if self._owns_items:
                rowids = self.items.upsert(items, scope)
            else:
                rowids = self.items.rowids_for([i.id for i in items], None, None)
            self.index_rows(rowids, [i.content for i in items])

    def search(
        self,
        query: str,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        where, params = self.items.where(scope, filters, alias="i")
        committed = self.committed_reads and not self.db.in_transaction
        query_fn = self.db.read if committed else self.db.query

        def run(expression: str) -> list[tuple[int, float]]:
            return self._ranked(query_fn, expression, top_k, where, params)

        # One consistent view across the tiers' queries: a read connection's own
        # snapshot, or the writer connection held for the whole search.
        with self.db.read_snapshot() if committed else self.db.lock:
            # A query with a compound ("3.0.0") searches its phrase too: only the full
            # OR expression holds it (see ``match_expression``).
            phrased = bool(compounds(query))
            fast = None if phrased else self._fast(query_fn, query, top_k, where, params)
            self.served_by = "fts5" if fast is None else "tantivy"
            if fast is not None:
                rows = fast
            else:
                words = None if phrased else self._words(query_fn, query)
                if words is not None:
                    rows = tiered_top_k(words[1], words[0], top_k, run)
                else:
                    expression = match_expression(query)
                    if expression is None:
                        return []
                    rows = run(expression)
            found = self.items.fetch([r[0] for r in rows], query=query_fn)
        results = []
        sign = 1.0 if fast is not None else -1.0  # FTS5's bm25() is negative
        for rowid, bm25 in rows:
            item = found.get(rowid)
            if item is None:
                continue
            item.score = sign * float(bm25)
            item.metadata["bm25"] = sign * float(bm25)
            results.append(item)
        return results

    def _fast(
        self,
        query_fn: QueryFn,
        query: str,
        top_k: int,
        where: str,
        params: Sequence[object],
    ) -> list[tuple[int, float]] | None:
        """The top rows from the tantivy copy; None when it cannot answer exactly (not
        kept, not in sync with this snapshot, a phrase or CJK prefix in the query, a
        filter most rows fail)."""
        cache = self.cache
        if cache is None or not cache.active:
            return None
        terms = query_terms(query)
        if not terms or any(len(t) == 1 and _CJK_RUN.fullmatch(t) for t in terms):
            return None  # a lone CJK character is a prefix query (``match_expression``)
        stems = self._stemmer.stems(terms)
        tokens = [stems[t] for t in terms]
        if any(s is None for s in tokens):
            return None

        def check(rowids: Sequence[int]) -> set[int]:
            # NOT INDEXED: look the few rows up by rowid; without table statistics the
            # planner would scan the scope index (every row of the scope: 9 ms at 30k).
            if not rowids:
                return set()
            return {
                int(r[0])
                for r in query_fn(
                    f"SELECT i.rowid FROM {self.items.table} i NOT INDEXED "
                    f"WHERE {where} AND i.rowid IN "
                    f"({','.join('?' * len(rowids))})",
                    [*params, *rowids],
                )
            }

        return cache.search(
            [s for s in tokens if s is not None], top_k, query_fn, None if where == "1" else check
        )

    def _wrote(self) -> None:
        self._writes += 1
        self.db.after_rollback(self._rolled_back)

    def _rolled_back(self) -> None:
        self._writes += 1  # counts read inside the transaction are void too

    def _stem_rows(self, query_fn: QueryFn, stems: Sequence[str]) -> dict[str, int]:
        """How many rows hold each stem (cached; see ``_rows_per_stem``).

        The cache is kept for one connection's view: the writer's, or one thread's read
        connection (``PRAGMA data_version`` is per connection), and this index's writes.
        """
        connection = 0 if query_fn == self.db.query else threading.get_ident()
        changes = int(query_fn("PRAGMA data_version")[0][0])
        version = (self._writes, connection, changes)
        with self._rows_lock:
            if version != self._rows_version or len(self._rows_per_stem) > 100_000:
                self._rows_per_stem.clear()
                self._rows_version = version
            known = dict(self._rows_per_stem)
        missing = [s for s in dict.fromkeys(stems) if s not in known]
        if missing:
            found = dict(
                query_fn(
                    f"SELECT term, doc FROM {self.table}_vocab "
                    f"WHERE term IN ({','.join('?' * len(missing))})",
                    missing,
                )
            )
            counted = {stem: int(found.get(stem, 0)) for stem in missing}
            known.update(counted)
            with self._rows_lock:
                if self._rows_version == version:
                    self._rows_per_stem.update(counted)
        return {s: known[s] for s in stems}

    def _ranked(
        self,
        query_fn: QueryFn,
        expression: str,
        top_k: int,
        where: str,
        params: Sequence[object],
    ) -> list[tuple[int, float]]:
        """The top ``top_k`` ``(rowid, bm25)`` rows for ``expression`` that pass ``where``.

        Ranks without the filter first and checks the best rows against it (one
        lookup): when enough pass, or every match was seen, that is the answer. Joining
        every matching row to the item table costs more than ranking them; a filter
        that most rows fail falls back to the join.
        """
        t = self.table
        limit = max(4 * top_k, 40)
        rows = query_fn(
            f"SELECT rowid, bm25({t}) AS s FROM {t} WHERE {t} MATCH ? ORDER BY s, rowid LIMIT ?",
            [expression, limit],
        )
        if rows:
            passing = {
                r[0]
                for r in query_fn(
                    f"SELECT i.rowid FROM {self.items.table} i NOT INDEXED "
                    f"WHERE {where} AND i.rowid IN "
                    f"({','.join('?' * len(rows))})",
                    [*params, *(r[0] for r in rows)],
                )
            }
            kept = [(int(r[0]), float(r[1])) for r in rows if r[0] in passing]
            if len(kept) >= top_k or len(rows) < limit:
                return kept[:top_k]
        else:
            return []
        return [
            (int(r[0]), float(r[1]))
            for r in query_fn(
                f"WITH m AS MATERIALIZED (SELECT rowid, bm25({t}) AS s "
                f"FROM {t} WHERE {t} MATCH ?) "
                f"SELECT m.rowid, m.s FROM m JOIN {self.items.table} i "
                f"ON i.rowid = m.rowid WHERE {where} ORDER BY m.s, m.rowid LIMIT ?",
                [expression, *params, top_k],
            )
        ]

    def _words(self, query_fn: QueryFn, query: str) -> tuple[int, list[Word]] | None:
        """The index's row count and the query's words with their frequencies and score
        bounds; None when a word is not a single token (a phrase, or a CJK prefix).
        """
        terms = query_terms(query)
        if not terms:
            return None
        stems = self._stemmer.stems(terms)
        if any(s is None for s in stems.values()) or any(
            len(t) == 1 and not t.isascii() for t in terms
        ):
            return None
        rows = self._stem_rows(query_fn, [s for s in stems.values() if s is not None])
        totals = query_fn(f"SELECT block FROM {self.table}_data WHERE id = 1")
        if not totals or not totals[0][0]:
            return None
        total, _ = read_varint(bytes(totals[0][0]))
        words = []
        for term in terms:
            stem = stems[term]
            hits = rows[stem] if stem is not None else 0
            words.append(Word(quote(term), hits, idf(total, hits) * (K1 + 1)))
        return total, words

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        self._stemmer.close()
        if self._owns_db:
            self.db.close()
