"""The public API the specification names: ``__all__`` pinned, and every name imports."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "agentmaker": [
        "AgentmakerError", "AnswerStream", "AskResult", "BatchReport", "Bookkeeping",
        "CancelToken", "ChatMessage", "Chunk", "ChunkExpander", "ChunkingConfig",
        "CohereReranker", "Contextualizer", "Document", "Embedder", "Fts5KeywordIndex",
        "FusionStrategy", "HeadingContextualizer", "HyDETransformer", "HybridRetriever",
        "InMemoryBookkeeping", "IndexSync", "IngestReport", "IngestionPipeline",
        "KeywordIndex", "LLMClient", "LLMContextualizer", "Library", "LocalEmbedder",
        "MetadataFilter", "MultiQueryExpander", "NeighborWindowExpander",
        "OpenAICompatibleLLM", "OpenAIEmbedder", "QueryTransformer", "RAGTool", "RRFFusion",
        "RagConfig", "RagRetriever", "Reranker", "RetrievalConfig", "RetrievalResult",
        "Scope", "SourceRef", "SourceStore", "SqliteBookkeeping", "SqliteVecStore",
        "SyncIndexSync", "VectorStore", "__version__", "build_sqlite_hybrid",
        "reciprocal_rank_fusion", "split_document",
    ],
    "agentmaker.retrieval": [
        "Bookkeeping", "Embedder", "Fts5KeywordIndex", "FusionStrategy", "HybridRetriever",
        "InMemoryBookkeeping", "IndexSync", "KeywordIndex", "MetadataFilter",
        "ModelFingerprint", "RRFFusion", "Reranker", "RetrievalConfig", "RetrievalResult",
        "Scope", "SqliteBookkeeping", "SqliteDatabase", "SqliteHybridRetriever",
        "SqliteVecStore", "SyncIndexSync", "VectorStore", "build_sqlite_hybrid",
        "reciprocal_rank_fusion",
    ],
    "agentmaker.rag": [
        "AnswerStream", "AskResult", "BatchReport", "CancelToken", "Chunk", "ChunkExpander",
        "ChunkingConfig", "Contextualizer", "Document", "DocumentInfo", "FileOutcome",
        "HeadingContextualizer", "HyDETransformer", "IngestProgress", "IngestReport",
        "IngestionPipeline", "LLMContextualizer", "MultiQueryExpander",
        "NeighborWindowExpander", "QueryTransformer", "RAGTool", "RagConfig", "RagRetriever",
        "SourceRef", "SourceStore", "VerifyReport", "split_document",
    ],
}  # fmt: skip


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_all_is_pinned_and_every_name_imports(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert sorted(module.__all__) == sorted(PUBLIC[module_name])
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_the_same_object_under_every_public_name() -> None:
    import agentmaker
    import agentmaker.rag
    import agentmaker.retrieval

    for name in PUBLIC["agentmaker.retrieval"]:
        if name in PUBLIC["agentmaker"]:
            assert getattr(agentmaker, name) is getattr(agentmaker.retrieval, name)
    for name in PUBLIC["agentmaker.rag"]:
        if name in PUBLIC["agentmaker"]:
            assert getattr(agentmaker, name) is getattr(agentmaker.rag, name)
