"""RagConfig: every RAG setting in one place, shared by the retriever and the pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentmaker.models.llm import LLMClient
from agentmaker.rag.answer.expanders import ChunkExpander, NeighborWindowExpander
from agentmaker.rag.answer.query_transformers import (
    HyDETransformer,
    MultiQueryExpander,
    QueryTransformer,
)
from agentmaker.rag.chunking.split import ChunkingConfig
from agentmaker.rag.documents import MAIL_FIELDS
from agentmaker.rag.ingest.contextualizers import (
    Contextualizer,
    HeadingContextualizer,
    LLMContextualizer,
)
from agentmaker.retrieval.ports import Reranker
from agentmaker.retrieval.types import RetrievalConfig, Scope


@dataclass
class RagConfig:
    """Aggregated RAG settings. ``path`` is the library file (``":memory:"`` by default)."""

    path: str = ":memory:"
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    # Score fusion, not the spec's RRF: SciFact train nDCG@10 0.716 -> 0.741 end to end,
    # confirmed on held-out query halves (benchmarks/REPORT.md, section 1).
    retrieval: RetrievalConfig = field(default_factory=lambda: RetrievalConfig(fusion="score"))
    # The mail fields are filterable (MetadataFilter("mail_from", ...)); a library built
    # before they existed gets the columns added and filled on open (see SqliteItems).
    metadata_columns: tuple[str, ...] = ("doc_id", "format", *MAIL_FIELDS)
    scope: Scope = field(default_factory=lambda: Scope(base="rag"))
    heading_context: bool = True
    llm_context: bool = False
    multi_query: int = 0
    hyde: bool = False
    neighbor_window: int = 0
    reranker: Reranker | None = None
    system_prompt: str | None = None

    def make_contextualizer(self, llm: LLMClient | None = None) -> Contextualizer | None:
        """The contextualizer these settings ask for."""
        if self.llm_context and llm is not None:
            return LLMContextualizer(llm)
        return HeadingContextualizer() if self.heading_context else None

    def make_query_transformer(self, llm: LLMClient | None) -> QueryTransformer | None:
        """Multi-query or HyDE (both need a language model), else None."""
        if llm is None:
            return None
        if self.multi_query:
            return MultiQueryExpander(llm, n=self.multi_query)
        if self.hyde:
            return HyDETransformer(llm)
        return None

    def make_expander(self) -> ChunkExpander | None:
        """A neighbour window when ``neighbor_window`` > 0."""
        return NeighborWindowExpander(self.neighbor_window) if self.neighbor_window else None
