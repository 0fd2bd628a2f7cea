"""The PostgreSQL + pgvector batteries: a team library that several apps share.

The same ports as the SQLite batteries (an HNSW vector store, a BM25 keyword index that
scores like FTS5's, fused by ``HybridRetriever``), on a psycopg 3 connection pool. Needs
the ``team`` extra (psycopg, pgvector); nothing imports this package unless a
``postgresql://`` library is opened.

May import: agentmaker.errors, the generic agentmaker.retrieval modules and the SQLite
tokenizer (for identical tokens); never agentmaker.rag.
"""

from agentmaker.retrieval.postgres.db import PgDatabase, is_postgres_url
from agentmaker.retrieval.postgres.hybrid import PgHybridRetriever, build_postgres_hybrid
from agentmaker.retrieval.postgres.keyword_index import PgKeywordIndex
from agentmaker.retrieval.postgres.vector_store import PgVectorStore

__all__ = [
    "PgDatabase",
    "PgHybridRetriever",
    "PgKeywordIndex",
    "PgVectorStore",
    "build_postgres_hybrid",
    "is_postgres_url",
]
