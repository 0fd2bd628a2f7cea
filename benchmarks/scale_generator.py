"""Vectors beyond the real 100k: new points on the real embeddings' own neighbourhoods.

A first generator (a diagonal Gaussian mixture in the PCA basis, 256 clusters) failed the
validation below: its points were spread evenly through each cluster (a query's nearest
neighbour at cosine 0.47 instead of 0.73, the 10th and 100th neighbours 0.04 apart
instead of 0.13), so every index's recall on it was far lower than on real data (HNSW
0.88 vs 0.997). Real passages sit in tight groups (sentences of one abstract, one topic).

So a generated passage is made like SMOTE does: take a real passage ``a`` and one of
its 10 nearest real neighbours ``b``, go a random part of the way from ``a`` to ``b``
and add a little isotropic noise, then L2-normalise: a new point where real passages
are dense, never a copy of one. A generated query is a real question with noise (cosine
about 0.96 to it): near where real questions are, stored nowhere.

Validation (``scale.recall``): at 100k, a generated library must give the dense indexes
the same recall@10 as the real library (with real questions and with generated ones),
and the queries' top-1 / top-10 / gap profiles must look alike. Only then are the
figures at 1M (real 100k + generated 900k) taken as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Noise added to a generated passage (norm of the noise vector).
PASSAGE_NOISE = 0.25
#: Noise added to a generated query (norm; cosine to the real question ~0.96).
QUERY_NOISE = 0.3


@dataclass
class Neighbourhoods:
    """Real vectors and each one's nearest real neighbours (indices, self excluded)."""

    vectors: np.ndarray
    neighbours: np.ndarray

    def sample(self, n: int, seed: int, noise: float = PASSAGE_NOISE) -> np.ndarray:
        """``n`` L2-normalised float32 passage vectors."""
        rng = np.random.default_rng(seed)
        dim = self.vectors.shape[1]
        out = np.empty((n, dim), dtype=np.float32)
        step = 50_000
        for start in range(0, n, step):
            m = min(step, n - start)
            a = rng.integers(0, len(self.vectors), size=m)
            b = self.neighbours[a, rng.integers(0, self.neighbours.shape[1], size=m)]
            part = rng.uniform(0.2, 0.8, size=(m, 1)).astype(np.float32)
            v = self.vectors[a] + part * (self.vectors[b] - self.vectors[a])
            v += rng.standard_normal((m, dim)).astype(np.float32) * np.float32(noise / np.sqrt(dim))
            out[start : start + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out


def neighbourhoods(vectors: np.ndarray, k: int = 10, threads: int = 2) -> Neighbourhoods:
    """Each real vector's ``k`` nearest neighbours (an exact-enough HNSW search)."""
    from usearch.index import Index

    x = np.ascontiguousarray(vectors, dtype=np.float32)
    index = Index(ndim=x.shape[1], metric="cos", dtype="f16", connectivity=16)
    index.add(np.arange(len(x), dtype=np.uint64), x, threads=threads)
    index.expansion_search = 64
    found = np.asarray(index.search(x, k + 1, threads=threads).keys, dtype=np.int64)
    rows = np.arange(len(x))[:, None]
    keep = np.where(found[:, :1] == rows, found[:, 1:], found[:, :k])  # drop self
    return Neighbourhoods(vectors=x, neighbours=keep)


def perturbed_queries(queries: np.ndarray, seed: int, noise: float = QUERY_NOISE) -> np.ndarray:
    """Real query vectors with isotropic noise, L2-normalised."""
    rng = np.random.default_rng(seed)
    q = np.asarray(queries, dtype=np.float32)
    v = q + rng.standard_normal(q.shape).astype(np.float32) * np.float32(
        noise / np.sqrt(q.shape[1])
    )
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def neighbour_profile(matrix: np.ndarray, queries: np.ndarray) -> dict[str, float]:
    """Mean top-1 and top-10 cosine similarity of the queries, and the gap between the
    10th and the 100th neighbour (how crowded the neighbourhood is)."""
    scores = queries @ matrix.T
    top = -np.sort(-scores, axis=1)[:, :100]
    return {
        "top1": round(float(top[:, 0].mean()), 4),
        "top10": round(float(top[:, 9].mean()), 4),
        "gap_10_100": round(float((top[:, 9] - top[:, 99]).mean()), 4),
    }
