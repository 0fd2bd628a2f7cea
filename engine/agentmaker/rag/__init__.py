"""RAG: documents in, cited answers out."""

from agentmaker.rag.batch import BatchReport, CancelToken, FileOutcome, IngestProgress
from agentmaker.rag.chunking import ChunkingConfig, split_document
from agentmaker.rag.config import RagConfig
from agentmaker.rag.contextualizers import Contextualizer, HeadingContextualizer, LLMContextualizer
from agentmaker.rag.documents import Chunk, Document
from agentmaker.rag.expanders import ChunkExpander, NeighborWindowExpander
from agentmaker.rag.pipeline import IngestionPipeline, IngestReport, VerifyReport
from agentmaker.rag.prompting import AskResult, SourceRef
from agentmaker.rag.query_transformers import HyDETransformer, MultiQueryExpander, QueryTransformer
from agentmaker.rag.retriever import AnswerStream, RagRetriever
from agentmaker.rag.source_store import DocumentInfo, SourceStore
from agentmaker.rag.tool import RAGTool

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
