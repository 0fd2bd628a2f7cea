"""Grounded answers from the real tiny llama.cpp model: budget, citations, fallback."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest
from agentmaker.errors import ModelError
from agentmaker.library import Library
from agentmaker.models.llama_cpp import LlamaCppLLM
from agentmaker.models.llm import ChatMessage
from agentmaker.testing import FakeEmbedder, ScriptedLLM

# Long sections, so five passages do not fit a 512-token context with 128 for the answer.
SECTIONS = "\n\n".join(
    f"## Rule {i}\n"
    + " ".join(f"Rule {i} clause {j}: travellers must keep receipt {i}-{j}." for j in range(12))
    for i in range(1, 8)
)
POLICY = "# Travel Policy\n\n" + SECTIONS


class RecordingLlamaCpp(LlamaCppLLM):
    """The real model; remembers each prompt it was given."""

    prompts: list[list[ChatMessage]]

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        grammar: str | None = None,
    ) -> AsyncIterator[str]:
        self.prompts.append(list(messages))
        return super().stream(
            messages, temperature=temperature, max_tokens=max_tokens, grammar=grammar
        )


@pytest.fixture(scope="module")
def model(tiny_gguf: Path) -> Iterator[RecordingLlamaCpp]:
    llm = RecordingLlamaCpp(tiny_gguf, n_ctx=512, answer_tokens=128, threads=2, idle_unload_s=None)
    llm.prompts = []
    yield llm
    llm.close()


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    lib.pipeline.ingest_text(POLICY, source="policy.md", fmt="md")
    yield lib
    lib.close()


def test_the_prompt_fits_and_numbers_match_the_sources(
    library: Library, model: RecordingLlamaCpp
) -> None:
    library.set_llm(model)
    result = asyncio.run(library.rag.ask("Which receipt must travellers keep for rule 3?", top_k=5))
    prompt = model.prompts[0]  # the answer's (a quote the model confirms comes after)
    # Never more than the context minus the answer, counted by the model's tokenizer.
    assert model.count_tokens(prompt) <= 512 - 128
    shown = [int(n) for n in re.findall(r"<<<PASSAGE (\d+)", prompt[-1].content)]
    # Every source the model saw, the best one last (nearest the question).
    assert shown[::-1] == [s.n for s in result.sources] == list(range(1, len(result.sources) + 1))
    assert 1 <= len(result.sources) < 5  # some passages had to go
    for src in result.sources:
        assert src.content in prompt[-1].content  # the text the model saw, trimmed or whole
    # Any citation left in the answer points to a passage the model was given.
    assert {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)} <= {1, 2, 3, 4, 5}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)} <= {
        s.n for s in result.sources
    }
    # The model answered: as written, or (its answer not in its passages) with quotes.
    assert result.answer.strip() and not result.error
    assert not result.extractive or result.note.startswith("quoted_")


def test_invented_citations_are_removed_and_non_answers_marked(library: Library) -> None:
    library.set_llm(ScriptedLLM(["Keep receipt 3-1 [1] and [9]."]))
    result = asyncio.run(library.rag.ask("receipt rule 3", top_k=2))
    assert result.answer == "Keep receipt 3-1 [1] and."
    assert not result.abstained
    library.set_llm(ScriptedLLM(["I don't know."]))
    result = asyncio.run(library.rag.ask("what is the colour of the moon", top_k=2))
    assert result.abstained and result.sources  # shown with the passages looked at


def test_a_failing_model_falls_back_to_the_extractive_answer(library: Library) -> None:
    library.set_llm(ScriptedLLM([ModelError("the model server at 127.0.0.1:9 is down")]))
    result = asyncio.run(library.rag.ask("receipt rule 3", top_k=2))
    assert result.extractive and result.sources
    assert "server at 127.0.0.1:9 is down" in result.error
    assert "[1]" in result.answer  # the quoted passages, cited


def test_a_crash_of_the_model_process_falls_back_and_the_library_survives(
    library: Library, tiny_gguf: Path
) -> None:
    """An out-of-memory kill of llama.cpp mid-answer: quotes + the error, and the next
    question is answered by the model again (a fresh process)."""
    import os
    import signal

    from agentmaker.models.llama_cpp_runtime import ChildRuntime

    def kill_while_reading(processed: int, total: int) -> None:
        runtime = llm._runtime
        if llm.on_progress is not None and isinstance(runtime, ChildRuntime):
            llm.on_progress = None
            os.kill(runtime.process.pid or 0, signal.SIGKILL)

    llm = LlamaCppLLM(
        tiny_gguf,
        n_ctx=512,
        answer_tokens=96,
        threads=2,
        idle_unload_s=None,
        on_progress=kill_while_reading,
    )
    try:
        library.set_llm(llm)
        result = asyncio.run(library.rag.ask("Which receipt must travellers keep for rule 3?"))
        assert result.extractive and result.sources
        assert "stopped by the system" in result.error
        assert "3-" in result.answer  # the quoted clause about rule 3's receipts
        again = asyncio.run(library.rag.ask("Which receipt must travellers keep for rule 3?"))
        # The model was asked again and answered (its answer checked against its passages).
        assert again.answer.strip() and not again.error
        assert not again.extractive or again.note.startswith("quoted_")
        assert library.source_store.list_documents()  # the library is intact
    finally:
        llm.close()


def test_an_answer_of_bare_markers_is_replaced_by_quotes(library: Library) -> None:
    """A small model sometimes answers "[1]" alone: nothing is shown until a word comes,
    and an answer without any is replaced by the passages' best sentences, with a note."""
    library.set_llm(ScriptedLLM(["[1] [2]"]))
    result = asyncio.run(library.rag.ask("Which receipt must travellers keep for rule 3?"))
    assert result.extractive and "3-" in result.answer and "[1]" in result.answer
    assert "wrote no answer (only [1] [2])" in result.error
    library.set_llm(ScriptedLLM(["[1] Keep receipt 3-1."]))
    result = asyncio.run(library.rag.ask("Which receipt must travellers keep for rule 3?"))
    assert result.answer == "[1] Keep receipt 3-1." and not result.extractive
