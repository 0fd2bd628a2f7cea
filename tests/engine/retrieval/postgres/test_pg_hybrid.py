"""The PostgreSQL hybrid retriever: BM25 equal to FTS5's, async twins, atomic writes."""

from __future__ import annotations

import asyncio

import pytest
from agentmaker.errors import EmbeddingModelMismatchError, ScopeRequiredError
from agentmaker.retrieval import MetadataFilter, RetrievalResult, Scope, build_sqlite_hybrid
from agentmaker.retrieval.postgres import build_postgres_hybrid
from agentmaker.testing import FakeEmbedder

RAG = Scope(base="rag")
TEXTS = [
    "The daily meal allowance is 80 euros; meals with clients are refunded in full.",
    "Hotels are capped at 500 per night, and the receipt is required for every hotel night.",
    "Train tickets are refunded in second class only, first class needs approval.",
    "Employees receive a laptop on their first working day, and a phone after a month.",
    "東京都是日本的首都，人口众多。会议在东京举行。",
    "Meal vouchers cannot be combined with the daily allowance on the same day.",
]


def _items() -> list[RetrievalResult]:
    return [
        RetrievalResult(content=t, id=f"c{i}", source="p.md", metadata={"doc_id": f"d{i % 2}"})
        for i, t in enumerate(TEXTS)
    ]


@pytest.fixture
def pg(pg_dsn: str):
    retriever = build_postgres_hybrid(pg_dsn, FakeEmbedder(), metadata_columns=("doc_id",))
    yield retriever
    retriever.close()


@pytest.mark.parametrize(
    "query",
    [
        "meal allowance",
        "refunded class tickets",
        "hotel receipts per night",
        "日本的首都",
        "东京",
        "refunded",
    ],
)
def test_bm25_scores_equal_the_sqlite_legs(pg, query: str) -> None:
    sqlite = build_sqlite_hybrid(FakeEmbedder(), metadata_columns=("doc_id",))
    try:
        sqlite.add(_items(), scope=RAG)
        pg.add(_items(), scope=RAG)
        want = sqlite.keyword_index.search(query, top_k=10, scope=RAG)
        got = pg.keyword_index.search(query, top_k=10, scope=RAG)
    finally:
        sqlite.close()
    assert want, query
    assert [(h.id, round(h.score, 6)) for h in got] == [(h.id, round(h.score, 6)) for h in want]


def test_rare_term_pruning_gives_the_full_querys_top_k(pg, monkeypatch) -> None:
    from agentmaker.retrieval.sqlite import fts5_topk

    words = ["alpha", "beta", "gamma", "delta", "river", "stone", "meal", "budget"]
    items = [
        RetrievalResult(
            content=" ".join(words[(i * k) % 8] for k in range(1, 9 + i % 5)) + f" code{i % 7}",
            id=f"r{i}",
        )
        for i in range(300)
    ]
    pg.add(items, scope=RAG)
    query = "alpha river code3 budget"
    full = [(h.id, round(h.score, 9)) for h in pg.keyword_index.search(query, top_k=5, scope=RAG)]
    monkeypatch.setattr(fts5_topk, "SMALL_QUERY_ROWS", 0)  # every query takes the pruned path
    calls = []
    original = pg.keyword_index._ranking_sql
    monkeypatch.setattr(
        pg.keyword_index,
        "_ranking_sql",
        lambda **kw: calls.append(kw.get("candidates", False)) or original(**kw),
    )
    pruned = [(h.id, round(h.score, 9)) for h in pg.keyword_index.search(query, top_k=5, scope=RAG)]
    assert calls and calls[0] is True  # the rare-term ranking really ran
    assert pruned == full and len(full) == 5


def test_search_fuses_both_legs_and_filters_inside_them(pg) -> None:
    pg.add(_items(), scope=RAG)
    hits = pg.search("meal allowance", top_k=3, scope=RAG)
    assert hits[0].id in {"c0", "c5"}
    assert {"vector_rank", "keyword_rank"} & set(hits[0].metadata)
    only = pg.search("meal allowance", top_k=5, scope=RAG, filters=[MetadataFilter("doc_id", "d1")])
    assert only and {h.metadata["doc_id"] for h in only} == {"d1"}
    with pytest.raises(ScopeRequiredError):
        pg.search("meal")


def test_async_twins_match_the_sync_ones(pg) -> None:
    async def run() -> tuple[list[str], list[str], int, int]:
        await pg.aadd(_items(), scope=RAG)
        hits = await pg.asearch("meal allowance", top_k=4, scope=RAG)
        sync = pg.search("meal allowance", top_k=4, scope=RAG)
        await pg.areplace(["c0", "c1"], [_items()[0]], scope=RAG)
        removed = await pg.adelete(["c2"])
        return [h.id for h in hits], [h.id for h in sync], removed, pg.count(scope=RAG)

    ids, sync_ids, removed, count = asyncio.run(run())
    assert len(ids) == 4 and ids == sync_ids
    assert removed == 1
    assert count == len(TEXTS) - 2  # c1 replaced away, c2 deleted
    # A second event loop shares the same pool (asyncio.run after asyncio.run).
    again = asyncio.run(pg.asearch("laptop phone", top_k=1, scope=RAG))
    assert again[0].id == "c3"


def test_a_failed_write_leaves_neither_leg_changed(pg, monkeypatch) -> None:
    pg.add(_items()[:2], scope=RAG)

    def broken(rowids, texts):  # the keyword leg fails after the vectors went in
        raise RuntimeError("keyword leg down")
        yield  # pragma: no cover

    monkeypatch.setattr(pg.keyword_index, "index_plan", broken)
    with pytest.raises(RuntimeError, match="keyword leg down"):
        pg.add(_items()[2:], scope=RAG)
    assert pg.count(scope=RAG) == 2
    assert pg.keyword_index.count(scope=RAG) == 2
    assert pg.items.count(RAG) == 2


def test_deleting_keeps_the_term_statistics_exact(pg) -> None:
    pg.add(_items(), scope=RAG)
    pg.delete(["c0", "c5"])
    pg.add(_items()[1:3], scope=RAG)  # re-adding the same ids replaces, never doubles
    stats = pg.db.query_pg("SELECT docs, tokens FROM kw_stats")[0]
    docs = pg.db.query_pg("SELECT count(*), sum(length) FROM kw_docs")[0]
    assert stats == (docs[0], docs[1]) and stats[0] == len(TEXTS) - 2
    wrong = pg.db.query_pg(
        "SELECT t.term FROM kw_terms t LEFT JOIN (SELECT term, count(*) AS n FROM kw_postings "
        "GROUP BY term) p ON p.term = t.term WHERE p.n IS DISTINCT FROM t.df"
    )
    assert wrong == []
    assert pg.db.query_pg("SELECT count(*) FROM kw_terms WHERE df <= 0")[0][0] == 0


def test_another_model_is_refused(pg, pg_dsn: str) -> None:
    with pytest.raises(EmbeddingModelMismatchError, match="fake-embedder"):
        build_postgres_hybrid(pg_dsn, FakeEmbedder(32, name="other"))
