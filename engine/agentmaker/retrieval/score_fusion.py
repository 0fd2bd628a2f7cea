"""Score fusion: a weighted sum of each leg's (normalised) scores, a convex combination.

RRF looks only at ranks, so it cannot tell a keyword hit that scores far above the
rest from one that barely edges ahead, nor a close semantic match from a distant one.
A weighted sum of scores keeps that information. Each list's scores are normalised
per list: ``"max"`` divides by the list's best score (for BM25, whose scale changes
from query to query), ``"minmax"`` rescales to [0, 1], and ``"none"`` keeps them (for
cosine similarities, which already share one scale: stretching them would turn "no
passage is semantically close" into a confident 1.0). An item's fused score is
``sum(weights[i] * normalised_i)``.

An item missing from a list of ``top_k`` items (a leg cut at the candidate pool) gets
that list's lowest normalised score: it ranked somewhere below. A list shorter than
``top_k`` returned everything that matched, so an item missing from it gets 0.

The defaults, weights (0.7, 0.3) with ``("none", "max")`` for ``[dense, keyword]``, were
chosen on BEIR SciFact (train) with the bundled all-MiniLM-L6-v2 and FTS5 bm25, tuned
on half the queries and confirmed on the other half: see ``benchmarks/REPORT.md``
(nDCG@10 0.741 against 0.716 for RRF). Another embedder may want other weights.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Literal

from agentmaker.errors import ConfigurationError
from agentmaker.retrieval.ports import FusionStrategy
from agentmaker.retrieval.types import RetrievalResult

Normalization = Literal["max", "minmax", "none"]
_METHODS = ("max", "minmax", "none")


def _key(item: RetrievalResult) -> str:
    return f"id:{item.id}" if item.id else f"content:{item.content}"


def _normalised(scores: list[float], method: Normalization) -> list[float]:
    if not scores:
        return []
    if method == "none":
        return scores
    high, low = max(scores), min(scores)
    if method == "max" and high > 0 and low >= 0:
        return [s / high for s in scores]
    # min-max (also the fallback when "max" meets non-positive scores)
    if high > low:
        return [(s - low) / (high - low) for s in scores]
    return [1.0 for _ in scores]


def score_fusion(
    lists: Sequence[Sequence[RetrievalResult]],
    top_k: int = 10,
    *,
    weights: Sequence[float] | None = None,
    normalization: Normalization | Sequence[Normalization] = "max",
    rank_keys: Sequence[str | None] | None = None,
) -> list[RetrievalResult]:
    """Fuse ranked lists by a weighted sum of normalised scores; best ``top_k`` first.

    Each list is expected to hold at most ``top_k`` items (``HybridRetriever`` asks each
    leg for ``candidate_pool`` items and fuses with ``top_k=candidate_pool``): a full list
    was cut, a shorter one is complete (see the module docstring for missing items).
    Items align by ``id`` (by ``content`` when the id is empty); a list that repeats an
    item counts its first (best) occurrence. Each fused result is a copy whose ``score``
    and ``metadata["fused_score"]`` hold the fused score; with ``rank_keys``,
    ``metadata[rank_keys[i]]`` records the item's rank in list i. Ties keep the order
    of first appearance.
    """
    weights = [1.0] * len(lists) if weights is None else [float(w) for w in weights]
    if len(weights) != len(lists):
        raise ConfigurationError(f"{len(weights)} weights given for {len(lists)} lists.")
    methods = _methods(normalization, len(lists))
    per_list: list[dict[str, float]] = []
    floors: list[float] = []
    fused: dict[str, RetrievalResult] = {}
    for list_no, ranked in enumerate(lists):
        rank_key = rank_keys[list_no] if rank_keys and list_no < len(rank_keys) else None
        firsts: dict[str, RetrievalResult] = {}
        ranks: dict[str, int] = {}
        for rank, item in enumerate(ranked, start=1):
            key = _key(item)
            if key not in firsts:
                firsts[key] = item
                ranks[key] = rank
        values = _normalised([float(i.score) for i in firsts.values()], methods[list_no])
        scores = dict(zip(firsts, values, strict=True))
        per_list.append(scores)
        floors.append(min(values) if values and len(ranked) >= top_k else 0.0)
        for key, item in firsts.items():
            if key not in fused:
                fused[key] = copy.copy(item)
                fused[key].metadata = dict(item.metadata)
            elif fused[key].embedding is None and item.embedding is not None:
                fused[key].embedding = item.embedding
            if rank_key:
                fused[key].metadata[rank_key] = ranks[key]
    totals = {
        key: sum(
            weight * scores.get(key, floor)
            for weight, scores, floor in zip(weights, per_list, floors, strict=True)
        )
        for key in fused
    }
    order = sorted(fused, key=lambda key: totals[key], reverse=True)
    out = []
    for key in order[:top_k]:
        item = fused[key]
        item.score = totals[key]
        item.metadata["fused_score"] = totals[key]
        out.append(item)
    return out


def _methods(
    normalization: Normalization | Sequence[Normalization], count: int
) -> list[Normalization]:
    methods: list[Normalization] = (
        [normalization] * count if isinstance(normalization, str) else list(normalization)
    )
    if len(methods) != count or any(m not in _METHODS for m in methods):
        raise ConfigurationError(
            f"normalization must be one of {_METHODS} or one of them per list "
            f"({count} lists), not {normalization!r}."
        )
    return methods


class ScoreFusion(FusionStrategy):
    """:func:`score_fusion` as a fusion strategy: ``weights`` and ``normalization`` per
    list, in the order the lists are given (``HybridRetriever`` passes ``[dense, keyword]``;
    the defaults are for those two: raw cosine similarity and bm25 divided by its best)."""

    def __init__(
        self,
        weights: Sequence[float] = (0.7, 0.3),
        *,
        normalization: Normalization | Sequence[Normalization] = ("none", "max"),
        rank_keys: Sequence[str | None] | None = None,
    ) -> None:
        if any(w < 0 for w in weights):
            raise ConfigurationError(f"Fusion weights must not be negative: {tuple(weights)}.")
        _methods(normalization, len(weights))
        self.weights = tuple(float(w) for w in weights)
        self.normalization = normalization
        self.rank_keys = rank_keys

    def fuse(
        self, lists: Sequence[Sequence[RetrievalResult]], *, top_k: int
    ) -> list[RetrievalResult]:
        return score_fusion(
            lists,
            top_k=top_k,
            weights=self.weights,
            normalization=self.normalization,
            rank_keys=self.rank_keys,
        )
