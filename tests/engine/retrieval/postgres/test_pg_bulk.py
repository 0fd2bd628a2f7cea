"""Bulk imports into a team library: the same rows and scores as the per-row path, all
or nothing per batch, concurrent importers, and the HNSW index always comes back."""

from __future__ import annotations

import threading

import numpy as np
import psycopg
import pytest
from agentmaker.errors import StorageError
from agentmaker.retrieval import RetrievalResult, Scope, build_sqlite_hybrid
from agentmaker.retrieval.postgres import build_postgres_hybrid
from agentmaker.testing import FakeEmbedder

RAG = Scope(base="rag")
WORDS = [
    "meal",
    "allowance",
    "hotel",
    "night",
    "receipt",
    "train",
    "ticket",
    "class",
    "refund",
    "laptop",
    "phone",
    "budget",
    "river",
    "stone",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "approval",
    "employee",
    "travel",
]
CJK = ["東京都是日本的首都", "会议在东京举行", "人口众多的城市"]


def _items(n: int, *, start: int = 0, salt: int = 0) -> list[RetrievalResult]:
    embedder = FakeEmbedder()
    out = []
    for i in range(start, start + n):
        words = [WORDS[(i * k + salt) % len(WORDS)] for k in range(1, 4 + i % 9)]
        text = " ".join(words) + (f" {CJK[i % 3]}" if i % 4 == 0 else "") + f" code{i % 11}"
        out.append(
            RetrievalResult(
                content=text,
                id=f"c{i}",
                source="bulk.md",
                embedding=embedder.embed_batch([text])[0],
                metadata={"doc_id": f"d{i // 10}"},
            )
        )
    return out


def _open(dsn: str):
    return build_postgres_hybrid(dsn, FakeEmbedder(), metadata_columns=("doc_id",))


def _state(retriever) -> dict[str, object]:
    """Everything the keyword and vector legs keep, keyed by item id (rowids differ)."""
    q = retriever.db.query_pg
    return {
        "stats": q("SELECT docs, tokens FROM kw_stats"),
        "terms": q("SELECT term, df FROM kw_terms ORDER BY term"),
        "postings": q(
            "SELECT p.term, i.id, p.tf, p.dl FROM kw_postings p JOIN items i "
            "ON i.rowid = p.rowid ORDER BY 1, 2"
        ),
        "docs": q(
            "SELECT i.id, d.length, d.terms FROM kw_docs d JOIN items i ON i.rowid = d.rowid "
            "ORDER BY 1"
        ),
        "items": q("SELECT id, content, metadata, m_doc_id::text FROM items ORDER BY id"),
        "vectors": q(
            "SELECT i.id, v.embedding::text FROM vec_vectors v JOIN items i "
            "ON i.rowid = v.rowid ORDER BY 1"
        ),
    }


@pytest.mark.parametrize("rebuild", [True, False])
def test_bulk_import_keeps_what_the_per_row_path_keeps(pg_server, rebuild: bool) -> None:
    per_row, bulk = _open(pg_server.fresh_database()), _open(pg_server.fresh_database())
    try:
        first, changed = _items(120), _items(30, start=100, salt=5)  # 20 ids written twice
        for at in range(0, 120, 10):
            per_row.add(first[at : at + 10], scope=RAG)
        per_row.add(changed, scope=RAG)
        report = bulk.bulk_add(first, scope=RAG, batch_size=17, rebuild_index=rebuild)
        bulk.bulk_add(changed, scope=RAG, batch_size=7)
        assert (report.items, report.batches, report.index_rebuilt) == (120, 8, rebuild)
        assert _state(bulk) == _state(per_row)
        assert bulk.vector_store.has_index()
        assert per_row.count(scope=RAG) == bulk.count(scope=RAG) == 130
    finally:
        per_row.close()
        bulk.close()


@pytest.mark.parametrize("query", ["meal allowance", "hotel receipt code3", "日本的首都", "东京"])
def test_bulk_imported_scores_equal_the_sqlite_legs(pg_dsn: str, query: str) -> None:
    items = _items(150)
    sqlite, pg = build_sqlite_hybrid(FakeEmbedder(), metadata_columns=("doc_id",)), _open(pg_dsn)
    try:
        sqlite.add(items, scope=RAG)
        pg.bulk_add(items, scope=RAG, batch_size=40, rebuild_index=True)
        want = sqlite.keyword_index.search(query, top_k=10, scope=RAG)
        got = pg.keyword_index.search(query, top_k=10, scope=RAG)
        assert want
        assert [(h.id, round(h.score, 6)) for h in got] == [(h.id, round(h.score, 6)) for h in want]
        vector = FakeEmbedder().embed_query(query)
        dense_want = sqlite.vector_store.search(vector, top_k=10, scope=RAG)
        dense_got = pg.vector_store.search(vector, top_k=10, scope=RAG)
        # Equal texts have equal fake vectors: ties may come in either order.
        assert [round(h.score, 5) for h in dense_got] == [round(h.score, 5) for h in dense_want]
        want_by_id = {h.id: round(h.score, 5) for h in dense_want}
        assert all(want_by_id.get(h.id, round(h.score, 5)) == round(h.score, 5) for h in dense_got)
    finally:
        sqlite.close()
        pg.close()


