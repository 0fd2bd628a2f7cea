"""Reciprocal rank fusion (RRF): merge ranked lists by rank, not by raw score."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from agentmaker.retrieval.ports import FusionStrategy
from agentmaker.retrieval.types import RetrievalResult

#: Metadata keys that record where each leg ranked a fused item, by list position.
LEG_RANK_KEYS: tuple[str, ...] = ("vector_rank", "keyword_rank")


def _key(item: RetrievalResult) -> str:
    return f"id:{item.id}" if item.id else f"content:{item.content}"


def reciprocal_rank_fusion(
    lists: Sequence[Sequence[RetrievalResult]],
    top_k: int = 10,
    k: int = 60,
    *,
    rank_keys: Sequence[str | None] | None = None,
    weights: Sequence[float] | None = None,
) -> list[RetrievalResult]:
    """Fuse ranked lists: an item at rank r (from 1) adds ``1 / (k + r)`` to its score.

    Items align by ``id`` (by ``content`` when the id is empty). Each fused result is a
    copy whose ``score`` and ``metadata["rrf_score"]`` hold the fused score. When
    ``rank_keys`` is given, ``metadata[rank_keys[i]]`` records the item's rank in list i.
    ``weights`` (one per list) makes list i add ``weights[i] / (k + r)`` instead;
    omitted, every list weighs 1. Ties keep the order of first appearance.
    """
    if weights is not None and len(weights) != len(lists):
        raise ValueError(f"{len(weights)} weights given for {len(lists)} lists.")
    scores: dict[str, float] = {}
    fused: dict[str, RetrievalResult] = {}
    for list_no, ranked in enumerate(lists):
        rank_key = rank_keys[list_no] if rank_keys and list_no < len(rank_keys) else None
        weight = 1.0 if weights is None else float(weights[list_no])
        seen_here: set[str] = set()
        for rank, item in enumerate(ranked, start=1):
            key = _key(item)
            if key in seen_here:  # a list that repeats an item counts it once
                continue
            seen_here.add(key)
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
            if key not in fused:
                fused[key] = copy.copy(item)
                fused[key].metadata = dict(item.metadata)
            elif fused[key].embedding is None and item.embedding is not None:
                fused[key].embedding = item.embedding
            if rank_key:
                fused[key].metadata[rank_key] = rank
    order = sorted(fused, key=lambda key: scores[key], reverse=True)
    out = []
    for key in order[:top_k]:
        item = fused[key]
        item.score = scores[key]
        item.metadata["rrf_score"] = scores[key]
        out.append(item)
    return out


class RRFFusion(FusionStrategy):
    """The default fusion battery: :func:`reciprocal_rank_fusion` with a fixed ``k``
    (and optional per-list ``weights``, e.g. ``(dense, keyword)`` for the hybrid)."""

    def __init__(
        self,
        k: int = 60,
        *,
        rank_keys: Sequence[str | None] | None = None,
        weights: Sequence[float] | None = None,
    ) -> None:
        self.k = k
        self.rank_keys = rank_keys
        self.weights = tuple(weights) if weights is not None else None

    def fuse(
        self, lists: Sequence[Sequence[RetrievalResult]], *, top_k: int
    ) -> list[RetrievalResult]:
        return reciprocal_rank_fusion(
            lists, top_k=top_k, k=self.k, rank_keys=self.rank_keys, weights=self.weights
        )
