"""RAG: documents in, cited answers out."""

from agentmaker.rag.answer.answer_stream import AnswerStream
from agentmaker.rag.answer.expanders import ChunkExpander, NeighborWindowExpander
from agentmaker.rag.answer.prompting import AskResult, SourceRef
from agentmaker.rag.answer.query_transformers import (
    HyDETransformer,
    MultiQueryExpander,
    QueryTransformer,
)
from agentmaker.rag.answer.retriever import RagRetriever
from agentmaker.rag.answer.tool import RAGTool
from agentmaker.rag.chunking.split import ChunkingConfig, split_document
from agentmaker.rag.config import RagConfig
from agentmaker.rag.documents import Chunk, Document
from agentmaker.rag.ingest.batch import BatchReport, CancelToken, FileOutcome, IngestProgress
from agentmaker.rag.ingest.contextualizers import (
    Contextualizer,
    HeadingContextualizer,
    LLMContextualizer,
)
from agentmaker.rag.ingest.pipeline import IngestionPipeline, IngestReport, VerifyReport
from agentmaker.rag.source_store import DocumentInfo, SourceStore

__all__ = [
    "AnswerStream",
    "AskResult",
    "BatchReport",
    "CancelToken",
    "Chunk",
    "ChunkExpander",
    "ChunkingConfig",
    "Contextualizer",
    "Document",
    "DocumentInfo",
    "FileOutcome",
    "HeadingContextualizer",
    "HyDETransformer",
    "IngestProgress",
    "IngestReport",
    "IngestionPipeline",
    "LLMContextualizer",
    "MultiQueryExpander",
    "NeighborWindowExpander",
    "QueryTransformer",
    "RAGTool",
    "RagConfig",
    "RagRetriever",
    "SourceRef",
    "SourceStore",
    "VerifyReport",
    "split_document",
]
