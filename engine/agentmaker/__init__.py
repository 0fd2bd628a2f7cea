"""agentmaker: an async retrieval-and-RAG engine.

Two layers: ``agentmaker.retrieval`` (hybrid dense + keyword search, fusion, scopes)
and ``agentmaker.rag`` (documents in, cited answers out). Their public names are
re-exported here. The network-backed batteries (``OpenAIEmbedder``, ``CohereReranker``,
``OpenAICompatibleLLM``) and the local model (``LocalEmbedder``) are imported on first
use, so ``import agentmaker`` stays fast.
"""

from typing import Any

from agentmaker.errors import AgentmakerError
from agentmaker.models.llm import ChatMessage, LLMClient
from agentmaker.models.onnx_runtime import disable_telemetry
from agentmaker.rag import (
    AnswerStream,
    AskResult,
    BatchReport,
    CancelToken,
    Chunk,
    ChunkExpander,
    ChunkingConfig,
    Contextualizer,
    Document,
    HeadingContextualizer,
    HyDETransformer,
    IngestionPipeline,
    IngestReport,
    LLMContextualizer,
    MultiQueryExpander,
    NeighborWindowExpander,
    QueryTransformer,
    RagConfig,
    RagRetriever,
    RAGTool,
    SourceRef,
    SourceStore,
    split_document,
)
from agentmaker.retrieval import (
    Bookkeeping,
    Embedder,
    Fts5KeywordIndex,
    FusionStrategy,
    HybridRetriever,
    IndexSync,
    InMemoryBookkeeping,
    KeywordIndex,
    MetadataFilter,
    Reranker,
    RetrievalConfig,
    RetrievalResult,
    RRFFusion,
    Scope,
    SqliteBookkeeping,
    SqliteVecStore,
    SyncIndexSync,
    VectorStore,
    build_sqlite_hybrid,
    reciprocal_rank_fusion,
)

# No onnxruntime may load in this process with its telemetry on (none of the imports
# above loads it): third-party code that imports it later (RapidOCR) is covered too.
disable_telemetry()

__version__ = "0.1.0"

_LAZY = {
    "OpenAIEmbedder": "agentmaker.models.openai_embedder",
    "CohereReranker": "agentmaker.models.cohere_reranker",
    "OpenAICompatibleLLM": "agentmaker.models.openai_llm",
    "LocalEmbedder": "agentmaker.models.local_embedder",
    "Library": "agentmaker.library",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentmaker' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AgentmakerError",
    "AnswerStream",
    "AskResult",
    "BatchReport",
    "Bookkeeping",
    "CancelToken",
    "ChatMessage",
    "Chunk",
    "ChunkExpander",
    "ChunkingConfig",
    "CohereReranker",
    "Contextualizer",
    "Document",
    "Embedder",
    "Fts5KeywordIndex",
    "FusionStrategy",
    "HeadingContextualizer",
    "HyDETransformer",
    "HybridRetriever",
    "InMemoryBookkeeping",
    "IndexSync",
    "IngestReport",
    "IngestionPipeline",
    "KeywordIndex",
    "LLMClient",
    "LLMContextualizer",
    "Library",
    "LocalEmbedder",
    "MetadataFilter",
    "MultiQueryExpander",
    "NeighborWindowExpander",
    "OpenAICompatibleLLM",
    "OpenAIEmbedder",
    "QueryTransformer",
    "RAGTool",
    "RRFFusion",
    "RagConfig",
    "RagRetriever",
    "Reranker",
    "RetrievalConfig",
    "RetrievalResult",
    "Scope",
    "SourceRef",
    "SourceStore",
    "SqliteBookkeeping",
    "SqliteVecStore",
    "SyncIndexSync",
    "VectorStore",
    "__version__",
    "build_sqlite_hybrid",
    "reciprocal_rank_fusion",
    "split_document",
]
