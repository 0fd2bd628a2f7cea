"""HybridRetriever: dense and keyword legs, fused (RRF by default), optionally reranked."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace as dc_replace

import numpy as np

from agentmaker.retrieval.fusion import LEG_RANK_KEYS, RRFFusion
from agentmaker.retrieval.ports import Embedder, FusionStrategy, KeywordIndex, Reranker, VectorStore
from agentmaker.retrieval.queries import check_query, check_top_k
from agentmaker.retrieval.score_fusion import ScoreFusion
from agentmaker.retrieval.text_analysis import compounds
from agentmaker.retrieval.types import (
    MetadataFilter,
    RetrievalConfig,
    RetrievalResult,
    Scope,
    check_scope,
)

log = logging.getLogger(__name__)


def default_fusion(config: RetrievalConfig, embedder: Embedder | None = None) -> FusionStrategy:
    """The fusion ``config.fusion`` names, recording each leg's rank in the metadata.

    Score fusion takes ``config.dense_weight`` with raw cosines, or when that is None the
    embedder's tuned weight and normalisation (:attr:`Embedder.score_fusion_defaults`).
    """
    if config.fusion == "score":
        weight, normalization = 0.7, ("none", "max")
        if embedder is not None:
            weight, normalization = embedder.score_fusion_defaults
        if config.dense_weight is not None:
            weight, normalization = config.dense_weight, ("none", "max")
        return ScoreFusion(
            (weight, 1.0 - weight),
            normalization=normalization,  # type: ignore[arg-type]
            rank_keys=LEG_RANK_KEYS,
        )
    return RRFFusion(config.rrf_k, rank_keys=LEG_RANK_KEYS)


def written_first(query: str, fused: list[RetrievalResult]) -> list[RetrievalResult]:
    """``fused`` with the items that hold more of the query's compounds as written (a
    date, a decimal, a version, an identifier: :func:`compounds`) first, in their order.
    A sheet's rows are alike by meaning, and most hold the words the query asks with
    ("rain", "precipitation"): fused, the row of "2013/10/01" came 11th of 20 though the
    keyword leg ranked it first (held-out v72)."""
    wanted = [re.compile(rf"(?<![\w.]){re.escape(c)}(?!\w|\.\d)") for c in compounds(query)]
    if not wanted:
        return fused

    def held(item: RetrievalResult) -> int:
        # Where the item stands counts: "Version 3.0.0 > BREAKING CHANGES".
        where = str(item.metadata.get("heading_path") or "")
        text = unicodedata.normalize("NFKC", f"{where}\n{item.content}").lower()
        return sum(1 for pattern in wanted if pattern.search(text))

    return sorted(fused, key=lambda item: -held(item))


class HybridRetriever:
    """Storage-agnostic orchestrator of an embedder, a vector store and a keyword index.

    ``search`` takes ``candidate_pool`` items from each leg, fuses the lists (those that
    hold the query's dates, decimals, versions or identifiers as written first:
    :func:`written_first`) and, when a reranker is configured, refines the fused pool to
    ``top_k``. Every fused result
    records ``vector_rank`` / ``keyword_rank`` (absent when that leg missed it) and
    ``rrf_score`` in its metadata. The async twins run both legs concurrently.
    """

    def __init__(
        self,
        embedder: Embedder,
        vector_store: VectorStore,
        keyword_index: KeywordIndex,
        reranker: Reranker | None = None,
        *,
        config: RetrievalConfig | None = None,
        fusion: FusionStrategy | None = None,
    ) -> None:
        self.embedder = embedder
        self.vector_store = vector_store
        self.keyword_index = keyword_index
        self.reranker = reranker
        self.config = config or RetrievalConfig()
        self.fusion = fusion or default_fusion(self.config, embedder)

    # --- shared logic (no I/O) ----------------------------------------------------

    def _params(self, top_k: int | None, candidate_pool: int | None) -> tuple[int, int]:
        top_k = check_top_k(top_k) or self.config.top_k
        pool = candidate_pool or self.config.candidate_pool
        return top_k, max(pool, top_k)

    def _fuse(
        self, query: str, dense: list[RetrievalResult], keyword: list[RetrievalResult], pool: int
    ) -> list[RetrievalResult]:
        return written_first(query, self.fusion.fuse([dense, keyword], top_k=pool))

    @staticmethod
    def _cut(fused: list[RetrievalResult], top_k: int) -> list[RetrievalResult]:
        return fused[:top_k]

    @staticmethod
    def _with_embeddings(
        items: Sequence[RetrievalResult], vectors: np.ndarray
    ) -> list[RetrievalResult]:
        out = []
        it = iter(vectors)
        for item in items:
            out.append(item if item.embedding is not None else dc_replace(item, embedding=next(it)))
        return out

    @staticmethod
    def _needs_embedding(items: Sequence[RetrievalResult]) -> list[str]:
        return [item.content for item in items if item.embedding is None]

    def _embed_missing(self, items: Sequence[RetrievalResult]) -> list[RetrievalResult]:
        """Items with an embedding each (one batch for those lacking one)."""
        texts = self._needs_embedding(items)
        if not texts:
            return list(items)
        return self._with_embeddings(items, self.embedder.embed_batch(texts))

    async def _aembed_missing(self, items: Sequence[RetrievalResult]) -> list[RetrievalResult]:
        texts = self._needs_embedding(items)
        if not texts:
            return list(items)
        return self._with_embeddings(items, await self.embedder.aembed_batch(texts))

    # --- search -------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        candidate_pool: int | None = None,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """The ``top_k`` best items for ``query`` (fused, reranked when configured)."""
        return self.search_many(
            [query],
            top_k=top_k,
            candidate_pool=candidate_pool,
            scope=scope,
            all_scopes=all_scopes,
            filters=filters,
        )[0]

    def search_many(
        self,
        queries: Sequence[str],
        *,
        top_k: int | None = None,
        candidate_pool: int | None = None,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[list[RetrievalResult]]:
        """Search several queries, embedding them all in one batch."""
        scope = check_scope("search", scope, all_scopes)
        top_k, pool = self._params(top_k, candidate_pool)
        queries = [check_query(q, what="search") for q in queries]
        if not queries:
            return []
        vectors = self.embedder.embed_queries(list(queries))
        out = []
        for query, vector in zip(queries, vectors, strict=True):
            dense, keyword = self._legs(query, vector, pool, scope, filters)
            fused = self._fuse(query, dense, keyword, pool)
            if self.reranker is not None and fused:
                fused = self.reranker.rerank(query, fused, top_k=top_k)
            out.append(self._cut(fused, top_k))
        return out

    def _legs(
        self,
        query: str,
        vector: np.ndarray,
        pool: int,
        scope: Scope,
        filters: Sequence[MetadataFilter] | None,
    ) -> tuple[list[RetrievalResult], list[RetrievalResult]]:
        """Both legs' candidates for one query (one after the other)."""
        dense = self.vector_store.search(vector, top_k=pool, scope=scope, filters=filters)
        keyword = self.keyword_index.search(query, top_k=pool, scope=scope, filters=filters)
        return dense, keyword

    async def asearch(
        self,
        query: str,
        *,
        top_k: int | None = None,
        candidate_pool: int | None = None,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """Async twin of :meth:`search`: both legs run concurrently."""
        return (
            await self.asearch_many(
                [query],
                top_k=top_k,
                candidate_pool=candidate_pool,
                scope=scope,
                all_scopes=all_scopes,
                filters=filters,
            )
        )[0]

    async def asearch_many(
        self,
        queries: Sequence[str],
        *,
        top_k: int | None = None,
        candidate_pool: int | None = None,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[list[RetrievalResult]]:
        """Async twin of :meth:`search_many`."""
        scope = check_scope("search", scope, all_scopes)
        top_k, pool = self._params(top_k, candidate_pool)
        queries = [check_query(q, what="search") for q in queries]
        if not queries:
            return []
        vectors = await self.embedder.aembed_queries(list(queries))
        out = []
        for query, vector in zip(queries, vectors, strict=True):
            dense, keyword = await self._alegs(query, vector, pool, scope, filters)
            fused = self._fuse(query, dense, keyword, pool)
            if self.reranker is not None and fused:
                fused = await self.reranker.arerank(query, fused, top_k=top_k)
            out.append(self._cut(fused, top_k))
        return out

    async def _alegs(
        self,
        query: str,
        vector: np.ndarray,
        pool: int,
        scope: Scope,
        filters: Sequence[MetadataFilter] | None,
    ) -> tuple[list[RetrievalResult], list[RetrievalResult]]:
        """Async twin of :meth:`_legs`: both legs concurrently, each in a thread."""
        # The task group cancels the sibling leg when one fails.
        async with asyncio.TaskGroup() as group:
            dense = group.create_task(
                asyncio.to_thread(
                    self.vector_store.search, vector, top_k=pool, scope=scope, filters=filters
                )
            )
            keyword = group.create_task(
                asyncio.to_thread(
                    self.keyword_index.search, query, top_k=pool, scope=scope, filters=filters
                )
            )
        return dense.result(), keyword.result()

    # --- writes -------------------------------------------------------------

    def add(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        """Upsert items into both indexes (embedding those without an ``embedding``).

        The two indexes are separate, so a failure in the second write is compensated
        best-effort by deleting what the first wrote.
        """
        if not items:
            return
        self._write_both(self._embed_missing(items), scope)

    async def aadd(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        """Async twin of :meth:`add`."""
        if not items:
            return
        await asyncio.to_thread(self._write_both, await self._aembed_missing(items), scope)

    def _write_both(self, items: list[RetrievalResult], scope: Scope | None) -> None:
        self.vector_store.add(items, scope=scope)
        try:
            self.keyword_index.add(items, scope=scope)
        except BaseException:
            with contextlib.suppress(Exception):
                self.vector_store.delete([i.id for i in items])
            log.warning("keyword write failed; removed %d vectors to compensate", len(items))
            raise

    def replace(
        self,
        old_ids: Sequence[str],
        items: Sequence[RetrievalResult],
        *,
        scope: Scope | None = None,
    ) -> None:
        """Replace a document's old items with new ones."""
        self._replace(old_ids, self._embed_missing(items), scope)

    async def areplace(
        self,
        old_ids: Sequence[str],
        items: Sequence[RetrievalResult],
        *,
        scope: Scope | None = None,
    ) -> None:
        """Async twin of :meth:`replace`."""
        await asyncio.to_thread(self._replace, old_ids, await self._aembed_missing(items), scope)

    def _replace(
        self, old_ids: Sequence[str], items: list[RetrievalResult], scope: Scope | None
    ) -> None:
        keep = {i.id for i in items}
        stale = [i for i in old_ids if i not in keep]
        if items:
            self._write_both(items, scope)
        if stale:
            self.vector_store.delete(stale)
            self.keyword_index.delete(stale)

    def delete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        """Delete by ids, or by scope and filters (an empty scope needs ``all_scopes``)."""
        if ids is None:
            scope = check_scope("delete", scope, all_scopes)
        removed = self.vector_store.delete(ids, scope=scope, all_scopes=all_scopes, filters=filters)
        self.keyword_index.delete(ids, scope=scope, all_scopes=all_scopes, filters=filters)
        return removed

    async def adelete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        """Async twin of :meth:`delete`."""
        return await asyncio.to_thread(
            self.delete, ids, scope=scope, all_scopes=all_scopes, filters=filters
        )

    def count(self, *, scope: Scope | None = None) -> int:
        """How many items the vector leg holds."""
        return self.vector_store.count(scope=scope)

    def close(self) -> None:
        """Close both indexes (and whatever they opened)."""
        self.vector_store.close()
        self.keyword_index.close()
