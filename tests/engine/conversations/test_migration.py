"""A library written before conversations existed opens and gains them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker.errors import LibraryVersionError
from agentmaker.library import Library
from agentmaker.rag.ingest.pipeline import IngestionPipeline
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.hybrid import SqliteHybridRetriever
from agentmaker.testing import FakeEmbedder

from tests.engine.conversations.conftest import POLICY


def _old_library(path: Path) -> None:
    """What today's main writes: the source store, both indexes, bookkeeping; built
    from the same components Library used before it had conversations."""
    db = SqliteDatabase(path)
    source_store = SourceStore(db)
    retriever = SqliteHybridRetriever(
        FakeEmbedder(), db, metadata_columns=("doc_id", "format"), owns_db=False
    )
    IngestionPipeline(retriever=retriever, source_store=source_store).ingest_text(
        POLICY, source="policy.md"
    )
    retriever.stop_workers()
    db.close()


def _components(path: Path) -> dict[str, int]:
    with SqliteDatabase(path) as db:
        return dict(db.query("SELECT component, version FROM schema_versions"))


def test_an_older_library_gains_conversations(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _old_library(path)
    before = _components(path)
    assert "conversations" not in before and before["source_store"] == 1

    with Library.open(path, embedder=FakeEmbedder()) as lib:
        assert lib.source_store.count_documents() == 1
        assert lib.conversations.list() == []
        chat = lib.conversations.create()
        turn = asyncio.run(lib.conversations.ask(chat.conversation_id, "train tickets"))
        assert "second class" in turn.answer
    after = _components(path)
    assert after["conversations"] == 1
    assert {k: v for k, v in after.items() if k != "conversations"} == before

    with Library.open(path, embedder=FakeEmbedder()) as lib:  # the migration ran once
        assert lib.conversations.get(chat.conversation_id).turns[0].answer == turn.answer


def test_a_newer_conversations_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    Library.open(path, embedder=FakeEmbedder()).close()
    with SqliteDatabase(path) as db:
        db.execute("UPDATE schema_versions SET version = 99 WHERE component = 'conversations'")
    with pytest.raises(LibraryVersionError, match="conversations schema 99"):
        Library.open(path, embedder=FakeEmbedder())
