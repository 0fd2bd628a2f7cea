"""The contract tests, run against every implementation in the engine."""

from __future__ import annotations

from pathlib import Path

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
