"""The answer gate's "close by meaning" level is the embedder's own.

Cosines differ in scale from model to model (multilingual-e5 rates unrelated text 0.8 and
more, MiniLM 0.1-0.4), so a level tuned for one model opens the gate for everything with
the other: the retriever asks its embedder (``Embedder.related_similarity``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.models.local_embedder import (
    E5_RELATED_SIMILARITY,
    E5_SMALL,
    MINILM,
    LocalEmbedder,
)
from agentmaker.rag.answer.checked import GATE_SIMILARITY, NOT_FOUND_ANSWER
from agentmaker.rag.answer.prompting import AskResult
from agentmaker.testing import FakeEmbedder, ScriptedLLM

TEXT = (
    "# Returns\n\nItems bought in the shop may be returned within thirty days. "
    "Bring the receipt and the original packaging."
)
#: None of its words is in the text: only the embedding can open the gate.
QUESTION = "Which painter decorated the chapel ceiling?"


class LeveledEmbedder(FakeEmbedder):
    def __init__(self, level: float) -> None:
        super().__init__()
        self.level = level

    @property
    def related_similarity(self) -> float:
        return self.level


def ask_checked(
    library: Library, question: str, replies: list[str]
) -> tuple[ScriptedLLM, AskResult]:
    """``question`` put to ``library`` with a scripted model whose answers are checked,
    as the built-in model's are."""
    llm = ScriptedLLM(replies)
    llm.checks_answers = True
    library.set_llm(llm)
    return llm, asyncio.run(library.rag.ask(question))


def _ask(tmp_path: Path, level: float) -> tuple[ScriptedLLM, AskResult]:
    library = Library.open(tmp_path / f"shop-{level}.sqlite", embedder=LeveledEmbedder(level))
    try:
        library.pipeline.ingest_text(TEXT, source="returns.md", fmt="md")
        return ask_checked(library, QUESTION, ["Items may be returned within thirty days. [1]"])
    finally:
        library.close()


def test_a_passage_as_similar_as_the_embedders_level_opens_the_gate(tmp_path: Path) -> None:
    llm, result = _ask(tmp_path, level=-1.0)  # every cosine reaches it
    assert len(llm.calls) >= 1  # asked (its answer, off the question, is then withheld)
    assert result.note != "not_found" and "thirty days" in result.draft


def test_below_the_embedders_level_the_model_is_not_asked(tmp_path: Path) -> None:
    llm, result = _ask(tmp_path, level=1.01)  # no cosine reaches it
    assert llm.calls == []
    assert result.note == "not_found" and result.answer == NOT_FOUND_ANSWER
    assert result.sources and "thirty days" in result.sources[0].content


def test_each_local_model_has_its_own_level() -> None:
    assert LocalEmbedder(model=MINILM).related_similarity == GATE_SIMILARITY
    e5 = LocalEmbedder(model=E5_SMALL).related_similarity
    assert e5 == E5_RELATED_SIMILARITY and 0.8 < e5 < 0.95  # e5's narrow band
    assert FakeEmbedder().related_similarity == GATE_SIMILARITY  # the port's default


@pytest.mark.slow
def test_with_e5_an_unrelated_question_closes_the_gate_and_a_related_one_opens_it(
    tmp_path: Path,
) -> None:
    """The real model: at MiniLM's level (0.45) every e5 cosine would open the gate."""
    library = Library.open(tmp_path / "e5.sqlite", embedder=LocalEmbedder(model=E5_SMALL))
    try:
        library.pipeline.ingest_text(TEXT, source="returns.md", fmt="md")
        llm = ScriptedLLM(["Items may be returned within thirty days. [1]"] * 2)
        llm.checks_answers = True
        library.set_llm(llm)
        unrelated = asyncio.run(library.rag.ask(QUESTION))
        assert llm.calls == [] and unrelated.note == "not_found"
        assert unrelated.sources[0].metadata["vector_similarity"] > GATE_SIMILARITY
        related = asyncio.run(library.rag.ask("How long do I have to bring an item back?"))
        assert len(llm.calls) == 1 and "thirty days" in related.answer
    finally:
        library.close()
