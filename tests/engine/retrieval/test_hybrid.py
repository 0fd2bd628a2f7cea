"""HybridRetriever and build_sqlite_hybrid on real SQLite files."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker import HybridRetriever, RetrievalResult, reciprocal_rank_fusion
from agentmaker.errors import (
    ConfigurationError,
    EmbeddingModelMismatchError,
    LibraryVersionError,
    ScopeRequiredError,
)
from agentmaker.retrieval import (
    Fts5KeywordIndex,
    MetadataFilter,
    RetrievalConfig,
    Scope,
    SqliteDatabase,
    SqliteVecStore,
    build_sqlite_hybrid,
)
from agentmaker.testing import FakeEmbedder, FakeReranker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.retrieval.contracts import TEXTS

RAG = Scope(base="rag")


def _items(prefix: str = "") -> list[RetrievalResult]:
    return [
        RetrievalResult(content=t, id=prefix + k, source="policy.md", metadata={"tag": k})
        for k, t in TEXTS.items()
    ]


@pytest.fixture
def sqlite_retriever(tmp_path: Path):
    retriever = build_sqlite_hybrid(
        FakeEmbedder(), tmp_path / "lib.sqlite", metadata_columns=("tag",)
    )
    yield retriever
    retriever.close()


@pytest.fixture
def plain_retriever(tmp_path: Path):
    retriever = HybridRetriever(
        FakeEmbedder(),
        SqliteVecStore(tmp_path / "v.sqlite", metadata_columns=("tag",)),
        Fts5KeywordIndex(tmp_path / "k.sqlite", metadata_columns=("tag",)),
    )
    yield retriever
    retriever.close()


def test_spec_rrf_snippet_puts_b_first() -> None:
    dense = [
        RetrievalResult(content="A", score=0.91, source="rag", id="1"),
        RetrievalResult(content="B", score=0.83, source="rag", id="2"),
    ]
    keyword = [
        RetrievalResult(content="B", score=7.4, source="rag", id="2"),
        RetrievalResult(content="C", score=6.1, source="rag", id="3"),
    ]
    fused = reciprocal_rank_fusion([dense, keyword], top_k=3)
    assert [r.content for r in fused] == ["B", "A", "C"]
    assert fused[0].metadata["rrf_score"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1].metadata["rrf_score"] == pytest.approx(1 / 61)


def test_rrf_aligns_by_content_when_id_empty() -> None:
    a = [RetrievalResult("same"), RetrievalResult("x")]
    b = [RetrievalResult("same")]
    fused = reciprocal_rank_fusion([a, b], top_k=5, k=10)
    assert fused[0].content == "same"
    assert fused[0].score == pytest.approx(2 / 11)
    assert len(fused) == 2


@pytest.mark.parametrize("kind", ["sqlite", "plain"])
def test_search_explains_legs(kind: str, sqlite_retriever, plain_retriever) -> None:
    retriever = sqlite_retriever if kind == "sqlite" else plain_retriever
    retriever.add(_items(), scope=RAG)
    hits = retriever.search("daily meal allowance receipt", top_k=2, scope=RAG)
    assert hits[0].id == "meal"
    meta = hits[0].metadata
    assert meta["keyword_rank"] == 1 and meta["vector_rank"] == 1
    assert meta["rrf_score"] == pytest.approx(2 / 61)
    assert len(hits) == 2


@pytest.mark.parametrize("kind", ["sqlite", "plain"])
def test_scope_isolation_and_guard(kind: str, sqlite_retriever, plain_retriever) -> None:
    retriever = sqlite_retriever if kind == "sqlite" else plain_retriever
    retriever.add(_items("a-"), scope=Scope(base="rag", user="alice"))
    retriever.add(_items("b-"), scope=Scope(base="rag", user="bob"))
    bob = retriever.search("meal allowance", top_k=10, scope=Scope(base="rag", user="bob"))
    assert bob and all(h.id.startswith("b-") for h in bob)
    assert retriever.search("meal", scope=Scope(base="rag", user="carol")) == []
    assert retriever.search("meal", scope=Scope(base="memory")) == []
    with pytest.raises(ScopeRequiredError, match="all_scopes=True"):
        retriever.search("meal")
    with pytest.raises(ScopeRequiredError):
        retriever.search("meal", scope=Scope())
    everything = retriever.search("meal allowance", top_k=20, all_scopes=True)
    assert {h.id[:2] for h in everything} == {"a-", "b-"}
    with pytest.raises(ScopeRequiredError):
        retriever.delete(scope=Scope())
    assert retriever.delete(scope=Scope(user="alice")) == len(TEXTS)
    assert retriever.search("meal allowance", top_k=20, all_scopes=True)[0].id.startswith("b-")


def test_filters_prefilter_both_legs(sqlite_retriever) -> None:
    sqlite_retriever.add(_items(), scope=RAG)
    hits = sqlite_retriever.search(
        "meal allowance", scope=RAG, filters=[MetadataFilter("tag", ["hotel", "train"], op="in")]
    )
    assert {h.id for h in hits} == {"hotel", "train"}


def test_search_many_embeds_once(sqlite_retriever) -> None:
    sqlite_retriever.add(_items(), scope=RAG)
    embedder = sqlite_retriever.embedder
    before = embedder.calls
    results = sqlite_retriever.search_many(["meal", "hotel", "laptop"], top_k=1, scope=RAG)
    assert embedder.calls == before + 1
    assert [r[0].id for r in results] == ["meal", "hotel", "laptop"]


def test_async_twins(sqlite_retriever, plain_retriever) -> None:
    async def scenario(retriever) -> list[str]:
        await retriever.aadd(_items(), scope=RAG)
        await retriever.areplace(
            ["meal"], [RetrievalResult("Lunch is free on Fridays.", id="lunch")], scope=RAG
        )
        assert await retriever.adelete(["laptop"]) == 1
        many = await retriever.asearch_many(["lunch friday", "hotel"], top_k=1, scope=RAG)
        return [m[0].id for m in many]

    assert asyncio.run(scenario(sqlite_retriever)) == ["lunch", "hotel"]
    assert asyncio.run(scenario(plain_retriever)) == ["lunch", "hotel"]
    assert sqlite_retriever.count(scope=RAG) == 3


def test_reranker_refines_pool(tmp_path: Path) -> None:
    reranker = FakeReranker()
    retriever = build_sqlite_hybrid(
        FakeEmbedder(),
        tmp_path / "r.sqlite",
        reranker=reranker,
        config=RetrievalConfig(top_k=2, candidate_pool=4),
    )
    retriever.add(_items(), scope=RAG)
    hits = retriever.search("train tickets second class", scope=RAG)
    assert reranker.calls == 1 and len(hits) == 2
    assert hits[0].id == "train" and "rerank_score" in hits[0].metadata
    assert "rrf_score" in hits[0].metadata
    retriever.close()


def test_sqlite_write_is_atomic(sqlite_retriever, monkeypatch) -> None:
    sqlite_retriever.add(_items(), scope=RAG)

    def boom(*args, **kwargs):
        raise RuntimeError("injected failure between the vector and keyword writes")

    monkeypatch.setattr(sqlite_retriever.keyword_index, "index_rows", boom)
    new = RetrievalResult("A brand new rule about parking spaces.", id="parking")
    with pytest.raises(RuntimeError, match="injected"):
        sqlite_retriever.add([new], scope=RAG)
    monkeypatch.undo()
    assert sqlite_retriever.count(scope=RAG) == len(TEXTS)
    assert sqlite_retriever.items.rowids_for(["parking"], None, None) == []
    hits = sqlite_retriever.search("parking spaces rule", top_k=10, scope=RAG)
    assert all(h.id != "parking" for h in hits)
    # The in-memory vector index rolled back too: a search still works and is exact.
    assert sqlite_retriever.search("meal allowance", top_k=1, scope=RAG)[0].id == "meal"


def test_plain_write_is_compensated(plain_retriever, monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise RuntimeError("keyword index down")

    monkeypatch.setattr(plain_retriever.keyword_index, "add", boom)
    with pytest.raises(RuntimeError):
        plain_retriever.add(_items(), scope=RAG)
    assert plain_retriever.vector_store.count() == 0


def test_reopen_keeps_data_and_checks_model(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    first = build_sqlite_hybrid(FakeEmbedder(), path, metadata_columns=("tag",))
    first.add(_items(), scope=RAG)
    first.close()
    again = build_sqlite_hybrid(FakeEmbedder(), path, metadata_columns=("tag",))
    assert again.count() == len(TEXTS)
    assert again.search("hotel night", top_k=1, scope=RAG)[0].id == "hotel"
    again.close()
    with pytest.raises(EmbeddingModelMismatchError) as info:
        build_sqlite_hybrid(FakeEmbedder(name="other-model"), path)
    message = str(info.value)
    assert "fake-embedder/64d" in message and "other-model/64d" in message
    assert "rebuild_index" in message
    with pytest.raises(EmbeddingModelMismatchError):
        build_sqlite_hybrid(FakeEmbedder(dimension=32), path)


def test_newer_schema_refuses_to_open(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    build_sqlite_hybrid(FakeEmbedder(), path).close()
    with SqliteDatabase(path) as db:
        db.execute("UPDATE schema_versions SET version = 99 WHERE component = 'items:items'")
    with pytest.raises(LibraryVersionError, match="newer version"):
        build_sqlite_hybrid(FakeEmbedder(), path)


def test_second_process_writes_are_seen(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    reader = build_sqlite_hybrid(FakeEmbedder(), path)
    reader.add(_items()[:1], scope=RAG)
    assert reader.search("hotel", top_k=5, scope=RAG)[0].id == "meal"  # warm the cache
    writer = build_sqlite_hybrid(FakeEmbedder(), path)
    writer.add(_items()[1:], scope=RAG)
    writer.close()
    assert reader.search("hotels capped night", top_k=1, scope=RAG)[0].id == "hotel"
    reader.close()


def test_config_is_validated() -> None:
    with pytest.raises(ConfigurationError, match="candidate_pool"):
        RetrievalConfig(top_k=10, candidate_pool=5)
    with pytest.raises(ConfigurationError):
        RetrievalConfig(top_k=0)
    with pytest.raises(ConfigurationError):
        MetadataFilter("tag", "x", op="like")  # type: ignore[arg-type]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=80))
def test_any_query_text_never_raises(sqlite_retriever, query: str) -> None:
    """Any text gets hits, or the typed error that says the search has no words."""
    from agentmaker.errors import InvalidQueryError

    if sqlite_retriever.count() == 0:
        sqlite_retriever.add(_items(), scope=RAG)
    try:
        sqlite_retriever.search(query, scope=RAG)
    except InvalidQueryError as exc:
        assert "no words" in str(exc)
