"""Library: one SQLite file holding a person's documents, both indexes and bookkeeping.

The app (and the ``agentmaker`` command) open a library through this facade. Several
processes may open the same file: SQLite's WAL mode serialises writers, readers see
committed documents only, and the in-memory vector index reloads when another process
has written.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentmaker.background import STOP_GRACE_S, finish_in_thread
from agentmaker.conversations.service import Conversations
from agentmaker.models.llm import LLMClient
from agentmaker.rag.answer.retriever import RagRetriever
from agentmaker.rag.config import RagConfig
from agentmaker.rag.ingest.batch import CancelToken
from agentmaker.rag.ingest.pipeline import IngestionPipeline
from agentmaker.rag.ingest.reader_process import ReaderProcess
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.database import Database, dialect, is_postgres_url
from agentmaker.retrieval.fingerprint import MODEL_KEY
from agentmaker.retrieval.hybrid import default_fusion
from agentmaker.retrieval.ports import Embedder
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.hybrid import SqliteHybridRetriever

if TYPE_CHECKING:
    from agentmaker.models.local_embedder import ModelChoice
    from agentmaker.retrieval.postgres.hybrid import PgHybridRetriever

log = logging.getLogger(__name__)
REBUILD_KEY = "rebuild_pending"


#: The built-in model new libraries are made with: multilingual-e5-small finds Chinese
#: and cross-language passages that all-MiniLM-L6-v2 (English only) misses, and is at
#: least as good on English (benchmarks/REPORT.md, "Multilingual retrieval").
DEFAULT_LOCAL_MODEL: ModelChoice = "multilingual-e5-small"


def default_embedder(db: Database | None = None) -> Embedder:
    """The built-in offline embedder for a library: the built-in model it was made with
    (an existing library keeps its model), :data:`DEFAULT_LOCAL_MODEL` for a new one."""
    from agentmaker.models.local_embedder import LocalEmbedder

    model = builtin_model_of(db) if db is not None else None
    return LocalEmbedder(model=model or DEFAULT_LOCAL_MODEL)


def builtin_model_of(db: Database) -> ModelChoice | None:
    """Which built-in model made the library in ``db`` (None: new, or another model)."""
    from agentmaker.models.local_embedder import E5_SMALL, MINILM

    stored = db.get_meta(MODEL_KEY)
    if stored is None:
        return None
    try:
        name = str(json.loads(stored)["name"])
    except (ValueError, KeyError, TypeError):
        return None
    models: tuple[ModelChoice, ...] = (MINILM, E5_SMALL)
    for model in models:
        if name.startswith(model):
            return model
    return None


def _open_database(path: str | Path, config: RagConfig) -> tuple[Database, RagConfig]:
    """The library file, or for a ``postgresql://`` URL the team library's database
    (then the scope gains the login as its user when ``config`` names none)."""
    if not is_postgres_url(path):
        return SqliteDatabase(path), config
    from agentmaker.retrieval.postgres.db import PgDatabase

    db = PgDatabase(str(path))
    if config.scope.user is None:
        config = dataclasses.replace(config, scope=dataclasses.replace(config.scope, user=db.login))
    return db, config


class Library:
    """A library file opened with an embedder and (optionally) a language model."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        llm: LLMClient | None,
        config: RagConfig,
    ) -> None:
        self.db = db
        self.path = db.path
        self.config = config
        self.embedder = embedder
        self.source_store = SourceStore(db)
        if dialect(db) == "postgresql":  # a team library: documents belong to the scope's user
            self.source_store.owner = config.scope.user
        self.retriever = self._build_retriever(embedder)
        self.pipeline = IngestionPipeline.from_config(
            config,
            retriever=self.retriever,
            source_store=self.source_store,
            contextualizer=config.make_contextualizer(llm),
        )
        self.rag = RagRetriever(
            self.retriever,
            self.source_store,
            llm,
            query_transformer=config.make_query_transformer(llm),
            expander=config.make_expander(),
            system_prompt=config.system_prompt,
            scope=config.scope,
        )
        #: Chat threads stored in this file (questions, answers, their passages).
        self.conversations = Conversations(db, self.rag, scope=config.scope)

    def _build_retriever(self, embedder: Embedder) -> SqliteHybridRetriever | PgHybridRetriever:
        if dialect(self.db) == "postgresql":
            from agentmaker.retrieval.postgres.hybrid import PgHybridRetriever

            return PgHybridRetriever(
                embedder,
                self.db,  # type: ignore[arg-type]
                metadata_columns=self.config.metadata_columns,
                reranker=self.config.reranker,
                config=self.config.retrieval,
                owns_db=False,
            )
        return SqliteHybridRetriever(
            embedder,
            self.db,  # type: ignore[arg-type]
            metadata_columns=self.config.metadata_columns,
            reranker=self.config.reranker,
            config=self.config.retrieval,
            owns_db=False,
        )

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
        config: RagConfig | None = None,
        heal: bool = True,
        reader_process: bool = False,
    ) -> Library:
        """Open (or create) a library file. With ``heal``, unfinished writes are finished.

        ``path`` may also be a ``postgresql://`` URL: a team library on a PostgreSQL
        server with pgvector (the ``team`` extra), whose scope's user is the
        connection's login unless ``config.scope`` names one.

        ``reader_process=True`` reads files in a child process: what an app with an event
        loop wants (C parsers cannot freeze it, a parser crash costs one file).
        """
        config = config or RagConfig()
        db, config = _open_database(path, config)
        try:
            library = cls(db, embedder or default_embedder(db), llm, config)
        except BaseException:
            db.close()
            raise
        if reader_process:
            library.pipeline.reader_process = ReaderProcess()
        if heal:
            healed = library.pipeline.heal()
            if healed:
                log.info("finished %d interrupted document write(s)", len(healed))
        return library

    @property
    def llm(self) -> LLMClient | None:
        """The language model answering questions (None: extractive answers)."""
        return self.rag.llm

    def set_llm(self, llm: LLMClient | None) -> None:
        """Use another language model (None for extractive answers)."""
        self.rag.llm = llm
        self.rag.query_transformer = self.config.make_query_transformer(llm)

    def configure(self, config: RagConfig) -> None:
        """Apply new settings to the open library (retrieval, context, expansion).

        A changed chunking or contextualizer applies to documents ingested from now on
        (their fingerprints change, so re-ingesting them re-indexes them).
        """
        config.metadata_columns = self.config.metadata_columns  # fixed when the file was built
        if dialect(self.db) == "postgresql":
            login = getattr(self.db, "login", None)
            if config.scope.user is None:
                config = dataclasses.replace(
                    config, scope=dataclasses.replace(config.scope, user=login)
                )
            self.source_store.owner = config.scope.user
        self.config = config
        self.retriever.config = config.retrieval
        self.retriever.reranker = config.reranker
        self.retriever.fusion = default_fusion(config.retrieval, self.embedder)
        self.pipeline.chunking = config.chunking
        self.pipeline.contextualizer = config.make_contextualizer(self.rag.llm)
        self.pipeline.scope = config.scope
        self.rag.expander = config.make_expander()
        self.rag.system_prompt = config.system_prompt
        self.rag.scope = config.scope
        self.conversations.scope = config.scope
        self.rag.query_transformer = config.make_query_transformer(self.rag.llm)

    @property
    def needs_rebuild(self) -> bool:
        """True when a change of embedder was interrupted before all vectors were rebuilt."""
        return self.db.get_meta(REBUILD_KEY) == "1"

    def reembed(
        self,
        embedder: Embedder,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> int:
        """Switch to another embedder: clear the indexes and rebuild them from the
        source store (the documents themselves are kept). Interrupted, it resumes on the
        next call; until then keyword search works on what was rebuilt.
        """
        with self.db.transaction():
            if dialect(self.db) == "postgresql":
                from agentmaker.retrieval.postgres.hybrid import clear_indexes

                clear_indexes(self.db)  # type: ignore[arg-type]
            else:
                # The keyword index clears itself: its tantivy copy must learn it.
                assert isinstance(self.retriever, SqliteHybridRetriever)
                self.retriever.keyword_index.clear()
                for table in ("vec_vectors", "items"):
                    self.db.execute(f"DELETE FROM {table}")
            self.db.execute(
                "DELETE FROM library_meta WHERE key IN (?, ?)", (MODEL_KEY, "vec_vectors.dimension")
            )
            self.db.set_meta(REBUILD_KEY, "1")
        old = self.retriever
        self.embedder = embedder
        self.retriever = self._build_retriever(embedder)
        self.pipeline.retriever = self.retriever
        self.rag.retriever = self.retriever
        old.stop_workers(wait=False)
        count = self.pipeline.rebuild_index(progress=progress, cancel=cancel)
        self.db.set_meta(REBUILD_KEY, "0")
        return count

    async def areembed(
        self,
        embedder: Embedder,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> int:
        """Async twin of :meth:`reembed` (runs in a worker thread); cancelling the task
        cancels the run, and the task ends once it stopped (at most ``STOP_GRACE_S``)."""
        token = cancel or CancelToken()
        return await finish_in_thread(
            lambda: self.reembed(embedder, progress=progress, cancel=token),
            name="reembed",
            on_cancel=token.cancel,
            grace=STOP_GRACE_S,
        )

    def close(self) -> None:
        """Close the reader process, the retriever's worker, the embedder and the file."""
        if self.pipeline.reader_process is not None:
            self.pipeline.reader_process.close()
        self.retriever.stop_workers()
        self.embedder.close()
        self.db.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
