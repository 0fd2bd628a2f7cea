"""The second look: when nothing the model wrote is supported, it is asked again with the
first passage alone (a small model given five passages often says "I don't know" when
the first one holds the answer; benchmarks/REPORT.md §10, session 8). Before that, when
its only sentence stops where its answer should stand ("The calibre of the siege guns was
[1]."), it goes on from that very sentence with a value first (session 19)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.errors import ModelError
from agentmaker.library import Library
from agentmaker.models.llm import ChatMessage
from agentmaker.rag.answer.answer_split import split_answer
from agentmaker.rag.answer.checked import NOT_FOUND_ANSWER
from agentmaker.rag.answer.prompting import AskResult
from agentmaker.testing import FakeEmbedder, ScriptedLLM

from tests.engine.rag.answer.ten_k import ITEMS

QUESTION = "What calibre were the large siege guns planted in the rear of the division?"
ANSWER = "The large siege guns were of nine-inch calibre. [1]"
# The model's own sentence, up to where it put a marker in place of the answer.
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


def _ask(
    library: Library, llm: ScriptedLLM, question: str = QUESTION, *, goes_on: bool = False
) -> AskResult:
    llm.checks_answers = True  # as the built-in model does
    llm.continues_answers = goes_on  # as the built-in model does (llama.cpp)
    library.set_llm(llm)
    return asyncio.run(library.rag.ask(question))


def _passage_blocks(call: list[ChatMessage]) -> int:
    return call[-1].content.count("<<<PASSAGE ")


def test_a_declined_answer_gets_a_second_look_at_the_first_passage(library: Library) -> None:
    llm = ScriptedLLM(["I don't know.", ANSWER, "Yes."])
    result = _ask(library, llm)
    assert result.answer == ANSWER and result.note == "second_look"
    assert not result.abstained and not result.extractive
    assert result.draft == "I don't know."  # the first reading, kept for the note
    first, second, confirmed = llm.calls
    # Shown once the model confirmed that its second reading answers the question.
    assert "nine-inch calibre" in confirmed[-1].content and QUESTION in confirmed[-1].content
    assert _passage_blocks(first) == len(result.sources) > 1
    # The second prompt holds the first passage alone, numbered as the reader sees it.
    assert _passage_blocks(second) == 1
    assert "<<<PASSAGE 1" in second[-1].content and "nine-inch" in second[-1].content
    assert result.sources[0].content.startswith("The large siege guns")


def test_a_second_look_that_still_finds_nothing_leaves_the_first_readings_outcome(
    library: Library,
) -> None:
    # Nothing found the second time: the usual outcome of the first reading (quotes here,
    # since the first passage holds the question's words), and the first draft in the note.
    llm = ScriptedLLM(["[2]", "I don't know.", "nine-inch"])
    result = _ask(library, llm)
    assert len(llm.calls) == 3  # two readings, then the model copies the quote's answer
    assert result.note == "quoted_not_answered" and result.extractive
    assert result.draft == "[2]"
    assert "nine-inch calibre" in result.answer
    # A question no passage answers: "I don't know" twice is an abstention.
    llm = ScriptedLLM(["I don't know.", "I don't know."])
    result = _ask(library, llm, "How many pickets guarded the rear of the division?")
    assert len(llm.calls) == 2 and result.abstained
    assert result.answer == NOT_FOUND_ANSWER and result.note == ""


def test_no_second_look_after_a_value_no_passage_holds(library: Library) -> None:
    # The model stated a value its passages do not hold: made to read the first passage
    # alone, it would take that passage's nearest number (v18's "49 degrees" for a
    # temperature no diary entry gives). The first reading's outcome stands.
    llm = ScriptedLLM(["The guns were of 12-inch calibre. [1]", "nine-inch"])
    result = _ask(library, llm)
    assert len(llm.calls) == 2 and "Copy the words of the text" in llm.calls[1][-1].content
    assert result.note == "quoted_unsupported" and "nine-inch calibre" in result.answer
    assert result.draft == "The guns were of 12-inch calibre. [1]"


def test_a_model_failure_in_the_second_look_only_ends_the_look(library: Library) -> None:
    llm = ScriptedLLM(["I don't know.", ModelError("the runtime stopped"), "nine-inch"])
    result = _ask(library, llm)
    assert len(llm.calls) == 3 and result.error == ""
    assert result.note == "quoted_not_answered" and "nine-inch calibre" in result.answer


def test_no_second_look_when_the_first_answer_is_shown_or_it_is_off(library: Library) -> None:
    llm = ScriptedLLM([ANSWER])
    assert _ask(library, llm).answer == ANSWER and len(llm.calls) == 1
    library.rag.second_look = False
    llm = ScriptedLLM(["I don't know.", "nine-inch"])
    result = _ask(library, llm)
    assert len(llm.calls) == 2 and result.note == "quoted_not_answered"


def test_a_second_reading_the_model_does_not_confirm_is_not_shown(library: Library) -> None:
    # Made to read one passage, the model answered from it what the question does not ask
    # (its passage says it: the checks let it through).
    oxen = "It took ten yoke of oxen to haul each one to its place. [1]"
    llm = ScriptedLLM(["I don't know.", oxen, "No.", "NONE"])
    result = _ask(library, llm)
    # Not confirmed; nor is the quote offered after it (the fourth call).
    assert len(llm.calls) == 4 and oxen.removesuffix(" [1]") in llm.calls[2][-1].content
    assert result.abstained and result.answer == NOT_FOUND_ANSWER


def test_stop_during_the_second_look_closes_its_stream(library: Library) -> None:
    llm = ScriptedLLM(["I don't know.", ANSWER + " It took ten yoke of oxen. [1]"], delay=0.05)
    llm.checks_answers = True
    library.set_llm(llm)

    async def run() -> str:
        stream = library.rag.ask_stream(QUESTION)
        task = asyncio.ensure_future(stream.__anext__())
        while len(llm.calls) < 2:  # the second look has begun
            await asyncio.sleep(0.01)
        task.cancel()  # as the window's Stop does
        with pytest.raises(asyncio.CancelledError):
            await task
        return stream.answer

    assert asyncio.run(run()) == ""  # nothing of the unconfirmed reading was shown
    assert len(llm.calls) == 2 and llm.closed_streams == 2


def test_dotted_initials_do_not_end_a_sentence() -> None:
    text = "It was introduced by R.A. Fisher in 1936. [1] J.R.R. Tolkien wrote it. [2]"
    assert split_answer(text) == [
        "It was introduced by R.A. Fisher in 1936. [1]",
        " J.R.R. Tolkien wrote it. [2]",
    ]
    # A single capital after a lower-case word still ends a sentence: "vitamin C. It".
    assert len(split_answer("It is rich in vitamin C. It is cheap. [1]")) == 2
    # Spaced initials are one name, wherever they stand: the marker goes after it (v36's
    # "published by the U. [1] S. Energy Information Administration [1]").
    text = "It was published by the U. S. Energy Information Administration. [1]"
    assert split_answer(text) == [text]


def test_a_pointer_goes_on_from_the_models_own_sentence(library: Library) -> None:
    llm = ScriptedLLM([f"{FRAME} [2].", " nine-inch calibre. [3]"])
    result = _ask(library, llm, goes_on=True)
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
    llm = ScriptedLLM([f"{FRAME} [2].", again, "I don't know.", "NONE"])
    result = _ask(library, llm, goes_on=True)
    assert len(llm.calls) == 4 and llm.calls[2][-1].role == "user"  # the second look
    assert result.abstained and "which is" not in result.answer
    # A value no passage holds is withheld like any other sentence.
    llm = ScriptedLLM([f"{FRAME} [2].", " twelve-inch calibre. [1]", "I don't know.", "NONE"])
    result = _ask(library, llm, goes_on=True)
    assert result.abstained and "twelve-inch" not in result.answer
    assert llm.calls[1][-1].content == FRAME and result.draft == f"{FRAME} [2]."


def test_a_model_that_cannot_go_on_is_not_asked_to(library: Library) -> None:
    # A server's model answers anew after an assistant message: it gets the second look.
    llm = ScriptedLLM([f"{FRAME} [2].", "The guns were of nine-inch calibre. [1]", "Yes."])
    result = _ask(library, llm)
    assert result.note == "second_look" and "nine-inch calibre" in result.answer
    assert all(call[-1].role == "user" for call in llm.calls)


def test_a_second_look_that_points_goes_on_too(library: Library) -> None:
    llm = ScriptedLLM(["I don't know.", f"{FRAME} [1].", " nine-inch calibre. [1]", "Yes."])
    result = _ask(library, llm, goes_on=True)
    assert result.note == "second_look"
    assert result.answer == f"{FRAME} nine-inch calibre. [1]"
    # It went on from the reading of the first passage alone, then confirmed it.
    one, again = llm.calls[1], llm.calls[2]
    assert again[:-1] == one and again[-1].content == FRAME
    assert "nine-inch calibre" in llm.calls[3][-1].content


def test_a_second_look_that_points_at_its_passage_has_it_quoted(library: Library) -> None:
    # The first reading pointed at passage 2; made to read passage 1 alone, the model
    # pointed at it: both are favoured in the quote, and passage 1's sentence is the
    # better one ("Detect cycles in TreeObject.insert_child (#3964)" for "Which pull
    # request added cycle detection …", where the first reading had pointed at another
    # release's entry).
    question = "What calibre were the guns planted by the division?"
    llm = ScriptedLLM(["[2]", "[1]", "nine-inch"])
    result = _ask(library, llm, question)
    assert result.sources[1].content.startswith("Small guns")  # what [2] pointed at
    assert result.note == "quoted_not_answered" and result.extractive
    assert "nine-inch calibre" in result.answer and "Small guns" not in result.answer


def test_a_pointer_at_the_row_the_question_names_has_that_row_quoted(tmp_path: Path) -> None:
    # Made to read the table of contents alone, the model wrote "Item 1A is a section in
    # the table of contents" (held-out v28); the row it pointed at says what Item 1A is.
    rows = "\n".join(f"| Item {n}. | {title} | {page} |" for n, title, page in ITEMS)
    lib = Library.open(tmp_path / "10k.sqlite", embedder=FakeEmbedder())
    try:
        contents = f"# Table of contents\n\n| Item | Title | Page |\n| --- | --- | --- |\n{rows}\n"
        lib.pipeline.ingest_text(contents, source="10k.md", fmt="md")
        lib.pipeline.ingest_text("Item 1A of the contract was signed.", source="other.txt")
        llm = ScriptedLLM(["Item 1A is [1].", "Risk Factors"])
        llm.focus_words = 20  # a small model: the long table is cut to the named row
        # Nor made to go on from its pointer ("Item 2 is located on page 9", v30).
        result = _ask(lib, llm, "In the table of contents, what is Item 1A?", goes_on=True)
        assert result.sources[0].metadata.get("named") is True
        assert "Risk Factors" in result.answer and "Business" not in result.answer
        assert result.note == "quoted_not_answered" and len(llm.calls) == 2
        assert "Risk Factors" in llm.calls[1][-1].content  # the quote, confirmed by copying
    finally:
        lib.close()
