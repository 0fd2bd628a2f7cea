"""Follow-up questions: the model's rewrite is what is searched; the rule without one."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from agentmaker.conversations import (
    Exchange,
    condense_by_rule,
    condense_with_model,
    history_messages,
    looks_like_follow_up,
)
from agentmaker.conversations.records import Turn
from agentmaker.errors import ModelConnectionError
from agentmaker.library import Library
from agentmaker.testing import ScriptedLLM


def _record_searches(library: Library, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    searched: list[str] = []
    original = library.retriever.asearch_many

    async def recording(queries: list[str], **kwargs: Any) -> Any:
        searched.extend(queries)
        return await original(queries, **kwargs)

    monkeypatch.setattr(library.retriever, "asearch_many", recording)
    return searched


def test_the_condensed_query_is_what_is_searched(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = ScriptedLLM(
        [
            "The daily meal allowance is 80 euros [1].",
            "hotel cost cap per night",  # the rewrite of the follow-up
            "Hotels are capped at 500 per night [1].",
        ]
    )
    library.set_llm(llm)
    searched = _record_searches(library, monkeypatch)
    convs = library.conversations
    chat = convs.create()
    first = asyncio.run(convs.ask(chat.conversation_id, "What is the daily meal allowance?"))
    second = asyncio.run(convs.ask(chat.conversation_id, "And for hotels?"))

    assert first.query == "What is the daily meal allowance?" and not first.condensed
    assert second.query == "hotel cost cap per night" and second.condensed
    assert searched == ["What is the daily meal allowance?", "hotel cost cap per night"]
    assert second.sources[0].heading_path == "Expense Policy > Lodging"
    assert second.model == "scripted" and not second.extractive

    # The rewrite call saw the earlier turn and the follow-up, fenced as data.
    rewrite = llm.calls[1][-1].content
    assert "User: What is the daily meal allowance?" in rewrite
    assert "Latest question: And for hotels?" in rewrite
    assert "<<<CONVERSATION>>>" in rewrite
    # The answer prompt carries the earlier turn (without its [n] markers) before the
    # question, which is asked as the person wrote it.
    system, q1, a1, user = llm.calls[2]
    assert system.role == "system"
    assert (q1.role, q1.content) == ("user", "What is the daily meal allowance?")
    assert (a1.role, a1.content) == ("assistant", "The daily meal allowance is 80 euros.")
    assert re.search(r"<<<QUESTION \w+>>>\nAnd for hotels\?\n<<<END QUESTION", user.content)
    assert convs.get(chat.conversation_id).turns[1].query == "hotel cost cap per night"


def test_a_failed_rewrite_falls_back_to_the_rule(library: Library) -> None:
    history = [Exchange("What is the daily meal allowance?", "daily meal allowance", "80 [1]")]
    llm = ScriptedLLM([ModelConnectionError("down")])
    query = asyncio.run(condense_with_model(llm, history, "and is a receipt needed for it?"))
    assert query == condense_by_rule(history, "and is a receipt needed for it?")
    assert "meal" in query and "allowance" in query


def test_the_model_reply_is_cleaned_to_one_line() -> None:
    history = [Exchange("meal allowance?", "meal allowance?", "80")]
    llm = ScriptedLLM(['Standalone query: "hotel price cap"\nBecause the user asked...'])
    assert asyncio.run(condense_with_model(llm, history, "and hotels?")) == "hotel price cap"
    # The first question needs no rewrite and costs no call.
    assert asyncio.run(condense_with_model(ScriptedLLM([]), [], "meal?")) == "meal?"


def test_the_rule_carries_the_previous_key_terms() -> None:
    history = [
        Exchange("What is the daily meal allowance?", "What is the daily meal allowance?", "")
    ]
    assert condense_by_rule(history, "And for hotels?") == "And for hotels? daily meal allowance"
    assert condense_by_rule(history, "Is a receipt needed for it?").endswith("daily meal allowance")
    # A question that stands on its own is searched as written, and so is the first one.
    standalone = "How are second class train tickets refunded after a trip abroad?"
    assert condense_by_rule(history, standalone) == standalone
    assert condense_by_rule([], "And for hotels?") == "And for hotels?"
    assert looks_like_follow_up("what about that one")
    assert not looks_like_follow_up(standalone)


def test_without_a_model_the_rule_finds_the_follow_ups_passage(library: Library) -> None:
    convs = library.conversations
    chat = convs.create()
    asyncio.run(convs.ask(chat.conversation_id, "What is the meal allowance per day?"))
    turn = asyncio.run(convs.ask(chat.conversation_id, "Is a receipt needed for it?"))
    assert turn.query == "Is a receipt needed for it? meal allowance per day"
    assert turn.sources[0].heading_path == "Expense Policy > Meals"
    assert "no receipt is needed" in turn.answer


def _turn(n: int, question: str, answer: str) -> Turn:
    return Turn(f"t{n}", "c", n, question, question, answer, extractive=False)


def test_history_drops_the_oldest_turns_first() -> None:
    turns = [_turn(i, f"question {i}", f"answer {i} " + "word " * 50 + "[1]") for i in range(6)]
    everything = history_messages(turns, budget=10_000)
    assert [m.content for m in everything[::2]] == [f"question {i}" for i in range(6)]
    assert all("[1]" not in m.content for m in everything[1::2])
    some = history_messages(turns, budget=130)
    assert 0 < len(some) < len(everything)
    assert some[-2].content == "question 5"  # the newest survive
    assert [m.role for m in some] == ["user", "assistant"] * (len(some) // 2)
    assert history_messages(turns, budget=5) == []


def test_stopping_keeps_what_was_written(library: Library) -> None:
    llm = ScriptedLLM(["Hotels are capped at 500 per night [1] and more words follow."])
    library.set_llm(llm)
    convs = library.conversations
    chat = convs.create()

    async def stop_early() -> None:
        stream = convs.ask_stream(chat.conversation_id, "hotel cap")
        async for _piece in stream:
            break
        await stream.aclose()
        assert stream.turn is not None and stream.turn.stopped

    asyncio.run(stop_early())
    [turn] = convs.get(chat.conversation_id).turns
    assert (
        turn.stopped and turn.answer.rstrip() == "Hotels"
    )  # a trailing space waits for the next piece
    assert llm.closed_streams == 1


def test_regenerate_replaces_the_last_answer(library: Library) -> None:
    convs = library.conversations
    chat = convs.create()
    asyncio.run(convs.ask(chat.conversation_id, "meal allowance"))
    asyncio.run(convs.ask(chat.conversation_id, "hotel receipt"))
    library.set_llm(ScriptedLLM(["hotel receipt", "Hotels need a receipt [1]."]))

    async def regenerate() -> None:
        async for _ in convs.regenerate_stream(chat.conversation_id):
            pass

    asyncio.run(regenerate())
    turns = convs.get(chat.conversation_id).turns
    assert [t.question for t in turns] == ["meal allowance", "hotel receipt"]
    assert turns[1].answer == "Hotels need a receipt [1]." and turns[1].model == "scripted"
    assert [t.position for t in turns] == [1, 2]


def test_regenerate_needs_a_question(library: Library) -> None:
    from agentmaker.errors import ConfigurationError

    chat = library.conversations.create("empty")
    with pytest.raises(ConfigurationError, match="'empty' has no question to answer again"):
        library.conversations.regenerate_stream(chat.conversation_id)
