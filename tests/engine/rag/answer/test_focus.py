"""Passages cut to what bears on the question, for a small local model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.focus import focus_passages
from agentmaker.rag.answer.prompting import SourceRef
from agentmaker.testing import FakeEmbedder, ScriptedLLM

FILLER = [
    f"The committee met on day {i} and discussed the weather, the roads and the harvest."
    for i in range(1, 13)
]
FACT = "Each large siege gun took ten yoke of oxen to haul to its place."
LONG = " ".join(
    [*FILLER[:6], "The guns arrived in June.", FACT, "They fired at dawn.", *FILLER[6:]]
)


def _words(text: str) -> int:
    return len(text.split())


def test_a_long_passage_keeps_the_matching_sentence_with_its_neighbours() -> None:
    short = SourceRef(2, "Oxen are slow. They pull carts.")
    [focused, same] = focus_passages(
        "How many yoke of oxen did it take to haul each siege gun?",
        [SourceRef(1, LONG, title="diary.txt"), short],
        max_words=40,
    )
    assert f"The guns arrived in June. {FACT} They fired at dawn." in focused.content
    assert focused.content.startswith("… ") and focused.content.endswith(" …")
    assert _words(focused.content) <= 40 + 2  # the budget (and the two gap marks)
    assert focused.metadata["focused"] is True
    assert (focused.n, focused.title) == (1, "diary.txt")  # still cited as [1]
    assert same is short  # already short: untouched


def test_a_passage_found_by_meaning_alone_keeps_its_opening() -> None:
    [focused] = focus_passages("Qu'est-ce que c'est ?", [SourceRef(1, LONG)], max_words=30)
    assert focused.content.startswith(FILLER[0])
    assert FACT not in focused.content and focused.content.endswith(" …")


def test_chinese_passages_are_cut_by_characters() -> None:
    text = "".join(f"第{i}天，委员会讨论了天气和道路。" for i in range(1, 30))
    text += "大兴机场年旅客吞吐量突破2500万人次。" + "会议结束了。" * 20
    [focused] = focus_passages("大兴机场旅客吞吐量", [SourceRef(1, text)], max_words=40)
    assert "大兴机场年旅客吞吐量突破2500万人次。" in focused.content
    assert len(focused.content) < len(text) / 3


def test_a_model_that_asks_for_focus_sees_and_cites_the_focused_passage(tmp_path: Path) -> None:
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    try:
        library.pipeline.ingest_text(LONG, source="diary.txt", fmt="txt")
        llm = ScriptedLLM(["Ten yoke of oxen [1]."])
        llm.focus_words = 40  # type: ignore[attr-defined]
        library.set_llm(llm)
        result = asyncio.run(library.rag.ask("How many yoke of oxen hauled each siege gun?"))
        prompt = llm.calls[-1][-1].content
        assert FACT in prompt and FILLER[0] not in prompt
        assert result.sources[0].content in prompt  # the passage shown is the one read
        assert result.answer == "Ten yoke of oxen [1]."
    finally:
        library.close()
