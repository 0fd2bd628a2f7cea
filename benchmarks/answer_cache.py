"""A language model whose answers are remembered by prompt, for re-scoring in seconds.

The answer-quality benchmark asks ~40 questions at 15–40 s each. Most changes to the
answer path happen after the model has written (the support check, the fallbacks), so
:class:`CachedLLM` keeps every completion (and its token count and llama.cpp timings)
in a JSON file keyed by the exact prompt, the model file and the sampling settings; only
a prompt that changed is generated again. The question block's fence
(``prompting.question_fence``, keyed by a per-process secret) is written as ``FENCE`` in
the key: it differs between processes and does not change what is asked. Benchmark-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from agentmaker.models.llm import ChatMessage, LLMClient

_FENCE = re.compile(r"QUESTION [0-9a-f]{8}")


class CachedLLM(LLMClient):
    """Wraps ``inner`` (a :class:`LlamaCppLLM`); a prompt seen before replays its answer."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.name = inner.name
        self.context_window = inner.context_window
        self.answer_tokens = inner.answer_tokens
        self.focus_words = getattr(inner, "focus_words", None)
        self.checks_answers = getattr(inner, "checks_answers", False)
        self.continues_answers = getattr(inner, "continues_answers", False)
        self.last_timings: dict[str, Any] = {}
        self.hits = self.misses = 0
        self._store: dict[str, Any] = {}
        if path.exists():
            self._store = json.loads(path.read_text(encoding="utf-8"))

    def _key(self, kind: str, messages: Sequence[ChatMessage], *extra: object) -> str:
        wire = [[m.role, _FENCE.sub("QUESTION FENCE", m.content)] for m in messages]
        settings = [self.inner.path.name, self.inner.temperature, self.inner.seed, *extra]
        raw = json.dumps([kind, settings, wire], ensure_ascii=False)
        return hashlib.sha256(raw.encode()).hexdigest()

    def _save(self) -> None:
        # Another run may have saved completions since this one loaded the file: keep
        # them (merged, then written beside and renamed, so no run reads half a file).
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            on_disk = json.loads(self.path.read_text(encoding="utf-8"))
            self._store = {**on_disk, **self._store}
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(self._store, ensure_ascii=False), encoding="utf-8")
        partial.replace(self.path)

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int | None:
        """The inner model's count, remembered (counting needs the model loaded)."""
        key = self._key("count", messages)
        if key not in self._store:
            self._store[key] = self.inner.count_tokens(messages)
            self._save()
        return int(self._store[key])

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        grammar: str | None = None,
    ) -> AsyncIterator[str]:
        """The remembered answer in one piece, or the inner model's, remembered."""
        # A grammar is part of the key only when there is one: the keys of the
        # completions remembered before grammars were passed stay as they were.
        extra = (grammar,) if grammar else ()
        key = self._key("chat", messages, temperature, max_tokens or self.answer_tokens, *extra)
        hit = self._store.get(key)
        if hit is not None:
            self.hits += 1
            self.last_timings = dict(hit["timings"])
            self.last_timings["cached"] = True
            yield hit["text"]
            return
        self.misses += 1
        parts: list[str] = []
        async for piece in self.inner.stream(
            messages, temperature=temperature, max_tokens=max_tokens, grammar=grammar
        ):
            parts.append(piece)
            yield piece
        # Only a whole answer is remembered (a stream closed early is not).
        self.last_timings = dict(self.inner.last_timings or {})
        self._store[key] = {"text": "".join(parts), "timings": self.last_timings}
        self._save()

    def close(self) -> None:
        """Close the inner model."""
        self.inner.close()
