"""Long texts as model windows, and the windows' vectors back as one vector per text.

Used by :class:`agentmaker.models.local_embedder.LocalEmbedder` for both of its models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Window:
    """One model input: token ids (with the start/end tokens) of text ``owner``."""

    owner: int
    ids: list[int]


def plan_windows(
    ids_per_text: Sequence[list[int]],
    *,
    max_tokens: int,
    start: int,
    end: int,
    head: Sequence[int] = (),
    overlap: int = 0,
    truncate: bool = False,
) -> list[Window]:
    """Windows of ``start + head + piece + end`` tokens, at most ``max_tokens`` each.

    Each text yields at least one window; a longer one (unless ``truncate``) yields
    windows of overlapping pieces every ``piece - overlap`` tokens, the last one ending
    with the text. ``head`` (e5's prefix) is repeated in every window.
    """
    content = max_tokens - 2 - len(head)
    stride = content - overlap
    windows: list[Window] = []
    for owner, ids in enumerate(ids_per_text):
        if len(ids) <= content or truncate:
            starts = [0]
        else:
            starts = [*range(0, len(ids) - content, stride), len(ids) - content]
        for first in starts:
            piece = ids[first : first + content]
            windows.append(Window(owner, [start, *head, *piece, end]))
    return windows


def combine(n_texts: int, windows: Sequence[Window], vectors: np.ndarray) -> np.ndarray:
    """One vector per text: its window's, or the normalised mean of its windows'."""
    out = np.zeros((n_texts, vectors.shape[1]), dtype=np.float32)
    counts = np.zeros(n_texts, dtype=np.float32)
    owners = np.fromiter((w.owner for w in windows), dtype=np.int64, count=len(windows))
    if len(windows) == n_texts:  # one window per text, in text order
        out[owners] = vectors
        return out
    np.add.at(out, owners, vectors)
    np.add.at(counts, owners, 1.0)
    return normalise(out / counts[:, None])


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
