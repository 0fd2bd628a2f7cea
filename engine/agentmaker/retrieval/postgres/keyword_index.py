"""PgKeywordIndex: real BM25 on PostgreSQL, scored like the SQLite leg's FTS5 ``bm25()``.

PostgreSQL's ``ts_rank_cd`` has no inverse document frequency, so it is not BM25. This
index keeps what BM25 needs in plain tables, all written in the document's transaction:

- ``<t>_postings(term, rowid, tf, dl)``: the inverted index (B-tree on ``(term, rowid)``:
  a query word's rows come out of one index range with their term frequency and length);
- ``<t>_docs(rowid, length, terms)``: what a row holds, to take it out again;
- ``<t>_terms(term, df)``: how many rows hold each term;
- ``<t>_stats``: the row count and the token count (for the average length).

Tokens come from FTS5's own tokenizer (``tokens``), so a score here equals the SQLite
leg's: ``sum(idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))`` with
``idf = ln((N - df + 0.5) / (df + 0.5))`` (1e-6 when not positive), k1 = 1.2, b = 0.75.
The score is computed in one statement (one snapshot: committed rows only) that also
applies the scope and metadata filter. Writers take a transaction-scoped advisory lock
before they change the term statistics: the counters are shared rows, and taking them in
one order from every process is what keeps concurrent writers from deadlocking.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentmaker.errors import ConfigurationError
from agentmaker.retrieval.ports import KeywordIndex
from agentmaker.retrieval.postgres.db import Copy, PgDatabase, Plan
from agentmaker.retrieval.postgres.items import RESULT_COLUMNS, PgItemTable, PgLeg, result
from agentmaker.retrieval.postgres.tokens import Tokenizer
from agentmaker.retrieval.sqlite import fts5_topk
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

K1, B = 1.2, 0.75
#: The rare-term ranking probes every query term for each row holding a rare one; when
#: that is more than this many times the postings the full query reads, the full query
#: is cheaper (measured at 1M chunks: a probe costs ~0.3 µs, a scanned posting ~0.7 µs).
PROBE_RATIO = 3
#: One posting's BM25 part, FTS5's formula in float8 (a bare literal such as ``0.75``
#: is NUMERIC in PostgreSQL and made every row's arithmetic decimal).
_TERM_SCORE = (
    f"q.w * p.tf * {K1 + 1}::float8 / (p.tf + {K1}::float8 * "
    f"({1 - B}::float8 + {B}::float8 * p.dl / st.avgdl))"
)


@dataclass
class Removed:
    """What rows taken out of the index held: subtracted from the statistics."""

    docs: int = 0
    tokens: int = 0
    terms: Counter[str] = field(default_factory=Counter)


class PgKeywordIndex(PgLeg, KeywordIndex):
    """Keyword index on PostgreSQL. Alone it opens its own pool; built by
    ``build_postgres_hybrid`` it shares the database and item table with the vectors."""

    def __init__(
        self,
        dsn: str | PgDatabase,
        *,
        metadata_columns: Sequence[str] = (),
        items: PgItemTable | None = None,
        table: str = "kw",
    ) -> None:
        if isinstance(dsn, Path):
            raise ConfigurationError("PgKeywordIndex needs a postgresql:// URL, not a file.")
        self._owns_db = not isinstance(dsn, PgDatabase)
        self.db = PgDatabase(dsn) if not isinstance(dsn, PgDatabase) else dsn
        self._owns_items = items is None
        self.items = items or PgItemTable(
            self.db, table="kw_items", metadata_columns=metadata_columns
        )
        self.table = table
        t = table
        self.db.migrate(
            f"bm25:{t}",
            [
                f'CREATE TABLE {t}_postings (term TEXT COLLATE "C" NOT NULL, '
                "rowid BIGINT NOT NULL, tf INTEGER NOT NULL, dl INTEGER NOT NULL, "
                "PRIMARY KEY (term, rowid) INCLUDE (tf, dl));\n"
                f"CREATE TABLE {t}_docs (rowid BIGINT PRIMARY KEY, length INTEGER NOT NULL, "
                "terms TEXT[] NOT NULL);\n"
                f'CREATE TABLE {t}_terms (term TEXT COLLATE "C" PRIMARY KEY, '
                "df INTEGER NOT NULL);\n"
                f"CREATE TABLE {t}_stats (id INTEGER PRIMARY KEY CHECK (id = 1), "
                "docs BIGINT NOT NULL, tokens BIGINT NOT NULL);\n"
                f"INSERT INTO {t}_stats VALUES (1, 0, 0)",
            ],
        )
        self._tokenizer = Tokenizer()
        self._stats_lock = f"agentmaker:bm25:{t}"

    @property
    def tables(self) -> tuple[str, ...]:
        """The tables this index keeps (postings, docs, terms, stats)."""
        return tuple(f"{self.table}_{part}" for part in ("postings", "docs", "terms", "stats"))

    # --- writes -------------------------------------------------------------

    def _lock_stats(self) -> Plan[None]:
        yield ("SELECT pg_advisory_xact_lock(hashtext(%s))", (self._stats_lock,))

    def index_plan(self, rowids: Sequence[int], texts: Sequence[str]) -> Plan[None]:
        """Index texts for item rows (replacing what those rows had).

        The rows' own tables are written first (copied in, binary); the shared term
        statistics last, under the lock, as one statement for the whole batch: a writer
        holds the lock only for its last statements, not for its whole batch.
        """
        if not rowids:
            return
        latest = dict(zip((int(r) for r in rowids), texts, strict=True))
        counted = self._tokenizer.count(list(latest.values()))
        removed = yield from self._take_out(list(latest))
        t = self.table
        delta: Counter[str] = Counter()
        postings: list[tuple[str, int, int, int]] = []
        tokens = 0
        for rowid, counts in zip(latest, counted, strict=True):
            for term, tf in counts.counts.items():
                postings.append((term, rowid, tf, counts.length))
                delta[term] += 1
            tokens += counts.length
        # The migrations' INTEGER columns are BIGINT here (``db.pg_ddl``).
        yield Copy(
            f"{t}_docs",
            ("rowid", "length", "terms"),
            ("bigint", "bigint", "text[]"),
            [(r, c.length, sorted(c.counts)) for r, c in zip(latest, counted, strict=True)],
            cleaned=True,
        )
        if postings:
            yield Copy(
                f"{t}_postings",
                ("term", "rowid", "tf", "dl"),
                ("text", "bigint", "bigint", "bigint"),
                postings,
                cleaned=True,
            )
        delta.update(removed.terms)
        yield from self._lock_stats()
        yield from self._apply(delta, len(latest) - removed.docs, tokens - removed.tokens)

    def _take_out(self, rowids: Sequence[int]) -> Plan[Removed]:
        """Remove rows from the index (postings and what they held); what to subtract
        from the shared statistics (the caller does it, under the lock)."""
        t = self.table
        removed = Removed()
        rows = yield (
            f"DELETE FROM {t}_docs WHERE rowid = ANY(%s) RETURNING rowid, length, terms",
            (list(rowids),),
        )
        if rows:
            # By (term, rowid), the postings' primary key: a row's terms are in its docs
            # row. ``WHERE rowid = ANY(…)`` alone cannot use that key and scanned every
            # posting (94 s to delete 5,000 rows at 100k chunks).
            pairs_terms: list[str] = []
            pairs_rows: list[int] = []
            for rowid, length, terms in rows:
                removed.docs += 1
                removed.tokens += int(length)
                for term in terms:
                    removed.terms[term] -= 1
                    pairs_terms.append(term)
                    pairs_rows.append(int(rowid))
            yield (
                f"DELETE FROM {t}_postings p USING unnest(%s::text[], %s::bigint[]) "
                "AS d(term, rowid) WHERE p.term = d.term AND p.rowid = d.rowid",
                (pairs_terms, pairs_rows),
            )
        return removed

    def _apply(self, delta: Counter[str], docs: int, tokens: int) -> Plan[None]:
        t = self.table
        changed = sorted(term for term, n in delta.items() if n)
        if changed:
            yield (
                f"INSERT INTO {t}_terms (term, df) "
                "SELECT * FROM unnest(%s::text[], %s::int[]) "
                f"ON CONFLICT (term) DO UPDATE SET df = {t}_terms.df + excluded.df",
                (changed, [delta[c] for c in changed]),
            )
            gone = [c for c in changed if delta[c] < 0]
            if gone:
                yield (f"DELETE FROM {t}_terms WHERE term = ANY(%s) AND df <= 0", (gone,))
        if docs or tokens:
            yield (
                f"UPDATE {t}_stats SET docs = docs + %s, tokens = tokens + %s WHERE id = 1",
                (docs, tokens),
            )

    def unindex_plan(self, rowids: Sequence[int]) -> Plan[None]:
        """Remove item rows from the index."""
        if not rowids:
            return
        removed = yield from self._take_out(rowids)
        yield from self._lock_stats()
        yield from self._apply(removed.terms, -removed.docs, -removed.tokens)

    def add_plan(self, items: Sequence[RetrievalResult], scope: Scope | None) -> Plan[None]:
        if not items:
            return
        rowids = yield from self.item_rowids_plan(items, scope)
        yield from self.index_plan(rowids, [i.content for i in items])

    def count(self, *, scope: Scope | None = None) -> int:
        where, params = self.items.where(scope, None)
        return int(
            self.db.query_pg(
                f"SELECT count(*) FROM {self.table}_docs d JOIN {self.items.table} i "
                f"ON i.rowid = d.rowid WHERE {where}",
                params,
            )[0][0]
        )

    # --- search -------------------------------------------------------------

    def search_plan(
        self,
        query: str,
        top_k: int,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
    ) -> Plan[list[RetrievalResult]]:
        """The ``top_k`` best BM25 matches, best first (score = bm25, higher is better)."""
        where, params = self.items.where(scope, filters, search=True)
        terms, prefixes = self._tokenizer.query(query)
        t = self.table
        for prefix in prefixes:
            # Every indexed bigram that starts with a lone CJK character (C collation:
            # a prefix is a range of the primary key).
            rows = yield (
                f"SELECT term FROM {t}_terms WHERE term >= %s AND term < %s",
                (prefix, prefix + "\U0010ffff"),
            )
            terms += [r[0] for r in rows]
        if not terms:
            return []
        limit = max(4 * top_k, 40)
        stats = yield (
            f"SELECT k.term, k.df, s.docs FROM {t}_terms k CROSS JOIN {t}_stats s "
            "WHERE k.term = ANY(%s)",
            [terms],
        )
        df = {r[0]: int(r[1]) for r in stats}
        total = int(stats[0][2]) if stats else 0
        terms = [term for term in terms if term in df]  # a term no row holds adds nothing
        if not terms:
            return []
        best: list[tuple[int, float]] | None = None
        if (
            sum(df[term] for term in terms) > fts5_topk.SMALL_QUERY_ROWS
        ):  # read now (tests lower it)
            # As the SQLite leg does (fts5_topk): rank only the rows holding a rare
            # term, exactly; a row holding common terms only scores at most the sum of
            # their bounds, so when the k-th best beats it, that is the full query's
            # top k. Otherwise the next, wider split, and last the full query.
            for share in fts5_topk.SPLITS:
                rare = sorted({term for term in terms if df[term] <= share * total})
                common = [term for term in terms if df[term] > share * total]
                if not common:
                    break
                if not rare:
                    continue
                if sum(df[term] for term in rare) * len(terms) > PROBE_RATIO * sum(
                    df[term] for term in terms
                ):
                    break  # more probes than the full query reads rows: run that
                ranked = yield (self._ranking_sql(candidates=True), [terms, rare, limit])
                best = yield from self._passing(ranked, where, params)
                bound = sum(fts5_topk.idf(total, df[term]) * (K1 + 1) for term in common)
                if len(best) >= top_k and best[top_k - 1][1] >= bound:
                    break
                best = None
        if best is None:
            # Rank on the postings alone (an index-only scan of the query's terms), then
            # check the best rows against the filter: joining every matching row to the
            # item table costs more than ranking them. When too few of them pass, the
            # filter joins inside the ranking query (a pre-filter, never top-k-then-
            # filter).
            single = len(terms) == 1
            ranked = yield (self._ranking_sql(single=single), [terms, limit])
            best = yield from self._passing(ranked, where, params)
            if len(best) < top_k and len(ranked) == limit:
                join = f"JOIN {self.items.table} i ON i.rowid = p.rowid"
                ranked = yield (
                    self._ranking_sql(join=join, where=f"WHERE {where}", single=single),
                    [terms, *params, top_k],
                )
                best = [(int(r[0]), float(r[1])) for r in ranked]
        best = best[:top_k]
        if not best:
            return []
        rows = yield (
            f"SELECT i.rowid, {RESULT_COLUMNS} FROM {self.items.table} i WHERE i.rowid = ANY(%s)",
            [[r for r, _ in best]],
        )
        found = {int(r[0]): r[1:] for r in rows}
        results = []
        for rowid, score in best:
            if rowid not in found:  # deleted between the two statements
                continue
            item = result(found[rowid], score)
            item.metadata["bm25"] = score
            results.append(item)
        return results

    def _passing(
        self, ranked: list[tuple[object, ...]], where: str, params: list[object]
    ) -> Plan[list[tuple[int, float]]]:
        """The ranked rows that pass the scope and metadata filter, in order."""
        rowids = [int(r[0]) for r in ranked]  # type: ignore[call-overload]
        if not rowids:
            return []
        rows = yield (
            f"SELECT i.rowid FROM {self.items.table} i WHERE i.rowid = ANY(%s) AND {where}",
            [rowids, *params],
        )
        passing = {int(r[0]) for r in rows}
        return [(int(r[0]), float(r[1])) for r in ranked if int(r[0]) in passing]  # type: ignore[call-overload, arg-type]

    def _ranking_sql(
        self, *, join: str = "", where: str = "", candidates: bool = False, single: bool = False
    ) -> str:
        """BM25 over the postings of ``%s`` (the query's terms), best ``%s`` rows first;
        ``join``/``where`` add the item table's filter; ``candidates`` scores only the
        rows holding one of a second ``%s`` list of terms (probing each one's postings).
        ``single``: the query is one term, so each row has one posting and needs no
        aggregate (a one-word query on a common word scores every posting of it: at 1M
        chunks grouping 241k rows took 0.5 s of the 0.6). One statement: one snapshot of
        the postings and the statistics."""
        t = self.table
        if candidates:
            source = (
                f"(SELECT DISTINCT rowid FROM {t}_postings WHERE term = ANY(%s)) c "
                f"CROSS JOIN q JOIN {t}_postings p ON p.term = q.term AND p.rowid = c.rowid"
            )
        else:
            source = f"q JOIN {t}_postings p ON p.term = q.term"
        return (
            f"WITH st AS (SELECT docs::float8 AS n, "
            f"CASE WHEN docs > 0 THEN tokens::float8 / docs ELSE 1 END AS avgdl "
            f"FROM {t}_stats WHERE id = 1), "
            # MATERIALIZED: the term weights once per term, not once per posting (the
            # planner inlines a plain CTE and then evaluated ln() for every row).
            f"q AS MATERIALIZED (SELECT k.term, "
            f"CASE WHEN st.n - k.df + 0.5 > k.df::float8 + 0.5 "
            f"THEN ln((st.n - k.df + 0.5) / (k.df::float8 + 0.5)) ELSE 1e-6 END AS w "
            f"FROM unnest(%s::text[]) AS u(term) JOIN {t}_terms k ON k.term = u.term "
            f"CROSS JOIN st) "
            f"SELECT p.rowid, {'' if single else 'sum'}({_TERM_SCORE}) AS score "
            f"FROM {source} {join} CROSS JOIN st "
            f"{where} {'' if single else 'GROUP BY p.rowid '}"
            "ORDER BY score DESC, p.rowid LIMIT %s"
        )

    def search(
        self,
        query: str,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        return self.db.run(self.search_plan(query, top_k, scope, filters))

    async def asearch(
        self,
        query: str,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """Async twin of :meth:`search` (psycopg's async API)."""
        return await self.db.arun(self.search_plan(query, top_k, scope, filters))

    def close(self) -> None:
        self._tokenizer.close()
        if self._owns_db:
            self.db.close()
