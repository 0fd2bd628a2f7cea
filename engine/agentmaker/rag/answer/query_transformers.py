"""Query transformers: rewrite a question into several searches, fused by RRF.

Both are off by default (each adds a model call per question). A model failure falls
back to the original query instead of failing the search.
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod

from agentmaker.models.llm import ChatMessage, LLMClient

log = logging.getLogger(__name__)


class QueryTransformer(ABC):
    """Turns one query into the list of queries to search (the original included)."""

    @abstractmethod
    async def atransform(self, query: str) -> list[str]:
        """The queries to search; must never raise for a model failure."""


class MultiQueryExpander(QueryTransformer):
    """Multi-query expansion: the model rephrases the question ``n`` ways."""

    PROMPT = (
        "Rewrite the following search question in {n} different ways that use different "
        "words, to help find relevant passages. One rewrite per line, no numbering, no "
        "commentary.\nQuestion: {query}"
    )

    def __init__(self, llm: LLMClient, n: int = 3) -> None:
        self.llm = llm
        self.n = n

    async def atransform(self, query: str) -> list[str]:
        try:
            reply = await self.llm.complete(
                [ChatMessage("user", self.PROMPT.format(n=self.n, query=query))]
            )
        except Exception as exc:
            log.warning("multi-query expansion failed, searching the original only: %s", exc)
            return [query]
        variants = []
        for line in reply.splitlines():
            line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip().strip('"')
            if line and line.lower() != query.lower():
                variants.append(line)
        return [query, *list(dict.fromkeys(variants))[: self.n]]


class HyDETransformer(QueryTransformer):
    """Hypothetical document embeddings: search with a drafted answer as well."""

    PROMPT = (
        "Write a short passage (3-4 sentences) that would answer the question below, as "
        "it might appear in a document. Do not mention that it is hypothetical.\n"
        "Question: {query}"
    )

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    async def atransform(self, query: str) -> list[str]:
        try:
            draft = await self.llm.complete([ChatMessage("user", self.PROMPT.format(query=query))])
        except Exception as exc:
            log.warning("HyDE failed, searching the original only: %s", exc)
            return [query]
        draft = draft.strip()
        return [query, draft] if draft else [query]
