"""Value types shared by every retrieval backend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np

from agentmaker.errors import ConfigurationError, ScopeRequiredError

SCOPE_DIMENSIONS: tuple[str, ...] = ("base", "user", "agent", "session", "app")


@dataclass
class RetrievalResult:
    """One hit. Higher ``score`` means more relevant; only comparable within one list."""

    content: str
    score: float = 0.0
    source: str = ""
    id: str = ""
    embedding: np.ndarray | Sequence[float] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scope:
    """Who a piece of data belongs to. Only the dimensions you set narrow a query."""

    base: str | None = None
    user: str | None = None
    agent: str | None = None
    session: str | None = None
    app: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """The dimensions that are set, as ``(name, value)`` pairs."""
        return [(f.name, getattr(self, f.name)) for f in fields(self) if getattr(self, f.name)]

    @property
    def is_empty(self) -> bool:
        """True when no dimension is set (the scope restricts nothing)."""
        return not self.items()

    def values(self) -> dict[str, str]:
        """All five dimensions, unset ones as ``""`` (how they are stored)."""
        return {name: getattr(self, name) or "" for name in SCOPE_DIMENSIONS}


@dataclass(frozen=True)
class MetadataFilter:
    """A pre-filter on a declared metadata column: ``eq`` or ``in``."""

    field: str
    value: Any
    op: Literal["eq", "in"] = "eq"

    def __post_init__(self) -> None:
        if self.op not in ("eq", "in"):
            raise ConfigurationError(f"MetadataFilter op must be 'eq' or 'in', not {self.op!r}.")
        if self.op == "in":
            if isinstance(self.value, str | bytes) or not isinstance(self.value, Sequence):
                raise ConfigurationError(
                    f"MetadataFilter({self.field!r}, op='in') needs a list of values."
                )
            if len(self.value) == 0:
                raise ConfigurationError(
                    f"MetadataFilter({self.field!r}, op='in') needs at least one value."
                )

    @property
    def values(self) -> list[Any]:
        """The accepted values as a list (one for ``eq``)."""
        return list(self.value) if self.op == "in" else [self.value]


@dataclass(frozen=True)
class RetrievalConfig:
    """Tunable retrieval knobs, validated at construction.

    ``fusion`` picks how the two legs merge when no fusion strategy is passed: ``"rrf"``
    (reciprocal rank fusion with ``rrf_k``) or ``"score"`` (``ScoreFusion``: the dense
    leg's cosine similarity weighted ``dense_weight`` plus the keyword leg's bm25 divided
    by its best, weighted ``1 - dense_weight``). ``dense_weight=None`` (default): the
    weight and normalisation tuned for the embedder
    (``Embedder.score_fusion_defaults``; 0.7 with raw cosines for unknown models).
    """

    top_k: int = 5
    candidate_pool: int = 20
    rrf_k: int = 60
    fusion: Literal["rrf", "score"] = "rrf"
    dense_weight: float | None = None

    def __post_init__(self) -> None:
        if self.fusion not in ("rrf", "score"):
            raise ConfigurationError(f"fusion must be 'rrf' or 'score', not {self.fusion!r}.")
        if self.dense_weight is not None and not 0.0 <= self.dense_weight <= 1.0:
            raise ConfigurationError(
                f"dense_weight must be between 0 and 1, not {self.dense_weight}."
            )
        if self.top_k < 1:
            raise ConfigurationError(f"top_k must be at least 1, not {self.top_k}.")
        if self.candidate_pool < self.top_k:
            raise ConfigurationError(
                f"candidate_pool ({self.candidate_pool}) must be at least top_k "
                f"({self.top_k}): each leg must bring enough candidates to fill the answer."
            )
        if self.rrf_k < 1:
            raise ConfigurationError(f"rrf_k must be at least 1, not {self.rrf_k}.")


def check_scope(operation: str, scope: Scope | None, all_scopes: bool) -> Scope:
    """Refuse an empty scope unless ``all_scopes``; returns the scope to apply."""
    scope = scope or Scope()
    if scope.is_empty and not all_scopes:
        raise ScopeRequiredError(operation)
    return scope
