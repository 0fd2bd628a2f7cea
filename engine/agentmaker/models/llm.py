"""The language-model port: chat messages in, text (whole or streamed) out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ChatMessage:
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


class LLMClient(ABC):
    """A chat language model. Primitive: :meth:`stream`; :meth:`complete` joins it."""

    #: Human-readable model name, shown in the app.
    name: str = "llm"
    #: The context window in tokens when the client knows it (a local model); None: unknown,
    #: and the prompt is sent as built (a server reports an overflow itself).
    context_window: int | None = None
    #: Tokens kept free for the answer inside :attr:`context_window`.
    answer_tokens: int = 512
    #: A small model whose answers are checked against their passages before they are
    #: shown, and which is not asked when no passage is close to the question
    #: (rag/answer/checked.py). Off for servers: a large model paraphrases more freely.
    checks_answers: bool = False
    #: Goes on from a last ``assistant`` message (the answer's beginning: "The default
    #: directory is") and keeps to the ``grammar`` given to :meth:`stream` (llama.cpp's
    #: GBNF). A server's client does neither: it ignores ``grammar``.
    continues_answers: bool = False

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int | None:
        """Tokens ``messages`` take as a prompt (the model's own tokenizer and chat
        template), or None when this client cannot tell."""
        return None

    @abstractmethod
    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        grammar: str | None = None,
    ) -> AsyncIterator[str]:
        """Yield the answer in pieces. Closing the iterator cancels the request.
        ``grammar`` constrains what a model that :attr:`continues_answers` writes."""

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """The whole answer as one string."""
        parts: list[str] = []
        stream = self.stream(messages, temperature=temperature, max_tokens=max_tokens)
        try:
            async for piece in stream:
                parts.append(piece)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        return "".join(parts)

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
