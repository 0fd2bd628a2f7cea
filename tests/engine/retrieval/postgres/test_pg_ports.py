"""The port contracts on the PostgreSQL batteries (a real server, one database a test)."""

from __future__ import annotations

import pytest
from agentmaker.retrieval.postgres import PgKeywordIndex, PgVectorStore

from tests.engine.retrieval.contracts import KeywordIndexContract, VectorStoreContract


class TestPgVectorStore(VectorStoreContract):
    @pytest.fixture
    def index(self, pg_dsn: str):
        store = PgVectorStore(pg_dsn, metadata_columns=("tag",))
        yield store
        store.close()


class TestPgKeywordIndex(KeywordIndexContract):
    @pytest.fixture
    def index(self, pg_dsn: str):
        index = PgKeywordIndex(pg_dsn, metadata_columns=("tag",))
        yield index
        index.close()