@pytest.mark.parametrize("query", ["meal", "code3", "hotel night"])
def test_one_word_queries_with_a_narrow_filter_equal_the_sqlite_legs(pg_dsn: str, query) -> None:
    from agentmaker.retrieval import MetadataFilter

    items = _items(400)
    sqlite, pg = build_sqlite_hybrid(FakeEmbedder(), metadata_columns=("doc_id",)), _open(pg_dsn)
    try:
        sqlite.add(items, scope=RAG)
        pg.bulk_add(items, scope=RAG, batch_size=100)
        for flt in (None, [MetadataFilter("doc_id", "d3")]):  # d3: 10 rows of 400
            want = sqlite.keyword_index.search(query, top_k=5, scope=RAG, filters=flt)
            got = pg.keyword_index.search(query, top_k=5, scope=RAG, filters=flt)
            assert want or flt, query
            assert [(h.id, round(h.score, 6)) for h in got] == [
                (h.id, round(h.score, 6)) for h in want
            ]
    finally:
        sqlite.close()
        pg.close()


def test_a_batch_failing_midway_leaves_nothing_of_it(pg_server) -> None:
    bulk, reference = _open(pg_server.fresh_database()), _open(pg_server.fresh_database())
    try:
        items = _items(30)
        bad = items[13]
        assert bad.embedding is not None
        bad.embedding = np.full_like(bad.embedding, np.nan)  # the server refuses NaN
        with pytest.raises(StorageError) as caught:
            bulk.bulk_add(items, scope=RAG, batch_size=10, rebuild_index=True)
        message = str(caught.value)
        assert "batch 2" in message and "items 11-20" in message and "The 10 items" in message
        reference.add(items[:10], scope=RAG)
        assert _state(bulk) == _state(reference)  # batch 1 whole, nothing of batch 2
        assert bulk.vector_store.has_index()  # built again before the error came out
    finally:
        bulk.close()
        reference.close()


def test_concurrent_bulk_importers_store_the_union(pg_server) -> None:
    dsn = pg_server.fresh_database()
    parts = [_items(80, start=0), _items(80, start=60), _items(80, start=140)]  # 60-79 twice
    retrievers = [_open(dsn) for _ in parts]
    errors: list[BaseException] = []
    start = threading.Barrier(len(parts))

    def run(retriever, items, rebuild) -> None:
        try:
            start.wait()
            retriever.bulk_add(items, scope=RAG, batch_size=9, rebuild_index=rebuild)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(r, items, i == 0))
        for i, (r, items) in enumerate(zip(retrievers, parts, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    reference = _open(pg_server.fresh_database())
    try:
        assert not errors, errors
        reference.add(_items(220), scope=RAG)
        assert _state(retrievers[0]) == _state(reference)
        assert retrievers[1].vector_store.has_index()
    finally:
        reference.close()
        for retriever in retrievers:
            retriever.close()


def test_an_index_lost_by_an_interrupted_import_comes_back(pg_dsn: str) -> None:
    first = _open(pg_dsn)
    first.add(_items(40), scope=RAG)
    first.db.execute_pg("DROP INDEX vec_vectors_hnsw")  # what a killed import leaves
    assert not first.vector_store.has_index()
    lock = first.vector_store.build_lock
    first.close()
    with psycopg.connect(pg_dsn, autocommit=True) as importer:
        importer.execute("SELECT pg_advisory_lock(hashtext(%s))", (lock,))
        during = _open(pg_dsn)  # an import is still running: it leaves the index to it
        try:
            assert not during.vector_store.has_index()
            vector = FakeEmbedder().embed_query("meal")
            hits = during.vector_store.search(vector, top_k=3, scope=RAG)
            assert len(hits) == 3  # searched exactly meanwhile
        finally:
            during.close()
    after = _open(pg_dsn)  # the importer is gone: the next app builds the index
    try:
        assert after.vector_store.has_index()
    finally:
        after.close()


def test_a_member_who_may_not_build_the_index_still_opens_the_library(pg_server, pg_dsn) -> None:
    import uuid

    from tests.pg_roles import as_user, database_of

    owner = _open(pg_dsn)
    owner.add(_items(30), scope=RAG)
    owner.db.execute_pg("DROP INDEX vec_vectors_hnsw")  # an import died; the owner is away
    owner.close()
    role = f"member_{uuid.uuid4().hex[:8]}"
    pg_server.admin(f"CREATE ROLE {role} LOGIN")
    pg_server.admin(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}; "
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
        database=database_of(pg_dsn),
    )
    member = _open(as_user(pg_dsn, role))  # may not CREATE INDEX on the owner's table
    try:
        assert not member.vector_store.has_index()
        hits = member.vector_store.search(FakeEmbedder().embed_query("meal"), top_k=3, scope=RAG)
        assert len(hits) == 3  # exact meanwhile
    finally:
        member.close()


def test_a_member_who_may_not_drop_the_index_imports_with_it_in_place(pg_server, pg_dsn) -> None:
    import uuid

    from tests.pg_roles import as_user, database_of

    owner = _open(pg_dsn)
    owner.add(_items(10), scope=RAG)
    owner.close()
    role = f"member_{uuid.uuid4().hex[:8]}"
    pg_server.admin(f"CREATE ROLE {role} LOGIN")
    pg_server.admin(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}; "
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
        database=database_of(pg_dsn),
    )
    member = _open(as_user(pg_dsn, role))
    try:
        report = member.bulk_add(_items(60, start=10), scope=RAG, rebuild_index=True)
        assert (report.items, report.index_rebuilt) == (60, False)  # kept, not an error
        assert member.vector_store.has_index()
        assert member.count(scope=RAG) == 70
    finally:
        member.close()
