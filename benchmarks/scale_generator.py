"""Vectors beyond the real 100k: a Gaussian mixture fitted to the real embeddings.

The real passage vectors (``scale_corpus``) are rotated into their PCA basis and
clustered (k-means, 256 clusters); each cluster becomes a Gaussian with its own mean and
per-axis spread in that basis, which keeps the embedder's anisotropy (a few directions
carry most of the variance) and its lumpiness (topics). Samples are mapped back and
L2-normalised. Query vectors get their own mixture, fitted to the real query vectors
(e5 queries carry a ``query:`` prefix and sit apart from passages).

Validation (``validate``): at 100k, a generated library with generated queries must give
the dense index the same recall@10 as the real library with the real questions, for the
old sign-bit shortlist (which is sensitive to the geometry) and for the HNSW graph, and
the queries' top-1 / top-10 similarities must look alike. Only then are the figures at
1M (real 100k + generated 900k) taken as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Mixture:
    """A diagonal Gaussian mixture in a PCA basis (``basis`` rows are the axes)."""

    mean: np.ndarray
    basis: np.ndarray
    centres: np.ndarray
    spreads: np.ndarray
    weights: np.ndarray

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` L2-normalised float32 vectors."""
        rng = np.random.default_rng(seed)
        out = np.empty((n, self.basis.shape[1]), dtype=np.float32)
        step = 50_000
        for start in range(0, n, step):
            m = min(step, n - start)
            picks = rng.choice(len(self.weights), size=m, p=self.weights)
            z = rng.standard_normal((m, self.centres.shape[1])).astype(np.float32)
            coords = self.centres[picks] + self.spreads[picks] * z
            v = coords @ self.basis + self.mean
            out[start : start + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out


def _kmeans(x: np.ndarray, k: int, iterations: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = x[rng.choice(len(x), size=k, replace=False)].copy()
    for _ in range(iterations):
        d = (x * x).sum(1)[:, None] - 2 * x @ centres.T + (centres * centres).sum(1)[None, :]
        label = np.argmin(d, axis=1)
        for c in range(k):
            members = x[label == c]
            if len(members):
                centres[c] = members.mean(0)
    d = (x * x).sum(1)[:, None] - 2 * x @ centres.T + (centres * centres).sum(1)[None, :]
    return np.argmin(d, axis=1)


def fit(vectors: np.ndarray, clusters: int = 256, seed: int = 0) -> Mixture:
    """Fit the mixture to real vectors (float32, one per row)."""
    x = np.asarray(vectors, dtype=np.float32)
    mean = x.mean(0)
    rng = np.random.default_rng(seed)
    sample = x[rng.choice(len(x), size=min(len(x), 20_000), replace=False)] - mean
    _, _, basis = np.linalg.svd(sample, full_matrices=False)
    coords = (x - mean) @ basis.T
    clusters = min(clusters, max(1, len(x) // 50))
    label = _kmeans(coords, clusters, iterations=8, seed=seed)
    centres, spreads, weights = [], [], []
    for c in range(clusters):
        members = coords[label == c]
        if len(members) < 2:
            continue
        centres.append(members.mean(0))
        spreads.append(members.std(0))
        weights.append(len(members))
    w = np.array(weights, dtype=np.float64)
    return Mixture(
        mean=mean,
        basis=basis.astype(np.float32),
        centres=np.array(centres, dtype=np.float32),
        spreads=np.array(spreads, dtype=np.float32),
        weights=w / w.sum(),
    )


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
