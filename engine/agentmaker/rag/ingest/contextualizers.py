"""Contextualizers add context to a chunk's *indexed* text only.

The source store keeps the clean chunk, which is what hits return; only the text the
indexes see is enriched, so a "Lodging" chunk that says "capped at 500 per night" can
still be found by "hotel lodging".
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence

from agentmaker.models.llm import ChatMessage, LLMClient
from agentmaker.rag.documents import Chunk, Document

log = logging.getLogger(__name__)


class Contextualizer(ABC):
    """Turns chunks into the texts that get indexed. Primitive: :meth:`acontextualize`."""

    #: Part of the ingest fingerprint: changing the contextualizer re-indexes documents.
    name: str = "contextualizer"

    @abstractmethod
    async def acontextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        """One indexed text per chunk."""

    def contextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        """Sync twin of :meth:`acontextualize`."""
        return asyncio.run(self.acontextualize(doc, chunks))


class HeadingContextualizer(Contextualizer):
    """Prepends the document title and the chunk's heading path. No model call."""

    name = "heading"

    def _text(self, doc: Document, chunk: Chunk) -> str:
        lead = [p for p in (doc.title, chunk.heading_path) if p and p not in chunk.content[:200]]
        return "\n".join([*lead, chunk.content]) if lead else chunk.content

    async def acontextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        return [self._text(doc, c) for c in chunks]

    def contextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        return [self._text(doc, c) for c in chunks]


class LLMContextualizer(Contextualizer):
    """Asks a language model for one sentence situating each chunk in its document."""

    name = "llm"
    PROMPT = (
        "Here is a document titled {title!r}, beginning:\n<document>\n{head}\n</document>\n"
        "Here is a passage from it:\n<passage>\n{passage}\n</passage>\n"
        "Write ONE short sentence that situates the passage within the document, to "
        "improve search retrieval of the passage. Answer with the sentence only."
    )

    def __init__(self, llm: LLMClient, *, head_chars: int = 3000, concurrency: int = 4) -> None:
        self.llm = llm
        self.head_chars = head_chars
        self.concurrency = concurrency

    async def acontextualize(self, doc: Document, chunks: Sequence[Chunk]) -> list[str]:
        limit = asyncio.Semaphore(self.concurrency)
        head = doc.content[: self.head_chars]

        async def one(chunk: Chunk) -> str:
            prompt = self.PROMPT.format(title=doc.title, head=head, passage=chunk.content)
            async with limit:
                try:
                    sentence = await self.llm.complete([ChatMessage("user", prompt)])
                except Exception as exc:  # a failed call leaves the chunk as it is
                    log.warning("contextualizer call failed for %s: %s", chunk.chunk_id, exc)
                    return chunk.content
            return f"{sentence.strip()}\n{chunk.content}"

        return list(await asyncio.gather(*(one(c) for c in chunks)))
