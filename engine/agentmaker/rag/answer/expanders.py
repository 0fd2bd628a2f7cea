"""Chunk expanders: retrieve small, answer big ("small-to-big")."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agentmaker.retrieval.types import RetrievalResult

if TYPE_CHECKING:
    from agentmaker.rag.source_store import SourceStore


class ChunkExpander(ABC):
    """Turns retrieved hits into the passages handed to the model."""

    @abstractmethod
    def expand(
        self, hits: Sequence[RetrievalResult], source_store: SourceStore
    ) -> list[RetrievalResult]:
        """Expanded hits, best first."""


class NeighborWindowExpander(ChunkExpander):
    """Merges each hit with ``window`` chunks on each side (same document, by index).

    Windows that overlap an earlier (better) hit's window are merged into it rather than
    repeated, so no text reaches the model twice.
    """

    def __init__(self, window: int = 1) -> None:
        if window < 0:
            raise ValueError("window must be >= 0")
        self.window = window

    def expand(
        self, hits: Sequence[RetrievalResult], source_store: SourceStore
    ) -> list[RetrievalResult]:
        kept: list[tuple[str, int, int, RetrievalResult]] = []  # doc, first, last, hit
        for hit in hits:
            doc_id = hit.metadata.get("doc_id")
            index = hit.metadata.get("index")
            if doc_id is None or index is None:
                kept.append(("", -1, -1, hit))
                continue
            first, last = int(index) - self.window, int(index) + self.window
            for i, (d, f, la, h) in enumerate(kept):
                if d == doc_id and f <= last + 1 and first <= la + 1:
                    kept[i] = (d, min(f, first), max(la, last), h)
                    break
            else:
                kept.append((doc_id, first, last, hit))
        out = []
        for doc_id, first, last, hit in kept:
            if not doc_id:
                out.append(hit)
                continue
            chunks = source_store.neighbors(doc_id, max(first, 0), last)
            if not chunks:
                out.append(hit)
                continue
            meta = dict(hit.metadata)
            meta["window"] = [chunks[0].index, chunks[-1].index]
            meta["window_chunk_ids"] = [c.chunk_id for c in chunks]
            out.append(replace(hit, content="\n\n".join(c.content for c in chunks), metadata=meta))
        return out
