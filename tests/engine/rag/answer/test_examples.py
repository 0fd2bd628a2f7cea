"""The worked example a small local model is shown before a Chinese question: only for
the built-in model, and never at the cost of a passage."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.models.llm import ChatMessage
from agentmaker.rag.answer.budget import fit_messages
from agentmaker.rag.answer.examples import examples_for
from agentmaker.rag.answer.prompting import SourceRef
from agentmaker.testing import FakeEmbedder, ScriptedLLM

QUESTION = "水壶的保修期是多久？"
ANSWER = "水壶的保修期为两年。[1]"


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library.open(tmp_path / "kettle.sqlite", embedder=FakeEmbedder())
    lib.pipeline.ingest_text(
        "The kettle has a warranty of two years from the date of purchase.", source="kettle.txt"
    )
    lib.pipeline.ingest_text("水壶的保修期为两年，从购买之日算起。", source="水壶.txt")
    yield lib
    lib.close()


def _ask(library: Library, llm: ScriptedLLM, question: str, *, built_in: bool = True) -> str:
    llm.checks_answers = built_in  # the built-in model checks its answers
    library.set_llm(llm)
    return asyncio.run(library.rag.ask(question)).answer


def test_the_built_in_model_sees_a_worked_example_before_a_chinese_question(
    library: Library,
) -> None:
    llm = ScriptedLLM([ANSWER, "The kettle has a warranty of two years. [1]"])
    assert _ask(library, llm, QUESTION) == ANSWER
    english = "How long is the warranty of the kettle?"
    assert _ask(library, llm, english) == "The kettle has a warranty of two years. [1]"
    chinese, in_english = llm.calls
    # System prompt, the example's question and answer, then the real question.
    assert [m.role for m in chinese] == ["system", "user", "assistant", "user"]
    assert "电影《山海》的编剧是谁？" in chinese[1].content and "王芳" in chinese[2].content
    # The example is the app's text: the user's passages and question come after it.
    assert "保修期为两年" in chinese[-1].content and "保修" not in chinese[1].content
    # An English question gets none (an English example cost abstentions, REPORT §10).
    assert [m.role for m in in_english] == ["system", "user"]


def test_a_server_model_gets_no_example(library: Library) -> None:
    llm = ScriptedLLM([ANSWER])
    assert _ask(library, llm, QUESTION, built_in=False) == ANSWER
    assert [m.role for m in llm.calls[0]] == ["system", "user"]


def test_a_second_look_sees_the_example_too(library: Library) -> None:
    llm = ScriptedLLM(["我不知道。", ANSWER, "是。"])  # the model confirms its second reading
    assert _ask(library, llm, QUESTION) == ANSWER
    assert [m.content for m in llm.calls[1][1:3]] == [m.content for m in examples_for(QUESTION)]


class _WordCounter(ScriptedLLM):
    """A model with a small window whose tokens are words."""

    def __init__(self, window: int) -> None:
        super().__init__([])
        self.context_window = window
        self.answer_tokens = 10

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return sum(len(m.content.split()) for m in messages)


def _passages(words: int) -> list[SourceRef]:
    text = " ".join(f"Sentence {i} of the passage." for i in range(words // 5))
    return [SourceRef(n=1, content=text), SourceRef(n=2, content=text)]


def test_the_example_gives_way_to_the_passages_when_the_window_is_small() -> None:
    example = examples_for(QUESTION)
    used_by_example = sum(len(m.content.split()) for m in example)
    sources = _passages(100)
    # Room for both passages but not for the example beside them: the passages stay.
    roomy, _ = fit_messages(_WordCounter(10_000), QUESTION, sources, examples=example)
    needed = sum(len(m.content.split()) for m in roomy)
    llm = _WordCounter(needed - used_by_example + 10 + 5)
    messages, kept = fit_messages(llm, QUESTION, sources, examples=example)
    assert [m.role for m in messages] == ["system", "user"]
    assert [s.content for s in kept] == [s.content for s in sources]  # whole, both
    # With room for everything, the example stays.
    messages, kept = fit_messages(_WordCounter(needed + 10), QUESTION, sources, examples=example)
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert len(kept) == 2
