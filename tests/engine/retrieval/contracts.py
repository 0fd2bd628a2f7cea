"""Contract tests: one class per port, inherited by each implementation's tests.

A subclass provides the fixture that builds a fresh implementation; every behaviour the
port promises is asserted here once.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from agentmaker.errors import ScopeRequiredError, UnknownFilterFieldError
from agentmaker.retrieval import (
    Embedder,
    FusionStrategy,
    KeywordIndex,
    MetadataFilter,
    Reranker,
    RetrievalResult,
    Scope,
    VectorStore,
)
from agentmaker.testing import FakeEmbedder

RAG = Scope(base="rag")
TEXTS = {
    "meal": "The daily meal allowance is 80, no receipt needed.",
    "hotel": "Hotels are capped at 500 per night, receipt required.",
    "train": "Train tickets are refunded in second class only.",
    "laptop": "Employees receive a laptop on their first working day.",
}


def _items(embedder: Embedder, tag: str = "policy") -> list[RetrievalResult]:
    vectors = embedder.embed_batch(list(TEXTS.values()))
    return [
        RetrievalResult(
            content=text,
            id=key,
            source="policy.md",
            embedding=vec,
            metadata={"tag": tag, "doc_id": "d-" + key},
        )
        for (key, text), vec in zip(TEXTS.items(), vectors, strict=True)
    ]


class EmbedderContract:
    """Every Embedder: shape, dtype, determinism, empty input, async twin."""

    @pytest.fixture
    def embedder(self) -> Embedder:
        raise NotImplementedError  # provided by the subclass

    def test_shape_and_dtype(self, embedder: Embedder) -> None:
        out = embedder.embed_batch(["one text", "another, longer text about something"])
        assert out.shape == (2, embedder.dimension)
        assert out.dtype == np.float32

    def test_deterministic_and_normalised(self, embedder: Embedder) -> None:
        a = embedder.embed_batch(["the same text"])[0]
        b = embedder.embed_batch(["the same text", "something else"])[0]
        np.testing.assert_allclose(a, b, atol=1e-5)
        assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-3

    def test_empty_batch(self, embedder: Embedder) -> None:
        assert embedder.embed_batch([]).shape[0] == 0

    def test_async_twin_matches(self, embedder: Embedder) -> None:
        sync = embedder.embed_batch(["async twin"])
        async_ = asyncio.run(embedder.aembed_batch(["async twin"]))
        np.testing.assert_allclose(sync, async_, atol=1e-5)

    def test_async_query_twin_matches(self, embedder: Embedder) -> None:
        # The app searches from async code: a query must be embedded as sync code would
        # (with e5's "query: " prefix when the embedder adds one).
        sync = embedder.embed_queries(["which word stands for brotherhood?"])
        async_ = asyncio.run(embedder.aembed_queries(["which word stands for brotherhood?"]))
        np.testing.assert_allclose(sync, async_, atol=1e-5)

    def test_related_texts_are_closer(self, embedder: Embedder) -> None:
        a, b, c = embedder.embed_batch(
            ["the daily meal allowance", "meal allowance per day", "the rocket engine ignition"]
        )
        assert float(a @ b) > float(a @ c)


class _IndexContract:
    """Shared by both index ports: the fixture returns (index, add, search)."""

    def search(self, index, query: str, **kw):
        raise NotImplementedError

    def test_scope_isolation(self, index, embedder) -> None:
        alice = _items(embedder)
        index.add(alice, scope=Scope(base="rag", user="alice"))
        assert self.search(index, TEXTS["meal"], scope=Scope(base="rag", user="bob")) == []
        assert self.search(index, TEXTS["meal"], scope=Scope(base="memory")) == []
        hits = self.search(index, TEXTS["meal"], scope=Scope(user="alice"))
        assert hits and hits[0].id == "meal"

    def test_upsert_overwrites_by_id(self, index, embedder) -> None:
        index.add(_items(embedder), scope=RAG)
        changed = "Hotels are now capped at 700 per night."
        item = RetrievalResult(
            content=changed,
            id="hotel",
            embedding=embedder.embed(changed),
            metadata={"tag": "policy"},
        )
        index.add([item], scope=RAG)
        assert index.count(scope=RAG) == len(TEXTS)
        hits = self.search(index, changed, scope=RAG)
        assert hits[0].id == "hotel" and hits[0].content == changed

    def test_delete_by_ids_and_guard(self, index, embedder) -> None:
        index.add(_items(embedder), scope=RAG)
        assert index.delete(["meal"]) == 1
        assert all(h.id != "meal" for h in self.search(index, TEXTS["meal"], scope=RAG))
        with pytest.raises(ScopeRequiredError):
            index.delete(scope=Scope())
        with pytest.raises(ScopeRequiredError):
            index.delete()
        assert index.count() == len(TEXTS) - 1
        assert index.delete(scope=Scope(), all_scopes=True) == len(TEXTS) - 1
        assert index.count() == 0

    def test_prefilter_finds_rare_matches(self, index, embedder) -> None:
        # 60 near-duplicates of the query tagged "common" and one weak match tagged
        # "rare": top-k-then-filter would lose the rare one; a pre-filter must not.
        common = [
            RetrievalResult(
                content=f"{TEXTS['meal']} copy {i}",
                id=f"c{i}",
                embedding=embedder.embed(f"{TEXTS['meal']} copy {i}"),
                metadata={"tag": "common"},
            )
            for i in range(60)
        ]
        rare_text = "Meal rules differ for the board: see the annex."
        rare = RetrievalResult(
            content=rare_text,
            id="rare",
            embedding=embedder.embed(rare_text),
            metadata={"tag": "rare"},
        )
        index.add([*common, rare], scope=RAG)
        hits = self.search(
            index, TEXTS["meal"], scope=RAG, top_k=5, filters=[MetadataFilter("tag", "rare")]
        )
        assert [h.id for h in hits] == ["rare"]
        hits = self.search(
            index,
            TEXTS["meal"],
            scope=RAG,
            top_k=100,
            filters=[MetadataFilter("tag", ["rare", "nope"], op="in")],
        )
        assert [h.id for h in hits] == ["rare"]

    def test_undeclared_filter_field_raises(self, index, embedder) -> None:
        index.add(_items(embedder), scope=RAG)
        with pytest.raises(UnknownFilterFieldError, match="colour"):
            self.search(index, "meal", scope=RAG, filters=[MetadataFilter("colour", "red")])


class VectorStoreContract(_IndexContract):
    """Every VectorStore (fixture ``index`` declares metadata column ``tag``)."""

    def search(self, index: VectorStore, query: str, *, top_k: int = 5, **kw):
        return index.search(FakeEmbedder().embed(query), top_k=top_k, **kw)

    @pytest.fixture
    def embedder(self) -> Embedder:
        return FakeEmbedder()

    def test_nearest_first_with_embeddings(self, index: VectorStore, embedder) -> None:
        index.add(_items(embedder), scope=RAG)
        hits = index.search(embedder.embed(TEXTS["train"]), top_k=3, scope=RAG)
        assert hits[0].id == "train"
        assert hits[0].score >= hits[1].score >= hits[2].score
        assert hits[0].embedding is not None and len(hits[0].embedding) == embedder.dimension
        assert hits[0].metadata["tag"] == "policy"


class KeywordIndexContract(_IndexContract):
    """Every KeywordIndex (fixture ``index`` declares metadata column ``tag``)."""

    def search(self, index: KeywordIndex, query: str, *, top_k: int = 5, **kw):
        return index.search(query, top_k=top_k, **kw)

    @pytest.fixture
    def embedder(self) -> Embedder:
        return FakeEmbedder()

    def test_stemming(self, index: KeywordIndex, embedder) -> None:
        index.add(_items(embedder), scope=RAG)
        assert index.search("meals", top_k=3, scope=RAG)[0].id == "meal"
        assert index.search("hotel", top_k=3, scope=RAG)[0].id == "hotel"

    def test_cjk_text_is_findable(self, index: KeywordIndex) -> None:
        docs = {
            "zh": "东京都是日本的首都，人口众多。",
            "ja": "吾輩は猫である。名前はまだ無い。",
            "ko": "서울특별시는 대한민국의 수도이다.",
            "en": "Paris is the capital of France.",
        }
        index.add([RetrievalResult(content=t, id=k) for k, t in docs.items()], scope=RAG)
        assert index.search("日本的首都", top_k=2, scope=RAG)[0].id == "zh"
        assert index.search("猫", top_k=2, scope=RAG)[0].id == "ja"
        assert index.search("名前", top_k=2, scope=RAG)[0].id == "ja"
        assert index.search("대한민국", top_k=2, scope=RAG)[0].id == "ko"

    @pytest.mark.parametrize(
        "query",
        [
            '"',
            "meal AND",
            "NEAR(meal",
            "*",
            "-meal",
            "meal OR OR",
            "(",
            "🙂🙂",
            "col:meal",
            "^meal",
            "meal\x00",
            "'; DROP TABLE items; --",
            "",
            "   ",
            "AND OR NOT",
        ],
    )
    def test_hostile_queries_never_raise(self, index: KeywordIndex, embedder, query) -> None:
        index.add(_items(embedder), scope=RAG)
        index.search(query, top_k=5, scope=RAG)


class RerankerContract:
    """Every Reranker: best first, at most top_k, rerank_score set, items from the input."""

    @pytest.fixture
    def reranker(self) -> Reranker:
        raise NotImplementedError

    def test_rerank(self, reranker: Reranker) -> None:
        candidates = [RetrievalResult(content=t, id=k) for k, t in TEXTS.items()]
        out = reranker.rerank("hotel night receipt", candidates, top_k=2)
        assert len(out) == 2
        assert out[0].id == "hotel"
        assert {o.id for o in out} <= set(TEXTS)
        assert out[0].metadata["rerank_score"] >= out[1].metadata["rerank_score"]


class FusionContract:
    """Every FusionStrategy: items in both lists rise; top_k respected."""

    @pytest.fixture
    def fusion(self) -> FusionStrategy:
        raise NotImplementedError

    def test_common_item_first(self, fusion: FusionStrategy) -> None:
        a = [RetrievalResult("A", id="1"), RetrievalResult("B", id="2")]
        b = [RetrievalResult("B", id="2"), RetrievalResult("C", id="3")]
        out = fusion.fuse([a, b], top_k=2)
        assert [o.id for o in out] == ["2", "1"]
