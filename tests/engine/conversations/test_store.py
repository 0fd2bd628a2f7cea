"""Conversations in the library file: reopen, list, rename, delete/undo, search, scopes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker import Scope
from agentmaker.conversations import Conversations
from agentmaker.errors import ConversationNotFoundError
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder


def test_a_conversation_survives_reopening_the_library(
    library: Library, library_path: Path
) -> None:
    chat = library.conversations.create()
    first = asyncio.run(library.conversations.ask(chat.conversation_id, "daily meal allowance"))
    asyncio.run(library.conversations.ask(chat.conversation_id, "hotel receipt per night"))
    library.close()

    with Library.open(library_path, embedder=FakeEmbedder()) as again:
        [listed] = again.conversations.list()
        assert listed.title == "daily meal allowance"
        assert listed.turn_count == 2
        conv = again.conversations.get(chat.conversation_id)
        assert [t.question for t in conv.turns] == [
            "daily meal allowance",
            "hotel receipt per night",
        ]
        assert conv.turns[0].answer == first.answer
        assert "80 euros" in conv.turns[0].answer
        assert conv.turns[0].extractive and conv.turns[0].model == ""
        src = conv.turns[0].sources[0]
        assert src.heading_path == "Expense Policy > Meals"
        assert "80 euros" in src.content
        assert src.status == "current"
        assert [s.n for s in conv.turns[0].sources] == list(
            range(1, len(conv.turns[0].sources) + 1)
        )


def test_list_is_newest_first_and_paged(library: Library) -> None:
    convs = library.conversations
    ids = [convs.create(f"chat {i}").conversation_id for i in range(5)]
    assert [c.conversation_id for c in convs.list(limit=2)] == [ids[4], ids[3]]
    assert [c.conversation_id for c in convs.list(limit=2, offset=2)] == [ids[2], ids[1]]
    assert [c.conversation_id for c in convs.list(limit=2, offset=4)] == [ids[0]]
    assert convs.count() == 5
    # Asking in an old chat brings it to the top.
    asyncio.run(convs.ask(ids[0], "train tickets"))
    assert convs.list(limit=1)[0].conversation_id == ids[0]


def test_rename_keeps_the_turns(library: Library) -> None:
    convs = library.conversations
    chat = convs.create()
    asyncio.run(convs.ask(chat.conversation_id, "train tickets"))
    convs.rename(chat.conversation_id, "  Travel rules ")
    conv = convs.get(chat.conversation_id)
    assert conv.title == "Travel rules"
    assert len(conv.turns) == 1
    with pytest.raises(ConversationNotFoundError, match="no conversation 'nope'"):
        convs.rename("nope", "x")


def test_delete_and_undo(library: Library) -> None:
    convs = library.conversations
    keep = convs.create("keep")
    gone = convs.create()
    asyncio.run(convs.ask(gone.conversation_id, "hotel receipt"))
    deleted = convs.delete(gone.conversation_id)
    assert deleted is not None and deleted.turns[0].question == "hotel receipt"
    assert [c.conversation_id for c in convs.list()] == [keep.conversation_id]
    assert convs.search("hotel") == []
    with pytest.raises(ConversationNotFoundError):
        convs.get(gone.conversation_id)
    assert convs.delete(gone.conversation_id) is None

    convs.restore(deleted)
    back = convs.get(gone.conversation_id)
    assert back.turns[0].answer == deleted.turns[0].answer
    assert [h.conversation_id for h in convs.search("hotel")] == [gone.conversation_id]


def test_search_over_questions_and_answers(library: Library) -> None:
    convs = library.conversations
    meals = convs.create()
    asyncio.run(convs.ask(meals.conversation_id, "What is the meal allowance?"))
    trains = convs.create()
    asyncio.run(convs.ask(trains.conversation_id, "How are train tickets refunded?"))

    by_question = convs.search("allowance")
    assert [h.conversation_id for h in by_question] == [meals.conversation_id]
    assert "allowance" in by_question[0].snippet.lower()
    # "second class" is only in the (extractive) answer, not in the question.
    assert [h.conversation_id for h in convs.search("second class")] == [trains.conversation_id]
    # Every word must match; words are never read as FTS5 syntax.
    assert convs.search("meal second") == []
    assert convs.search('"NEAR( *') == []
    assert convs.search("") == []


def test_chinese_questions_are_searchable(library: Library) -> None:
    convs = library.conversations
    chat = convs.create()
    asyncio.run(convs.ask(chat.conversation_id, "每日餐费补贴是多少?"))
    assert [h.conversation_id for h in convs.search("餐费")] == [chat.conversation_id]


def test_scopes_keep_people_apart(library: Library) -> None:
    alice = Conversations(library.db, library.rag, scope=Scope(base="rag", user="alice"))
    bob = Conversations(library.db, library.rag, scope=Scope(base="rag", user="bob"))
    mine = alice.create("alice's")
    asyncio.run(alice.ask(mine.conversation_id, "hotel"))
    assert bob.list() == []
    assert bob.search("hotel") == []
    with pytest.raises(ConversationNotFoundError):
        bob.get(mine.conversation_id)
    assert bob.delete(mine.conversation_id) is None
    assert [c.title for c in alice.list()] == ["alice's"]
