"""FakeEmbedder, FakeReranker and ScriptedLLM."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncIterator, Sequence

import numpy as np

from agentmaker.errors import ModelError
from agentmaker.models.llm import ChatMessage, LLMClient
from agentmaker.retrieval.ports import Embedder, ModelFingerprint, Reranker
from agentmaker.retrieval.types import RetrievalResult

_WORD = re.compile(r"\w+", re.UNICODE)


def _stem(word: str) -> str:
    # A crude suffix strip so "meals" and "meal" land on the same dimensions.
    for suffix in ("ing", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _tokens(text: str) -> list[str]:
    words = [_stem(w) for w in _WORD.findall(text.lower())]
    grams: list[str] = []
    for w in words:
        if any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in w):
            grams.extend(w[i : i + 2] for i in range(max(1, len(w) - 1)))
        else:
            grams.append(w)
    return grams


class FakeEmbedder(Embedder):
    """Hashing-trick bag-of-words vectors: texts that share words get similar vectors.

    Deterministic across runs and machines. ``calls`` counts batches and
    ``texts_embedded`` counts texts, so tests can assert that nothing was re-embedded.
    """

    def __init__(self, dimension: int = 64, *, name: str = "fake-embedder") -> None:
        self._fingerprint = ModelFingerprint(name=name, dimension=dimension, weights="v1")
        self.calls = 0
        self.texts_embedded = 0
        self.fail_next: Exception | None = None

    @property
    def fingerprint(self) -> ModelFingerprint:
        return self._fingerprint

    def _vector(self, text: str) -> np.ndarray:
        dim = self._fingerprint.dimension
        vec = np.zeros(dim, dtype=np.float32)
        for token in _tokens(text):
            digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
            h = int.from_bytes(digest, "little")
            vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
            vec[(h >> 8) % dim] += 0.5
        if not vec.any():
            vec[0] = 1.0
        return vec / np.linalg.norm(vec)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self._fingerprint.dimension), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])


class FakeReranker(Reranker):
    """Scores candidates by how many query words they contain (then by prior order)."""

    def __init__(self) -> None:
        self.calls = 0

    def rerank(
        self, query: str, candidates: Sequence[RetrievalResult], *, top_k: int
    ) -> list[RetrievalResult]:
        self.calls += 1
        words = set(_tokens(query))
        scored = []
        for position, item in enumerate(candidates):
            overlap = len(words & set(_tokens(item.content)))
            scored.append((overlap, -position, item))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        out = []
        for overlap, _, item in scored[:top_k]:
            item.metadata["rerank_score"] = float(overlap)
            item.score = float(overlap)
            out.append(item)
        return out


class ScriptedLLM(LLMClient):
    """Replays scripted replies in order and records every request in ``calls``.

    A reply may be a string (streamed in word-sized pieces) or an exception (raised
    when that call is made). ``delay`` seconds pass between streamed pieces.
    """

    name = "scripted"

    def __init__(self, replies: Sequence[str | BaseException], *, delay: float = 0.0) -> None:
        self.replies = list(replies)
        self.calls: list[list[ChatMessage]] = []
        #: The ``grammar`` of each call (None: none).
        self.grammars: list[str | None] = []
        self.delay = delay
        self.closed_streams = 0
        #: Pieces streamed, over all calls.
        self.pieces_sent = 0

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        grammar: str | None = None,
    ) -> AsyncIterator[str]:
        self.calls.append(list(messages))
        self.grammars.append(grammar)
        if not self.replies:
            raise ModelError("ScriptedLLM has no more scripted replies.")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        try:
            for piece in re.findall(r"\S+\s*|\s+", reply):
                if self.delay:
                    await asyncio.sleep(self.delay)
                self.pieces_sent += 1
                yield piece
        finally:
            self.closed_streams += 1
