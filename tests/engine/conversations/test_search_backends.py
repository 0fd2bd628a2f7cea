"""Searching conversations matches the same words in a library file (FTS5) and in a team
library (PostgreSQL: FTS5's tokens in an array): stems, every word, CJK, no syntax."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder

from tests.engine.conversations.conftest import POLICY


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "lib.sqlite")
    return str(request.getfixturevalue("pg_dsn"))


@pytest.fixture
def library(target: str) -> Iterator[Library]:
    with Library.open(target, embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_text(POLICY, source="policy.md")
        yield lib


def _ids(library: Library, text: str) -> list[str]:
    return [h.conversation_id for h in library.conversations.search(text)]


def test_search_matches_stems_every_word_and_no_syntax(library: Library) -> None:
    convs = library.conversations
    trains = convs.create()
    asyncio.run(convs.ask(trains.conversation_id, "How are train tickets refunded?"))
    meals = convs.create()
    asyncio.run(convs.ask(meals.conversation_id, "What is the daily meal allowance?"))
    # Stemmed: "refunds" and "ticket" find "refunded" and "tickets".
    assert _ids(library, "refunds") == [trains.conversation_id]
    assert _ids(library, "Ticket REFUND") == [trains.conversation_id]
    hit = convs.search("allowances")[0]
    assert hit.conversation_id == meals.conversation_id and "allowance" in hit.snippet.lower()
    # "second class" is only in the extractive answer; every word must be there.
    assert _ids(library, "second class") == [trains.conversation_id]
    assert _ids(library, "meal second") == []
    assert _ids(library, '"NEAR( * %_') == [] and _ids(library, "") == []


def test_chinese_words_and_single_characters_are_found(library: Library) -> None:
    convs = library.conversations
    chat = convs.create()
    asyncio.run(convs.ask(chat.conversation_id, "每日餐费补贴是多少?"))
    assert _ids(library, "餐费") == [chat.conversation_id]
    assert _ids(library, "补贴 餐费") == [chat.conversation_id]
    assert _ids(library, "餐") == [chat.conversation_id]  # a bigram it begins
    assert _ids(library, "火车") == []


def test_a_team_library_from_before_stemming_is_indexed_on_open(pg_dsn: str) -> None:
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_text(POLICY, source="policy.md")
        chat = lib.conversations.create()
        asyncio.run(lib.conversations.ask(chat.conversation_id, "How are tickets refunded?"))
        # Back to the first schema: no token column, searched with ILIKE.
        lib.db.execute("DROP INDEX conversation_fts_terms")
        lib.db.execute("ALTER TABLE conversation_fts DROP COLUMN terms")
        lib.db.execute("UPDATE schema_versions SET version = 1 WHERE component = 'conversations'")
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        assert _ids(lib, "refund tickets") == [chat.conversation_id]
