"""Earlier turns as chat messages for the answer prompt, within a token budget.

The newest turns matter most to a follow-up, so when the turns do not fit the budget
the oldest are dropped first. Earlier answers lose their ``[n]`` markers: those numbers
pointed at that turn's passages, and the model must cite only this turn's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentmaker.conversations.records import Turn
from agentmaker.models.llm import ChatMessage
from agentmaker.rag.chunking.tokens import count_tokens

#: Tokens of conversation history the answer prompt may carry by default: a few turns,
#: while leaving a small local model's context (2-4k tokens) to the passages.
HISTORY_TOKENS = 1024
_CITATION = re.compile(r"\s*\[\d+\]")


def history_messages(turns: Sequence[Turn], budget: int = HISTORY_TOKENS) -> list[ChatMessage]:
    """The turns as user/assistant message pairs, oldest first, at most ``budget`` tokens."""
    pairs: list[tuple[ChatMessage, ChatMessage]] = []
    used = 0
    for turn in reversed(turns):
        if not turn.answer.strip():
            continue
        answer = _CITATION.sub("", turn.answer).strip()
        cost = count_tokens(turn.question) + count_tokens(answer) + 8  # role overhead
        if used + cost > budget:
            break
        used += cost
        pairs.append((ChatMessage("user", turn.question), ChatMessage("assistant", answer)))
    return [message for pair in reversed(pairs) for message in pair]
