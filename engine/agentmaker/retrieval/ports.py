"""The five ports of the retrieval foundation.

Each port has one abstract primitive and concrete conveniences on top. Sync methods
are the primitives for local backends; async twins default to running the sync
primitive in a worker thread, and network backends override them with real async I/O.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

Vector = np.ndarray  # float32, shape (dim,)


@dataclass(frozen=True)
class ModelFingerprint:
    """Identifies an embedding model: vectors are comparable only within one fingerprint."""

    name: str
    dimension: int
    weights: str = ""

    def __str__(self) -> str:
        suffix = f"@{self.weights[:12]}" if self.weights else ""
        return f"{self.name}/{self.dimension}d{suffix}"


class Embedder(ABC):
    """Turns texts into vectors. Primitive: :meth:`embed_batch` (passages, i.e. the
    texts that are indexed); queries go through :meth:`embed_queries`."""

    @property
    @abstractmethod
    def fingerprint(self) -> ModelFingerprint:
        """Name, dimension and weights hash of the model."""

    @property
    def dimension(self) -> int:
        """Length of each vector."""
        return self.fingerprint.dimension

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; returns a float32 array of shape ``(len(texts), dimension)``."""

    async def aembed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Async twin of :meth:`embed_batch` (runs it in a worker thread by default)."""
        return await asyncio.to_thread(self.embed_batch, texts)

    def embed(self, text: str) -> np.ndarray:
        """Embed one text."""
        return self.embed_batch([text])[0]

    async def aembed(self, text: str) -> np.ndarray:
        """Async twin of :meth:`embed`."""
        return (await self.aembed_batch([text]))[0]

    @property
    def score_fusion_defaults(self) -> tuple[float, tuple[str, str]]:
        """How ``ScoreFusion`` weighs this model's cosines when the retrieval config
        leaves ``dense_weight`` open: ``(dense weight, (dense, keyword) normalisation)``.

        What a weight means depends on how a model spreads its cosines (e5's sit in a
        narrow band near 0.8, MiniLM's spread much wider), so a model tuned on the
        benchmarks overrides this. Default: raw cosine x 0.7 + bm25 / best x 0.3.
        """
        return 0.7, ("none", "max")

    @property
    def related_similarity(self) -> float:
        """The cosine from which a passage counts as related to a query by meaning: the
        answer gate asks a local model only when some passage found reaches it (or holds
        most of the question's words). Like the fusion weight it depends on the model's
        spread of cosines: the default is all-MiniLM-L6-v2's level (the gate's
        ``GATE_SIMILARITY``), and a model measured otherwise overrides it.
        """
        return 0.45

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries. Models that embed questions differently from the
        passages they look for (e5's ``query:``/``passage:`` prefixes) override this;
        by default a query is embedded like a passage."""
        return self.embed_batch(texts)

    async def aembed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Async twin of :meth:`embed_queries`: :meth:`aembed_batch` when queries are
        embedded like passages, else :meth:`embed_queries` in a worker thread. An
        embedder that overrides only :meth:`embed_queries` (a cache around e5) so
        searches the same way from async code (the app's) as from sync code: it had
        embedded async queries as passages (REPORT §10, session 20)."""
        if type(self).embed_queries is Embedder.embed_queries:
            return await self.aembed_batch(texts)
        return await asyncio.to_thread(self.embed_queries, texts)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query (see :meth:`embed_queries`)."""
        return self.embed_queries([text])[0]

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (threads, sessions). Safe to call twice."""


class _IndexPort(ABC):
    """Writes shared by both index ports."""

    @abstractmethod
    def add(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        """Upsert items by ``id``."""

    @abstractmethod
    def delete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        """Delete by ids and/or scope and filters; returns how many were removed."""

    @abstractmethod
    def count(self, *, scope: Scope | None = None) -> int:
        """How many items the index holds (within ``scope`` when given)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Close connections this index opened itself."""


class VectorStore(_IndexPort):
    """Stores vectors and runs nearest-neighbour search. Items must carry ``embedding``."""

    @abstractmethod
    def search(
        self,
        vector: Vector,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """The ``top_k`` nearest items, best first (score = cosine similarity)."""


class KeywordIndex(_IndexPort):
    """BM25 keyword search."""

    @abstractmethod
    def search(
        self,
        query: str,
        *,
        top_k: int,
        scope: Scope | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """The ``top_k`` best keyword matches, best first (score = -bm25, higher is better)."""


class Reranker(ABC):
    """Re-scores candidates against the query, cross-encoder style."""

    @abstractmethod
    def rerank(
        self, query: str, candidates: Sequence[RetrievalResult], *, top_k: int
    ) -> list[RetrievalResult]:
        """Return the best ``top_k`` candidates, best first, ``metadata['rerank_score']`` set."""

    async def arerank(
        self, query: str, candidates: Sequence[RetrievalResult], *, top_k: int
    ) -> list[RetrievalResult]:
        """Async twin of :meth:`rerank`."""
        return await asyncio.to_thread(self.rerank, query, candidates, top_k=top_k)


class FusionStrategy(ABC):
    """Merges several ranked lists into one."""

    @abstractmethod
    def fuse(
        self, lists: Sequence[Sequence[RetrievalResult]], *, top_k: int
    ) -> list[RetrievalResult]:
        """Merge ``lists`` (each best first) and return the best ``top_k``."""
