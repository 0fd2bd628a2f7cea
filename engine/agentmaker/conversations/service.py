"""Conversations: ``library.conversations``, threads of questions that remember.

Asking in a conversation rewrites a follow-up into a standalone query (with the model
when there is one, else by rule), searches that, answers with the earlier turns in the
prompt, and stores the turn with a snapshot of its passages. Reading a conversation back
marks each snapshot against today's library: ``current``, ``changed`` or ``removed``.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncGenerator, Iterable, Sequence
from pathlib import Path
from typing import Literal

from agentmaker.conversations.condense import Exchange, condense_by_rule, condense_with_model
from agentmaker.conversations.export import to_html, to_markdown
from agentmaker.conversations.history import HISTORY_TOKENS, history_messages
from agentmaker.conversations.records import (
    Conversation,
    ConversationSummary,
    SearchHit,
    Turn,
    TurnSource,
    text_hash,
)
from agentmaker.conversations.store import ConversationStore
from agentmaker.errors import ConfigurationError, ConversationNotFoundError, StorageError
from agentmaker.rag.answer.answer_stream import TextStream
from agentmaker.rag.answer.retriever import RagRetriever
from agentmaker.retrieval.database import Database
from agentmaker.retrieval.types import Scope

ExportFormat = Literal["markdown", "html"]
_SUFFIXES: dict[str, ExportFormat] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "markdown",
    ".html": "html",
    ".htm": "html",
}


class Conversations:
    """The conversations of a library (of its scope), and asking within them."""

    def __init__(self, db: Database, rag: RagRetriever, *, scope: Scope) -> None:
        self.rag = rag
        self.store = ConversationStore(db, scope)
        #: Tokens of earlier turns the answer prompt may carry (oldest dropped first).
        self.history_tokens = HISTORY_TOKENS

    @property
    def scope(self) -> Scope:
        """Whose conversations these are."""
        return self.store.scope

    @scope.setter
    def scope(self, scope: Scope) -> None:
        self.store.scope = scope

    # --- the list --------------------------------------------------------------------

    def create(self, title: str = "") -> ConversationSummary:
        """A new, empty conversation (titled by its first question unless given one)."""
        return self.store.create(title)

    def list(self, *, limit: int = 50, offset: int = 0) -> list[ConversationSummary]:
        """Conversations, most recently used first, a page at a time."""
        return self.store.list(limit=limit, offset=offset)

    def count(self) -> int:
        """How many conversations there are."""
        return self.store.count()

    def get(self, conversation_id: str) -> Conversation:
        """A conversation with its turns; each source marked against today's library."""
        conversation = self.store.get(conversation_id)
        self._mark(s for t in conversation.turns for s in t.sources)
        return conversation

    def rename(self, conversation_id: str, title: str) -> None:
        """Retitle a conversation."""
        self.store.rename(conversation_id, title)

    def delete(self, conversation_id: str) -> Conversation | None:
        """Delete a conversation. Returns it (for :meth:`restore`, i.e. undo), or None
        when it was not there."""
        try:
            conversation = self.store.get(conversation_id)
        except ConversationNotFoundError:
            return None
        return conversation if self.store.delete(conversation_id) else None

    def restore(self, conversation: Conversation) -> None:
        """Put back a conversation :meth:`delete` returned."""
        self.store.restore(conversation)

    def search(self, text: str, *, limit: int = 50) -> builtins.list[SearchHit]:
        """Conversations whose questions or answers hold every word of ``text``."""
        return self.store.search(text, limit=limit)

    def _mark(self, sources: Iterable[TurnSource]) -> None:
        items = list(sources)
        if not items:
            return
        store = self.rag.source_store
        docs = {s.doc_id for s in items}
        present = {d for d in docs if store.get_document(d) is not None}
        chunks = store.get_chunks([s.chunk_id for s in items if s.doc_id in present])
        for src in items:
            chunk = chunks.get(src.chunk_id)
            if src.doc_id not in present:
                src.status = "removed"
            elif chunk is None or text_hash(chunk.content) != src.content_hash:
                src.status = "changed"
            else:
                src.status = "current"

    # --- export ----------------------------------------------------------------------

    def export(self, conversation_id: str, fmt: ExportFormat = "markdown") -> str:
        """The conversation as Markdown or (escaped) HTML, with numbered sources."""
        conversation = self.get(conversation_id)
        if fmt == "markdown":
            return to_markdown(conversation)
        if fmt == "html":
            return to_html(conversation)
        raise ConfigurationError(f"Unknown export format {fmt!r}: use 'markdown' or 'html'.")

    def export_file(self, conversation_id: str, path: str | Path) -> Path:
        """Write the conversation to ``path``; its suffix picks the format (.md, .html)."""
        target = Path(path)
        fmt = _SUFFIXES.get(target.suffix.lower())
        if fmt is None:
            raise ConfigurationError(
                f"Cannot export to {target.name}: name the file .md (Markdown) or .html."
            )
        text = self.export(conversation_id, fmt)
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise StorageError(
                f"Could not write {target}: {exc.strerror or exc}. Choose a folder you may "
                "write to."
            ) from exc
        return target

    # --- asking ----------------------------------------------------------------------

    async def condense(self, turns: Sequence[Turn], question: str) -> str:
        """The standalone query for ``question`` after ``turns`` (model, else rule)."""
        history = [Exchange(t.question, t.query, t.answer) for t in turns]
        llm = self.rag.llm
        if llm is None:
            return condense_by_rule(history, question)
        return await condense_with_model(llm, history, question)

    def ask_stream(
        self, conversation_id: str, question: str, *, top_k: int | None = None
    ) -> ConversationAnswerStream:
        """Ask in a conversation, streaming: ``async for piece in stream``. The turn is
        stored when the answer ends (``stream.turn``), also when it is stopped early."""
        return ConversationAnswerStream(self, conversation_id, question, top_k=top_k)

    def regenerate_stream(
        self, conversation_id: str, *, top_k: int | None = None
    ) -> ConversationAnswerStream:
        """Answer the last question again; the new turn takes the old one's place."""
        conversation = self.store.get(conversation_id)
        if not conversation.turns:
            raise ConfigurationError(
                f"The conversation {conversation.title or conversation_id!r} has no question "
                "to answer again yet: ask one first."
            )
        last = conversation.turns[-1]
        return ConversationAnswerStream(
            self, conversation_id, last.question, top_k=top_k, replace=last.turn_id
        )

    async def ask(self, conversation_id: str, question: str, *, top_k: int | None = None) -> Turn:
        """Ask in a conversation and return the stored turn."""
        stream = self.ask_stream(conversation_id, question, top_k=top_k)
        async for _ in stream:
            pass
        assert stream.turn is not None
        return stream.turn


