"""Part of the bridge: the open library's conversations (``bridge.chats``).

Lists, opens, renames, deletes (with undo), searches and exports conversations, and
asks in the current one, streaming. Engine calls run off the GUI thread; everything
comes back as Qt signals. The answer runs as the bridge's answer task, so Stop, Esc and
``bridge.answering`` work for it as for any answer. A new chat is only created in the
library when its first question is asked, so empty chats never pile up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from agentmaker_desk.engine_messages import engine_text

log = logging.getLogger(__name__)
#: Conversations listed at a time in the sidebar.
PAGE = 200


class AnswerHost(Protocol):
    """What the chats need of the bridge (it creates them; no import circle)."""

    @property
    def library(self) -> Any: ...

    @property
    def answering(self) -> bool: ...

    @property
    def top_k(self) -> int | None: ...

    def run_answer(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    def stop_answer(self) -> None: ...

    async def wait_answer(self) -> None: ...

    def mark_busy(self, delta: int) -> None: ...

    async def close_stream(self, stream: Any) -> None: ...


def _stem(word: str) -> str:
    # Crude, but enough to say that "repairs" matched "repair" (the index stems too).
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def matched_words(query: str, passage: str) -> list[str]:
    """The words of ``query`` found in ``passage`` (for "matched the words …")."""
    from agentmaker.retrieval.text_analysis import query_terms

    text = passage.lower()
    return [t for t in query_terms(query) if len(t) > 1 and _stem(t) in text][:4]


class ConversationLinks(QObject):
    """Conversations of the open library and asking in the current one."""

    listed = Signal(list)  # list[ConversationSummary], newest first
    opened = Signal(object)  # Conversation (turns included), or None for a new chat
    searched = Signal(str, list)  # text, list[SearchHit]
    deleted = Signal(str)  # title of the deleted chat (undo is possible)
    restored = Signal(str)  # conversation id put back by undo
    turnStarted = Signal(str)  # question
    turnQuery = Signal(str)  # what is searched (the rewritten follow-up)
    turnSources = Signal(list, bool)  # list[TurnSource] (with matched words), extractive
    turnPiece = Signal(str)
    turnFinished = Signal(object, bool)  # the stored Turn (or None), stopped
    turnFailed = Signal(str)
    exported = Signal(str)  # path written
    failed = Signal(str)  # an operation failed: plain-language message

    def __init__(self, bridge: AnswerHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.current_id: str | None = None
        self.conversations: list[Any] = []
        self._undo: Any = None

    @property
    def _convs(self) -> Any:
        lib = self._bridge.library
        return lib.conversations if lib is not None else None

    # --- the list ----------------------------------------------------------------

    async def refresh(self) -> list[Any]:
        """Re-list the conversations (newest first) and emit ``listed``."""
        convs = self._convs
        if convs is None:
            self.conversations = []
        else:
            self.conversations = await asyncio.to_thread(convs.list, limit=PAGE)
        self.listed.emit(list(self.conversations))
        return self.conversations

    def new_chat(self) -> None:
        """Start a new chat (stored once its first question is asked)."""
        self._bridge.stop_answer()
        self.current_id = None
        self.opened.emit(None)

    async def open(self, conversation_id: str) -> Any:
        """Make ``conversation_id`` current and emit ``opened`` with its turns."""
        from agentmaker.errors import AgentmakerError

        convs = self._convs
        if convs is None:
            return None
        if self._bridge.answering:
            self._bridge.stop_answer()
            await self._bridge.wait_answer()
        try:
            conversation = await asyncio.to_thread(convs.get, conversation_id)
        except AgentmakerError as error:
            self.failed.emit(engine_text(error))
            await self.refresh()
            return None
        for turn in conversation.turns:
            self._explain(turn.query, turn.sources)
        self.current_id = conversation_id
        self.opened.emit(conversation)
        return conversation

    async def rename(self, conversation_id: str, title: str) -> None:
        """Retitle a conversation (an empty title is ignored)."""
        from agentmaker.errors import AgentmakerError

        if self._convs is None or not title.strip():
            await self.refresh()
            return
        try:
            await asyncio.to_thread(self._convs.rename, conversation_id, title)
        except AgentmakerError as error:
            self.failed.emit(engine_text(error))
        await self.refresh()

    async def delete(self, conversation_id: str) -> bool:
        """Delete a conversation; :meth:`undo` puts it back."""
        convs = self._convs
        if convs is None:
            return False
        if conversation_id == self.current_id:
            self.new_chat()
        removed = await asyncio.to_thread(convs.delete, conversation_id)
        await self.refresh()
        if removed is None:
            return False
        self._undo = removed
        self.deleted.emit(removed.title)
        return True

    @property
    def can_undo(self) -> bool:
        """True while a deleted conversation can be put back."""
        return self._undo is not None

    async def undo(self) -> str | None:
        """Put back the conversation deleted last; returns its id."""
        convs, removed = self._convs, self._undo
        if convs is None or removed is None:
            return None
        self._undo = None
        await asyncio.to_thread(convs.restore, removed)
        await self.refresh()
        self.restored.emit(removed.conversation_id)
        return str(removed.conversation_id)

    async def search(self, text: str) -> list[Any]:
        """Conversations whose questions or answers hold every word of ``text``."""
        convs = self._convs
        hits = (
            [] if convs is None or not text.strip() else await asyncio.to_thread(convs.search, text)
        )
        self.searched.emit(text, list(hits))
        return list(hits)

    async def export(self, path: str, conversation_id: str | None = None) -> bool:
        """Write the conversation (the current one by default) to ``path`` (.md, .html)."""
        from agentmaker.errors import AgentmakerError

        convs = self._convs
        cid = conversation_id or self.current_id
        if convs is None or cid is None:
            self.failed.emit(self.tr("There is no conversation to export yet."))
            return False
        try:
            written = await asyncio.to_thread(convs.export_file, cid, path)
        except AgentmakerError as error:
            self.failed.emit(engine_text(error))
            return False
        self.exported.emit(str(written))
        return True

    def forget(self) -> None:
        """The library closed: no current chat, nothing to undo."""
        self.current_id = None
        self._undo = None
        self.conversations = []

    # --- asking ---------------------------------------------------------------------

    def ask(self, question: str) -> asyncio.Task[Any]:
        """Ask ``question`` in the current chat (a new one when there is none)."""
        return self._bridge.run_answer(self._answer(question, regenerate=False))

    def regenerate(self) -> asyncio.Task[Any] | None:
        """Answer the current chat's last question again, in its place."""
        if self.current_id is None:
            return None
        return self._bridge.run_answer(self._answer("", regenerate=True))

    def _explain(self, query: str, sources: list[Any]) -> None:
        for source in sources:
            # The keyword index also holds the heading path (heading context), so a word
            # can match there rather than in the passage.
            searched = f"{source.title}\n{source.heading_path}\n{source.content}"
            source.metadata["matched_words"] = matched_words(query, searched)

    def _note(self, stream: Any) -> str | None:
        """Why the answer shown is not (only) what the model wrote, or None."""
        note = str(getattr(stream, "note", "") or "")
        draft = " ".join(str(getattr(stream, "draft", "") or "").split())
        withheld = " ".join(getattr(stream, "withheld", None) or [])
        if len(draft) > 240:
            draft = draft[:240] + "…"
        if note == "not_found":
            return self.tr(
                "No passage found is close to this question, so the model was not asked."
            )
        if note == "no_field":
            columns = ", ".join(getattr(stream, "columns", None) or ())
            return self.tr(
                "The question names a row of your data, and none of its columns ({columns}) "
                "is what it asks for, so the model was not asked."
            ).format(columns=columns)
        if note == "unsupported":
            return self.tr(
                "The model's answer is not in the passages it was given, so it is not shown "
                "as the answer. Its unchecked draft: {draft}"
            ).format(draft=draft)
        if note == "quoted_unsupported":
            return self.tr(
                "The model's answer is not in its passages; these quoted passages look "
                "relevant. Its unchecked draft: {draft}"
            ).format(draft=draft)
        if note == "quoted_not_answered":
            return self.tr("The model did not answer; these quoted passages look relevant.")
        if note == "second_look":
            return self.tr(
                "The model found no answer in all the passages at once; this one is from its "
                "second reading, of passage [1] alone, checked like any answer."
            )
        if note == "went_on":
            return self.tr(
                "The model first only pointed at a passage; this is its own sentence, "
                "finished when it was asked to go on, and checked like any answer."
            )
        if note == "withheld" and withheld:
            return self.tr("Left out, because no passage says it: {sentences}").format(
                sentences=withheld[:240]
            )
        return None

    async def _answer(self, question: str, *, regenerate: bool) -> Any:
        from agentmaker.errors import AgentmakerError

        convs = self._convs
        if convs is None:
            self.turnFailed.emit(self.tr("No library is open."))
            return None
        bridge = self._bridge
        top_k = bridge.top_k
        try:
            if self.current_id is None:
                created = await asyncio.to_thread(convs.create)
                self.current_id = created.conversation_id
            if regenerate:
                stream = await asyncio.to_thread(
                    convs.regenerate_stream, self.current_id, top_k=top_k
                )
            else:
                stream = convs.ask_stream(self.current_id, question, top_k=top_k)
        except AgentmakerError as error:
            self.turnFailed.emit(engine_text(error))
            return None
        self.turnStarted.emit(stream.question)
        bridge.mark_busy(+1)
        sent = False
        stopped = False
        failure: str | None = None
        try:
            async for piece in stream:
                if not sent:
                    sent = True
                    self.turnQuery.emit(stream.query)
                    self._explain(stream.query, stream.sources)
                    self.turnSources.emit(list(stream.sources), bool(stream.extractive))
                self.turnPiece.emit(piece)
            # The model failed and the passages were quoted instead: say why.
            failure = str(getattr(stream, "error", "") or "") or None
            unsupported = list(getattr(stream, "unsupported", None) or [])
            if failure is None and unsupported:  # the model may have answered from memory
                failure = self.tr(
                    "Check this answer: {numbers} appear in none of the passages it was given."
                ).format(numbers=", ".join(unsupported))
            if failure is None:
                failure = self._note(stream)
        except asyncio.CancelledError:
            stopped = True
            raise
        except AgentmakerError as error:
            failure = engine_text(error)
        finally:
            bridge.mark_busy(-1)
            await asyncio.shield(bridge.close_stream(stream))
            turn = stream.turn  # also stored when stopped or failed part-way
            if turn is not None:
                self._explain(turn.query, turn.sources)
            if stopped or turn is not None:
                self.turnFinished.emit(turn, stopped)
            if failure is not None:  # after the stored part, so the message stays shown
                self.turnFailed.emit(failure)
            await asyncio.shield(self.refresh())
        return stream.turn
