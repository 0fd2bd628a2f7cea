"""The retrieval foundation: ports, batteries, hybrid search, fusion, scopes, sync."""

from agentmaker.retrieval.fusion import RRFFusion, reciprocal_rank_fusion
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.ports import (
    Embedder,
    FusionStrategy,
    KeywordIndex,
    ModelFingerprint,
    Reranker,
    VectorStore,
)
from agentmaker.retrieval.sqlite.bookkeeping import SqliteBookkeeping
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
from agentmaker.retrieval.sqlite.hybrid import SqliteHybridRetriever, build_sqlite_hybrid
from agentmaker.retrieval.sqlite.vec_store import SqliteVecStore
from agentmaker.retrieval.sync import (
    Bookkeeping,
    IndexSync,
    InMemoryBookkeeping,
    SyncIndexSync,
)
from agentmaker.retrieval.types import MetadataFilter, RetrievalConfig, RetrievalResult, Scope

__all__ = [
    "Bookkeeping",
    "Embedder",
    "Fts5KeywordIndex",
    "FusionStrategy",
    "HybridRetriever",
    "InMemoryBookkeeping",
    "IndexSync",
    "KeywordIndex",
    "MetadataFilter",
    "ModelFingerprint",
    "RRFFusion",
    "Reranker",
    "RetrievalConfig",
    "RetrievalResult",
    "Scope",
    "SqliteBookkeeping",
    "SqliteDatabase",
    "SqliteHybridRetriever",
    "SqliteVecStore",
    "SyncIndexSync",
    "VectorStore",
    "build_sqlite_hybrid",
    "reciprocal_rank_fusion",
]