class ConversationAnswerStream(TextStream):
    """An answer being produced in a conversation.

    After the first piece, ``query`` (what was searched), ``sources`` and ``extractive``
    are set; once the answer ended (or ``aclose()`` stopped it), ``turn`` is the stored turn
    (a stopped answer is stored with what it had written, marked as stopped).
    """

    def __init__(
        self,
        conversations: Conversations,
        conversation_id: str,
        question: str,
        *,
        top_k: int | None = None,
        replace: str | None = None,
    ) -> None:
        self.conversation_id = conversation_id
        self.question = question
        self.query = ""
        self.answer = ""
        self.sources: list[TurnSource] = []
        self.extractive = conversations.rag.llm is None
        self.error = ""  # the model's failure when an extractive answer replaced it
        #: Numbers in the model's answer that none of its passages holds.
        self.unsupported: list[str] = []
        #: Why the answer is not (only) the model's text, its draft, the sentences left
        #: out and the named row's fields (see ``AnswerStream.note``).
        self.note = ""
        self.draft = ""
        self.withheld: list[str] = []
        self.columns: tuple[str, ...] = ()
        self.turn: Turn | None = None
        self._owner = conversations
        self._top_k = top_k
        self._replace = replace
        self._gen = self._produce()

    async def _produce(self) -> AsyncGenerator[str, None]:
        owner = self._owner
        rag = owner.rag
        conversation = await asyncio.to_thread(owner.store.get, self.conversation_id)
        earlier = conversation.turns
        if self._replace is not None:
            cut = next(i for i, t in enumerate(earlier) if t.turn_id == self._replace)
            earlier = earlier[:cut]
        self.query = await owner.condense(earlier, self.question)
        llm = rag.llm
        self.extractive = llm is None
        inner = rag.ask_stream(
            self.question,
            top_k=self._top_k,
            history=history_messages(earlier, owner.history_tokens) if llm else (),
            query=self.query,
        )
        finished = False
        try:
            async for piece in inner:
                if not self.sources:
                    self.sources = [TurnSource.from_ref(r) for r in inner.sources]
                    self.extractive = bool(inner.extractive)  # also the model's fallback
                yield piece
            self.sources = [TurnSource.from_ref(r) for r in inner.sources]
            self.extractive, self.error = bool(inner.extractive), inner.error
            self.unsupported = list(inner.unsupported)
            self.note, self.draft = inner.note, inner.draft
            self.withheld, self.columns = list(inner.withheld), inner.columns
            finished = True
        finally:
            await inner.aclose()
            if finished or self.answer:
                self.turn = await asyncio.to_thread(
                    owner.store.add_turn,
                    self.conversation_id,
                    question=self.question,
                    query=self.query,
                    answer=self.answer,
                    extractive=self.extractive,
                    model="" if llm is None else llm.name,
                    sources=self.sources,
                    stopped=not finished,
                    replace=self._replace,
                )
