"""The context budget: which passages (and how much history) fit the model's context.

A prompt the runtime would truncate silently loses the question or half a passage
without anyone knowing. So before it is sent, the whole prompt (system prompt, numbered
passages, question, history, rendered with the model's own chat template) is counted
with the model's own tokenizer, and what does not fit ``limit`` (the context window
minus the tokens kept for the answer) is left out:

1. the oldest history turns, but only when the prompt without any passage is too long;
2. then passages are added in rank order while they fit; the first one that does not
   fit whole is trimmed to its leading whole sentences (never half a sentence), and the
   passages after it are dropped;
3. the kept passages are numbered 1..k again, so every ``[n]`` the model sees (and can
   cite) is the ``n`` of a kept :class:`SourceRef`.

Pure: counting and rendering are functions passed in, so this runs with any tokenizer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentmaker.errors import ContextTooLongError
from agentmaker.models.llm import ChatMessage, LLMClient
from agentmaker.rag.answer.prompting import SourceRef, build_messages, question_fence

#: ``count(messages)``: tokens the messages take as a prompt.
Counter = Callable[[Sequence[ChatMessage]], int]
#: ``render(sources, history)``: the messages sent for these passages and history.
Renderer = Callable[[Sequence[SourceRef], Sequence[ChatMessage]], list[ChatMessage]]

# A sentence ends at . ! ? (then a space) or at CJK full stops, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|\n+")


@dataclass
class FittedPrompt:
    """What fits: the messages to send and the passages they hold (numbered as sent)."""

    messages: list[ChatMessage]
    sources: list[SourceRef]
    tokens: int
    history: list[ChatMessage] = field(default_factory=list)
    dropped: int = 0  # passages left out whole
    trimmed: bool = False  # the last kept passage lost its tail
    history_dropped: int = 0  # oldest history messages left out


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentences (each keeps its own punctuation)."""
    return [part for part in _SENTENCE_END.split(text) if part and part.strip()]


def sentence_prefixes(text: str) -> list[str]:
    """``text`` up to the end of its 1st, 2nd, … sentence, as written: the line breaks
    stay, so a heading stays a line of its own (an extractive answer skips headings)."""
    ends = [m.start() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    prefixes: list[str] = []
    for end in ends:
        prefix = text[:end].rstrip()
        if prefix.strip() and (not prefixes or len(prefix) > len(prefixes[-1])):
            prefixes.append(prefix)
    return prefixes


def default_renderer(
    question: str, system_prompt: str | None = None, examples: Sequence[ChatMessage] = ()
) -> Renderer:
    """The standard grounded prompt, with the history placed before the question.

    One question fence for every rendering, so what was counted is what is sent."""
    fence = question_fence(question)

    def render(sources: Sequence[SourceRef], history: Sequence[ChatMessage]) -> list[ChatMessage]:
        return build_messages(
            question, sources, system_prompt, fence=fence, history=history, examples=examples
        )

    return render


def _numbered(sources: Sequence[SourceRef]) -> list[SourceRef]:
    return [dataclasses.replace(ref, n=i) for i, ref in enumerate(sources, start=1)]


def fit_prompt(
    question: str,
    sources: Sequence[SourceRef],
    *,
    count: Counter,
    limit: int,
    system_prompt: str | None = None,
    history: Sequence[ChatMessage] = (),
    render: Renderer | None = None,
) -> FittedPrompt:
    """The largest prompt of at most ``limit`` tokens (see the module docstring).

    Raises :class:`ContextTooLongError` when even the question alone does not fit.
    """
    render = render or default_renderer(question, system_prompt)
    kept_history = list(history)
    messages = render(_numbered(sources), kept_history)
    tokens = count(messages)
    if tokens <= limit:
        return FittedPrompt(messages, _numbered(sources), tokens, kept_history)

    # Without passages the prompt must fit; make room from the oldest history first.
    base = count(render([], kept_history))
    while base > limit and kept_history:
        kept_history.pop(0)
        base = count(render([], kept_history))
    if base > limit:
        raise ContextTooLongError(
            f"The question alone takes {base} tokens, more than the {limit} the model can "
            "read besides its answer. Ask a shorter question."
        )
    history_dropped = len(history) - len(kept_history)

    kept: list[SourceRef] = []
    trimmed = False
    tokens = base
    for ref in sources:
        candidate = _numbered([*kept, ref])
        used = count(render(candidate, kept_history))
        if used <= limit:
            kept, tokens = candidate, used
            continue
        part = _trim(ref, kept, kept_history, render, count, limit)
        if part is not None:
            kept, tokens = part
            trimmed = True
        break
    messages = render(kept, kept_history)
    return FittedPrompt(
        messages,
        kept,
        tokens,
        kept_history,
        dropped=len(sources) - len(kept),
        trimmed=trimmed,
        history_dropped=history_dropped,
    )


def _trim(
    ref: SourceRef,
    kept: list[SourceRef],
    history: list[ChatMessage],
    render: Renderer,
    count: Counter,
    limit: int,
) -> tuple[list[SourceRef], int] | None:
    """``ref`` cut to the most leading whole sentences that fit (binary search), or None
    when not even its first sentence fits."""
    prefixes = sentence_prefixes(ref.content)
    best: tuple[list[SourceRef], int] | None = None
    low, high = 1, len(prefixes) - 1  # all sentences did not fit
    while low <= high:
        mid = (low + high) // 2
        text = prefixes[mid - 1].strip()
        part = dataclasses.replace(ref, content=text, metadata={**ref.metadata, "trimmed": True})
        candidate = _numbered([*kept, part])
        used = count(render(candidate, history))
        if used <= limit:
            best = (candidate, used)
            low = mid + 1
        else:
            high = mid - 1
    return best


def fit_messages(
    llm: LLMClient,
    question: str,
    sources: Sequence[SourceRef],
    system_prompt: str | None = None,
    history: Sequence[ChatMessage] = (),
    examples: Sequence[ChatMessage] = (),
) -> tuple[list[ChatMessage], list[SourceRef]]:
    """The messages for ``llm`` and the passages they hold: fitted with
    :func:`fit_prompt` when the model knows its context window, else all of them.
    Worked ``examples`` are worth less than a passage or a turn of history: they stay
    only when everything fits whole beside them. Blocking (it tokenizes): call it from a
    worker thread in async code."""
    window = llm.context_window
    if window is None:
        render = default_renderer(question, system_prompt, examples)
        return render(sources, history), list(sources)

    def count(messages: Sequence[ChatMessage]) -> int:
        counted = llm.count_tokens(messages)
        # A client that knows its window but cannot count: UTF-8 bytes bound the tokens.
        return counted if counted is not None else sum(len(m.content.encode()) for m in messages)

    def fit(shown: Sequence[ChatMessage]) -> FittedPrompt:
        return fit_prompt(
            question,
            sources,
            count=count,
            limit=window - llm.answer_tokens,
            history=history,
            render=default_renderer(question, system_prompt, shown),
        )

    if examples:
        try:
            fitted = fit(examples)
        except ContextTooLongError:
            pass
        else:
            if not (fitted.dropped or fitted.trimmed or fitted.history_dropped):
                return fitted.messages, fitted.sources
    fitted = fit(())
    return fitted.messages, fitted.sources
