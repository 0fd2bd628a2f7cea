"""Passages cut to what bears on the question, for a small model on a laptop's CPU.

A model on this computer reads the prompt at about 50 tokens a second (see
benchmarks/REPORT.md), so five whole passages cost half a minute before the first word,
and a small model loses the fact among them. :func:`focus_passages` keeps, of each long
passage, the sentences that match the question best (scored as the extractive answer
scores them), each with the sentence before and after it for context, in reading order,
up to a word budget; left-out stretches are marked with "…". A passage that matches no
word of the question keeps its opening sentences (it was found by meaning). The result
is what the model sees and cites, so ``[n]`` still points at the text it read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from agentmaker.rag.answer.extractive import ScoredSentence, score_sentences
from agentmaker.rag.answer.prompting import SourceRef

#: Words kept per passage when the model asks for focused passages.
DEFAULT_FOCUS_WORDS = 110
GAP = " … "


def focus_passages(
    question: str, sources: Sequence[SourceRef], *, max_words: int = DEFAULT_FOCUS_WORDS
) -> list[SourceRef]:
    """``sources`` with each passage longer than ``max_words`` cut to its sentences that
    bear on ``question`` (marked ``metadata["focused"]``); shorter ones unchanged."""
    scored = score_sentences(question, [s.content for s in sources])
    by_passage: dict[int, list[ScoredSentence]] = {}
    for sentence in scored:
        by_passage.setdefault(sentence.passage, []).append(sentence)
    out = []
    for number, ref in enumerate(sources, start=1):
        sentences = by_passage.get(number, [])
        if sum(s.words for s in sentences) <= max_words or not sentences:
            out.append(ref)
            continue
        text = _focused_text(sentences, max_words)
        out.append(
            dataclasses.replace(ref, content=text, metadata={**ref.metadata, "focused": True})
        )
    return out


def _focused_text(sentences: list[ScoredSentence], max_words: int) -> str:
    chosen: set[int] = set()
    words = 0
    ranked = sorted((s for s in sentences if s.score > 0), key=lambda s: (-s.score, s.position))
    for best in ranked or sentences[:1]:
        # The sentence, then its neighbours for context (what "it" or "this" refers to).
        for index in (best.position, best.position - 1, best.position + 1):
            if 0 <= index < len(sentences) and index not in chosen:
                cost = sentences[index].words
                if words + cost > max_words and chosen:
                    break
                chosen.add(index)
                words += cost
        if words >= max_words:
            break
    if not ranked:  # found by meaning alone: its opening, as far as the budget goes
        for index in range(len(sentences)):
            if words + sentences[index].words > max_words:
                break
            chosen.add(index)
            words += sentences[index].words
    parts: list[str] = []
    previous = -1
    for index in sorted(chosen):
        if parts and index != previous + 1:
            parts.append(GAP.strip())
        parts.append(sentences[index].text)
        previous = index
    text = " ".join(parts)
    if min(chosen) > 0:
        text = GAP.lstrip() + text
    if max(chosen) < len(sentences) - 1:
        text = text + GAP.rstrip()
    return text
