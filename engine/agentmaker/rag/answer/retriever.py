"""RagRetriever: retrieve passages, then answer from them with numbered citations
(the answer itself is produced by :class:`~agentmaker.rag.answer.answer_stream.AnswerStream`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from agentmaker.models.llm import ChatMessage, LLMClient
from agentmaker.rag.answer.answer_stream import AnswerStream
from agentmaker.rag.answer.expanders import ChunkExpander
from agentmaker.rag.answer.prompting import AskResult
from agentmaker.rag.answer.query_transformers import QueryTransformer
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.fusion import reciprocal_rank_fusion
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.queries import check_query, check_top_k, is_searchable
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult, Scope

if TYPE_CHECKING:
    from agentmaker.rag.config import RagConfig
    from agentmaker.retrieval.ports import Embedder as EmbedderPort

T = TypeVar("T")
# Hits fetched beyond top_k, so dropping repeated passages still leaves top_k.
_SPARE = 3
RAG_SCOPE = Scope(base="rag")


def _run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from sync code, even when called inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class RagRetriever:
    """Reads chunks back and answers grounded, cited questions about them."""

    def __init__(
        self,
        retriever: HybridRetriever,
        source_store: SourceStore,
        llm: LLMClient | None,
        *,
        query_transformer: QueryTransformer | None = None,
        expander: ChunkExpander | None = None,
        system_prompt: str | None = None,
        scope: Scope = RAG_SCOPE,
        top_k: int | None = None,
        check_answers: bool = True,
        second_look: bool = True,
        confirm_quotes: bool = True,
    ) -> None:
        self.retriever = retriever
        self.source_store = source_store
        self.llm = llm
        self.query_transformer = query_transformer
        self.expander = expander
        self.system_prompt = system_prompt
        self.scope = scope
        self.top_k = top_k
        #: For a model that asks for it (``checks_answers``, the built-in one): ask it only
        #: when a passage found is close enough to the question, and show only what its
        #: passages support (checked.py). False: the model's answer as written.
        self.check_answers = check_answers
        #: With checked answers: when nothing the model wrote is supported, ask it again
        #: before quoting or abstaining: to go on from its own sentence where it only
        #: pointed ("The default directory is [4]."), when it can; then with the first
        #: passage alone.
        self.second_look = second_look
        #: With checked answers: passages quoted in place of the model's answer, and the
        #: answer of a second look, are shown only when the model confirms they answer
        #: (confirm.py); when it said it does not know, a quote holding less of the
        #: question may then be shown.
        self.confirm_quotes = confirm_quotes

    @classmethod
    def from_config(
        cls, config: RagConfig, *, embedder: EmbedderPort, llm: LLMClient | None
    ) -> RagRetriever:
        """A retriever (and its SQLite backend and source store) built from ``config``.

        Share the backend with a pipeline through ``rag.retriever`` and ``rag.source_store``.
        """
        from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

        retriever = build_sqlite_hybrid(
            embedder,
            config.path,
            metadata_columns=config.metadata_columns,
            config=config.retrieval,
            reranker=config.reranker,
        )
        return cls(
            retriever,
            SourceStore(retriever.db),
            llm,
            query_transformer=config.make_query_transformer(llm),
            expander=config.make_expander(),
            system_prompt=config.system_prompt,
            scope=config.scope,
        )

    # --- retrieval ----------------------------------------------------------

    def _complete(self, hits: Sequence[RetrievalResult], top_k: int) -> list[RetrievalResult]:
        """Replace indexed text with the clean chunk from the source store, drop
        repeated passages, keep ``top_k`` and expand them when an expander is set."""
        chunks = self.source_store.get_chunks([h.id for h in hits])
        out = []
        seen: set[str] = set()
        for hit in hits:
            chunk = chunks.get(hit.id)
            if chunk is None:  # index ahead of (or behind) the source store: skip it
                continue
            # The same passage twice (a file holding its text twice, or a copy of a
            # file) would spend two of the model's few passages on one text.
            text_key = " ".join(chunk.content.split()).lower()
            if text_key in seen:
                continue
            seen.add(text_key)
            meta = dict(hit.metadata)
            meta.update(chunk.metadata)
            meta.update(
                chunk_id=chunk.chunk_id,
                doc_id=chunk.doc_id,
                heading_path=chunk.heading_path,
                index=chunk.index,
            )
            hit.content = chunk.content
            hit.metadata = meta
            out.append(hit)
        out = out[:top_k]
        if self.expander is not None:
            out = self.expander.expand(out, self.source_store)
        return out

    async def _variants(self, query: str) -> list[str]:
        if self.query_transformer is None:
            return [query]
        return await self.query_transformer.atransform(query)

    def retrieve(
        self,
        query: str,
        top_k: int | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """The best chunks for ``query``, completed from the source store."""
        query, top_k = check_query(query), check_top_k(top_k)
        queries = _run_sync(self._variants(query)) if self.query_transformer else [query]
        queries = [q for q in queries if is_searchable(q)] or [query]
        top_k = top_k or self.top_k or self.retriever.config.top_k
        wanted = top_k + _SPARE
        lists = self.retriever.search_many(queries, top_k=wanted, scope=self.scope, filters=filters)
        return self._complete(self._merge(lists, wanted), top_k)

    async def aretrieve(
        self,
        query: str,
        top_k: int | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]:
        """Async twin of :meth:`retrieve`."""
        query, top_k = check_query(query), check_top_k(top_k)
        queries = [q for q in await self._variants(query) if is_searchable(q)] or [query]
        top_k = top_k or self.top_k or self.retriever.config.top_k
        wanted = top_k + _SPARE
        lists = await self.retriever.asearch_many(
            queries, top_k=wanted, scope=self.scope, filters=filters
        )
        hits = self._merge(lists, wanted)
        return await asyncio.to_thread(self._complete, hits, top_k)

    def _merge(self, lists: list[list[RetrievalResult]], top_k: int) -> list[RetrievalResult]:
        if len(lists) == 1:
            return lists[0]
        fused = reciprocal_rank_fusion(lists, top_k=top_k, k=self.retriever.config.rrf_k)
        for item in fused:  # keep the first leg's explanation, add the variant score
            item.metadata["variant_rrf_score"] = item.metadata.pop("rrf_score")
        return fused

    # --- answers ------------------------------------------------------------

    def ask_stream(
        self,
        question: str,
        top_k: int | None = None,
        filters: Sequence[MetadataFilter] | None = None,
        *,
        history: Sequence[ChatMessage] = (),
        query: str | None = None,
    ) -> AnswerStream:
        """Stream the answer: ``async for piece in rag.ask_stream(q)``.

        ``history`` (earlier turns, oldest first) goes into the prompt before the
        question; ``query`` is searched instead of the question (a follow-up rewritten
        as a standalone query). After the first piece, ``stream.sources`` and
        ``stream.extractive`` are set. A question without words, or a ``top_k`` below
        1, raises InvalidQueryError here.
        """
        return AnswerStream(
            self,
            check_query(question),
            check_top_k(top_k),
            filters,
            history=history,
            query=check_query(query, what="search query") if query is not None else None,
        )

    async def ask(
        self,
        question: str,
        top_k: int | None = None,
        filters: Sequence[MetadataFilter] | None = None,
        *,
        history: Sequence[ChatMessage] = (),
        query: str | None = None,
    ) -> AskResult:
        """Retrieve, then answer only from the numbered passages, citing them."""
        stream = self.ask_stream(
            question, top_k=top_k, filters=filters, history=history, query=query
        )
        parts = [piece async for piece in stream]
        return AskResult(
            "".join(parts),
            stream.sources,
            stream.extractive,
            stream.abstained,
            stream.error,
            list(stream.unsupported),
            note=stream.note,
            draft=stream.draft,
            withheld=list(stream.withheld),
        )
