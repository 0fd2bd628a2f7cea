"""The context budget: drop and trim passages by whole sentences; [n] as the model saw."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from agentmaker.errors import ContextTooLongError
from agentmaker.models.llm import ChatMessage
from agentmaker.rag.answer.budget import fit_prompt, split_sentences
from agentmaker.rag.answer.prompting import SourceRef, build_messages


def words(messages: Sequence[ChatMessage]) -> int:
    """A stand-in tokenizer: one token per word."""
    return sum(len(m.content.split()) for m in messages)


def refs(*texts: str) -> list[SourceRef]:
    return [SourceRef(n=i, content=t, chunk_id=f"c{i}") for i, t in enumerate(texts, start=1)]


LONG = " ".join(f"Sentence number {i} says something." for i in range(40))


def test_everything_fits_unchanged() -> None:
    fitted = fit_prompt("What?", refs("One.", "Two."), count=words, limit=10_000)
    assert [s.n for s in fitted.sources] == [1, 2]
    assert fitted.dropped == 0 and not fitted.trimmed
    assert "<<<PASSAGE 2>>>" in fitted.messages[-1].content


def test_the_passage_that_does_not_fit_is_cut_at_a_sentence_and_the_rest_dropped() -> None:
    sources = refs("Short first passage.", LONG, "A third passage never seen.")
    one = words(fit_prompt("What?", sources[:1], count=words, limit=10_000).messages)
    limit = one + 40  # the first passage and part of the second
    fitted = fit_prompt("What?", sources, count=words, limit=limit)
    assert fitted.tokens <= limit
    assert words(fitted.messages) == fitted.tokens
    assert [s.chunk_id for s in fitted.sources] == ["c1", "c2"]
    assert fitted.dropped == 1 and fitted.trimmed
    second = fitted.sources[1].content
    assert second.endswith("says something.")  # whole sentences only
    assert LONG.startswith(second) and len(second) < len(LONG)
    assert fitted.sources[1].metadata["trimmed"] is True
    text = fitted.messages[-1].content
    # Numbered by rank, the best one last: nearest the question.
    assert re.findall(r"<<<PASSAGE (\d+)>>>", text) == ["2", "1"]
    assert "third passage" not in text


def test_numbering_matches_what_the_model_saw_after_a_drop() -> None:
    sources = refs("Alpha passage here.", LONG)
    one = words(fit_prompt("Q?", sources[:1], count=words, limit=10_000).messages)
    fitted = fit_prompt("Q?", sources, count=words, limit=one + 2)  # no sentence of 2 fits
    assert [(s.n, s.chunk_id) for s in fitted.sources] == [(1, "c1")]
    assert fitted.dropped == 1 and not fitted.trimmed


def test_chinese_passages_are_cut_at_full_stops() -> None:
    assert split_sentences("第一句。第二句！第三句？") == ["第一句。", "第二句！", "第三句？"]

    def chars(messages: Sequence[ChatMessage]) -> int:
        return sum(len(m.content) for m in messages)

    text = "这是第一句话。" * 30
    base = chars(fit_prompt("问题？", [], count=chars, limit=100_000).messages)
    fitted = fit_prompt("问题？", refs(text), count=chars, limit=base + 50)
    assert fitted.trimmed and fitted.sources[0].content.endswith("。")


def test_oldest_history_goes_first_and_a_too_long_question_is_an_error() -> None:
    history = [
        ChatMessage("user", "old question " * 30),
        ChatMessage("assistant", "old answer " * 30),
        ChatMessage("user", "recent"),
    ]
    base = words(fit_prompt("Q?", [], count=words, limit=10_000).messages)
    fitted = fit_prompt("Q?", refs("Passage."), count=words, limit=base + 10, history=history)
    assert fitted.history == [history[-1]] and fitted.history_dropped == 2
    assert fitted.messages[1] == history[-1]
    with pytest.raises(ContextTooLongError, match="Ask a shorter question"):
        fit_prompt("a very long question " * 50, refs("P."), count=words, limit=20)


def test_the_best_passage_is_nearest_the_question() -> None:
    text = build_messages("Q?", refs("Best.", "Second.", "Third."), fence="f")[-1].content
    at = [text.index(f"<<<PASSAGE {n}>>>") for n in (3, 2, 1)]
    assert at == sorted(at) and at[-1] < text.index("<<<QUESTION f>>>")
    assert text.split("<<<PASSAGE 1>>>\n")[1].startswith("Best.\n<<<END PASSAGE 1>>>")
