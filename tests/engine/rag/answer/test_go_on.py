"""Going on from a pointer: when the model's only sentence stops where its answer should
stand ("The calibre of the siege guns was [1]."), it is made to go on from that very
sentence with a value first (benchmarks/REPORT.md §10, session 19)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.answer.prompting import AskResult
from agentmaker.testing import FakeEmbedder, ScriptedLLM

QUESTION = "What calibre were the large siege guns planted in the rear of the division?"
FRAME = "The large siege guns planted in the rear of the division were of"


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library.open(tmp_path / "siege.sqlite", embedder=FakeEmbedder())
    lib.pipeline.ingest_text(
        "The large siege guns planted in the rear of the division were of nine-inch "
        "calibre, and it took ten yoke of oxen to haul each one to its place.",
        source="siege.txt",
    )
    lib.pipeline.ingest_text(
        "The rear of the division was guarded by pickets at night.", source="pickets.txt"
    )
    lib.pipeline.ingest_text(
        "Small guns of the division were planted near the river.", source="river.txt"
    )
    yield lib
    lib.close()


def _ask(library: Library, llm: ScriptedLLM, *, goes_on: bool = True) -> AskResult:
    llm.checks_answers = True  # as the built-in model does
    llm.continues_answers = goes_on
    library.set_llm(llm)
    return asyncio.run(library.rag.ask(QUESTION))


def test_a_pointer_goes_on_from_the_models_own_sentence(library: Library) -> None:
    llm = ScriptedLLM([f"{FRAME} [2].", " nine-inch calibre. [3]"])
    result = _ask(library, llm)
    # The sentence as the model finished it, cited to the passage that says it.
    assert result.answer == f"{FRAME} nine-inch calibre. [1]"
    assert result.note == "went_on" and not result.abstained and not result.extractive
    first, again = llm.calls
    # The same prompt, with the model's sentence up to the pointer as the answer's start.
    assert again[:-1] == first
    assert again[-1].role == "assistant" and again[-1].content == FRAME
    # What follows must not begin with a marker: "[2]" again would point again.
    grammar = llm.grammars[1]
    assert llm.grammars[0] is None and grammar is not None and "[^[" in grammar


def test_going_on_that_points_again_or_is_unsupported_is_not_shown(library: Library) -> None:
    # "…, which is [1]." only points again: then the first passage is read alone, and
    # then the passages are quoted if the model confirms they answer (here it does not).
    again = " the calibre named in the passage, which is [1]."
    llm = ScriptedLLM([f"{FRAME} [2].", again, "I don't know.", "No."])
    result = _ask(library, llm)
    assert len(llm.calls) == 4 and llm.calls[2][-1].role == "user"  # the second look
    assert result.abstained and "which is" not in result.answer
    # A value no passage holds is withheld like any other sentence.
    llm = ScriptedLLM([f"{FRAME} [2].", " twelve-inch calibre. [1]", "I don't know.", "No."])
    result = _ask(library, llm)
    assert result.abstained and "twelve-inch" not in result.answer
    assert llm.calls[1][-1].content == FRAME and result.draft == f"{FRAME} [2]."


def test_a_model_that_cannot_go_on_is_not_asked_to(library: Library) -> None:
    # A server's model answers anew after an assistant message: it gets the second look.
    llm = ScriptedLLM([f"{FRAME} [2].", "The guns were of nine-inch calibre. [1]", "Yes."])
    result = _ask(library, llm, goes_on=False)
    assert result.note == "second_look" and "nine-inch calibre" in result.answer
    assert all(call[-1].role == "user" for call in llm.calls)


def test_a_second_look_that_points_goes_on_too(library: Library) -> None:
    llm = ScriptedLLM(["I don't know.", f"{FRAME} [1].", " nine-inch calibre. [1]", "Yes."])
    result = _ask(library, llm)
    assert result.note == "second_look"
    assert result.answer == f"{FRAME} nine-inch calibre. [1]"
    # It went on from the reading of the first passage alone, then confirmed it.
    one, again = llm.calls[1], llm.calls[2]
    assert again[:-1] == one and again[-1].content == FRAME
    assert "nine-inch calibre" in llm.calls[3][-1].content
