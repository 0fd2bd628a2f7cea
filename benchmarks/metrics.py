"""Retrieval metrics with trec_eval's definitions (as BEIR computes them via pytrec_eval).

- ``ndcg_cut.10``: DCG@k = sum over ranks i = 1..k of gain_i / log2(i + 1), where
  gain is the qrels relevance grade (linear gain, not 2^rel - 1; unjudged and
  non-positive grades count 0). The ideal DCG sorts the query's judged grades > 0
  descending and cuts at k. nDCG = DCG / IDCG.
- ``recall_100``: |relevant ∩ top k| / |relevant|, relevant meaning grade >= 1
  (trec_eval's default relevance level).

Two deliberate differences from running pytrec_eval on a run file:

- The ranking is the list order given. trec_eval re-sorts by score and breaks ties by
  document id (descending); a retriever's own order is what a user sees.
- The mean is over every query that has a relevant document in the qrels; a query
  with no results counts 0 (pytrec_eval silently drops queries missing from the run,
  which flatters a retriever that returns nothing).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Qrels = Mapping[str, Mapping[str, int]]


def dcg(gains: Iterable[float]) -> float:
    """Discounted cumulative gain of gains in rank order (rank 1 first)."""
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1))


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k of one ranking against one query's judgements (0.0 without relevant docs)."""
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    gains = [max(judged.get(doc, 0), 0) for doc in _unique(ranked)[:k]]
    return dcg(gains) / ideal


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 100) -> float:
    """Recall@k of one ranking (0.0 without relevant docs)."""
    relevant = {doc for doc, grade in judged.items() if grade >= 1}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_unique(ranked)[:k])) / len(relevant)


def _unique(ranked: Sequence[str]) -> list[str]:
    """A ranking without repeats (a document counts once, at its best rank)."""
    return list(dict.fromkeys(ranked))


def doc_ranking(chunk_docs: Sequence[str]) -> list[str]:
    """Documents ranked by their best chunk: chunk hits (best first) mapped to doc ids.

    With chunk hits sorted by score, a document's first appearance is its maximum
    chunk score, so keeping first appearances ranks documents by max over chunks.
    """
    return _unique(chunk_docs)


def evaluate(
    runs: Mapping[str, Sequence[str]],
    qrels: Qrels,
    *,
    k_ndcg: int = 10,
    k_recall: int = 100,
    queries: Iterable[str] | None = None,
) -> dict[str, float]:
    """Mean nDCG@k and Recall@k over the judged queries (or the given subset)."""
    wanted = list(queries) if queries is not None else list(qrels)
    wanted = [q for q in wanted if any(g >= 1 for g in qrels.get(q, {}).values())]
    if not wanted:
        return {"ndcg": float("nan"), "recall": float("nan"), "queries": 0}
    ndcg = [ndcg_at_k(runs.get(q, ()), qrels[q], k_ndcg) for q in wanted]
    recall = [recall_at_k(runs.get(q, ()), qrels[q], k_recall) for q in wanted]
    return {
        "ndcg": sum(ndcg) / len(wanted),
        "recall": sum(recall) / len(wanted),
        "queries": len(wanted),
    }


def per_query_ndcg(
    runs: Mapping[str, Sequence[str]], qrels: Qrels, k: int = 10
) -> dict[str, float]:
    """nDCG@k per judged query (for paired comparisons)."""
    return {
        q: ndcg_at_k(runs.get(q, ()), judged, k)
        for q, judged in qrels.items()
        if any(g >= 1 for g in judged.values())
    }


def paired_bootstrap(
    a: Mapping[str, float], b: Mapping[str, float], *, samples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean difference b - a over shared queries and its 95% bootstrap interval."""
    import numpy as np

    shared = sorted(set(a) & set(b))
    if not shared:
        return float("nan"), float("nan"), float("nan")
    diff = np.array([b[q] - a[q] for q in shared])
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(samples, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(diff.mean()), float(low), float(high)
