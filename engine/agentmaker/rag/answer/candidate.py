"""A sentence of the passages a quote may take, with its score against the question
(extractive.py scores them; following.py adds what the best one needs after it)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

__all__ = ["Candidate"]


@dataclass
class Candidate:
    """A sentence of a passage as a quote weighs it against the question."""

    passage: int  # 1-based
    position: int
    text: str  # verbatim, for the citation
    display: str  # what the reader sees
    terms: Counter[str]
    length: int
    fragment: bool
    score: float = 0.0
    matched: frozenset[str] = frozenset()
