"""The contract tests, run against every implementation in the engine."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from agentmaker.retrieval import Fts5KeywordIndex, RRFFusion, SqliteVecStore
from agentmaker.testing import FakeEmbedder, FakeReranker

from tests.engine.retrieval.contracts import (
    EmbedderContract,
    FusionContract,
    KeywordIndexContract,
    RerankerContract,
    VectorStoreContract,
)


class TestFakeEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> FakeEmbedder:
        return FakeEmbedder()


class _QueryPrefixEmbedder(FakeEmbedder):
    """Embeds queries with a prefix of their own and overrides only the sync method, as
    the benchmarks' cache around e5 does."""

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_batch([f"query: {text}" for text in texts])


class TestQueryPrefixEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> FakeEmbedder:
        return _QueryPrefixEmbedder()


class TestSqliteVecStore(VectorStoreContract):
    @pytest.fixture
    def index(self, tmp_path: Path):
        store = SqliteVecStore(tmp_path / "vectors.sqlite", metadata_columns=("tag",))
        yield store
        store.close()


class TestFts5KeywordIndex(KeywordIndexContract):
    @pytest.fixture
    def index(self, tmp_path: Path):
        index = Fts5KeywordIndex(tmp_path / "keywords.sqlite", metadata_columns=("tag",))
        yield index
        index.close()


class TestFakeReranker(RerankerContract):
    @pytest.fixture
    def reranker(self) -> FakeReranker:
        return FakeReranker()


class TestRRFFusion(FusionContract):
    @pytest.fixture
    def fusion(self) -> RRFFusion:
        return RRFFusion()
