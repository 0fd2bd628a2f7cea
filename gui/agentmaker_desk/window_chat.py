"""The main window's chat handlers: asking, new/open chat, regenerate, export, citations.

A mixin of :class:`~agentmaker_desk.main_window.MainWindow` (it uses the window's
widgets and bridge), kept apart so the window's file stays about building and wiring.
Texts keep the ``MainWindow`` translation context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog

from agentmaker_desk.chat.answer_html import quoted_sentences
from agentmaker_desk.chat.transcript import status_words

if TYPE_CHECKING:
    from agentmaker_desk.bridge.bridge import EngineBridge
    from agentmaker_desk.chat.ask_box import AskBar
    from agentmaker_desk.chat.conversation_list import ConversationList
    from agentmaker_desk.chat.source_view import SourceView
    from agentmaker_desk.chat.transcript import TranscriptView
    from agentmaker_desk.library.chunk_browser import ChunkBrowser


class WindowChat:
    """Chat behaviour of the main window."""

    bridge: EngineBridge
    transcript: TranscriptView
    ask_bar: AskBar
    conversation_list: ConversationList
    source_view: SourceView
    browser: ChunkBrowser
    sidebar: Any
    _regenerating: bool
    _shown_chunk_id: str | None

    if TYPE_CHECKING:  # provided by MainWindow / QMainWindow

        def focus_question(self) -> None: ...
        def _notice(self, message: str) -> None: ...
        def _open_dialog(self, dialog: Any) -> None: ...
        async def _show_chunk(
            self, chunk: Any, doc_id: str, title: str, source: str, quotes: Any = ()
        ) -> None: ...

    def ask(self, question: str) -> Any:
        """Ask ``question`` in the current chat (stops an answer still being written)."""
        if self.bridge.library is None:
            return None
        self.ask_bar.edit.clear()
        self._regenerating = False
        return self.bridge.chats.ask(question)

    def regenerate(self) -> Any:
        """Answer the last question of this chat again."""
        if self.bridge.library is None or self.bridge.answering:
            return None
        self._regenerating = True
        return self.bridge.chats.regenerate()

    def new_chat(self) -> None:
        """Start a new chat (Ctrl+N)."""
        self.sidebar.setCurrentWidget(self.conversation_list)
        self.bridge.chats.new_chat()
        self.focus_question()

    def open_chat(self, conversation_id: str) -> Any:
        """Show a stored chat."""
        return self.bridge.spawn(self.bridge.chats.open(conversation_id), "open-chat")

    def _chat_opened(self, conversation: Any) -> None:
        self._shown_chunk_id = None
        self.source_view.clear()
        self.transcript.model_available = self.bridge.has_model
        self.transcript.show_conversation(conversation)
        self.ask_bar.set_answering(False)
        self.conversation_list.set_current(
            conversation.conversation_id if conversation is not None else None
        )

    def _turn_started(self, question: str) -> None:
        self.transcript.start_turn(question, replace_last=self._regenerating)
        self._regenerating = False
        self.ask_bar.set_answering(True)
        self.conversation_list.set_current(self.bridge.chats.current_id)

    def _turn_finished(self, turn: Any, stopped: bool) -> None:
        self.transcript.model_available = self.bridge.has_model
        self.transcript.finish(turn, stopped)
        self.ask_bar.set_answering(False)
        self.conversation_list.set_current(self.bridge.chats.current_id)

    def _turn_failed(self, message: str) -> None:
        self.transcript.fail(message)
        self.ask_bar.set_answering(False)

    @property
    def _sources(self) -> dict[int, Any]:
        """The sources of the newest answer, by number."""
        turns = self.transcript.turns
        return {int(s.n): s for s in turns[-1].sources} if turns else {}

    def export_conversation(self) -> None:
        """File → Export conversation…: pick a Markdown or HTML file (non-modal)."""
        if self.bridge.chats.current_id is None:
            self._notice(
                QCoreApplication.translate("MainWindow", "There is no conversation to export yet.")
            )
            return
        dialog = QFileDialog(self, QCoreApplication.translate("MainWindow", "Export conversation"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        markdown, page = (
            QCoreApplication.translate("MainWindow", "Markdown (*.md)"),
            QCoreApplication.translate("MainWindow", "Web page (*.html)"),
        )
        dialog.setNameFilters([markdown, page])
        dialog.setDefaultSuffix("md")
        dialog.filterSelected.connect(
            lambda chosen: dialog.setDefaultSuffix("html" if chosen == page else "md")
        )
        dialog.fileSelected.connect(self.export_conversation_to)
        self._open_dialog(dialog)

    def export_conversation_to(self, path: str) -> Any:
        """Write the current chat to ``path`` (.md or .html)."""
        return self.bridge.spawn(self.bridge.chats.export(path), "export")

    def _citation_clicked(self, turn: int, n: int) -> Any:
        return self.show_source(n, turn)

    def show_source(self, n: int, turn: int = -1) -> Any:
        """Show source ``n`` of answer ``turn`` (the newest by default) in its document."""
        index = turn if turn >= 0 else len(self.transcript.turns) + turn
        source = self.transcript.source(index, n)
        if source is None:
            return None
        quotes = quoted_sentences(self.transcript.answer_text(index), n, source.content)
        return self.bridge.spawn(self._show_source(source, quotes), "show-source")

    async def _show_source(self, source: Any, quotes: list[str]) -> None:
        status = getattr(source, "status", "current")
        chunk = None
        if status == "current" and source.chunk_id:
            chunk = await self.bridge.get_chunk(source.chunk_id)
        if chunk is None:  # changed or removed since the answer: show the quoted text
            note = status_words(source)
            note = (note[:1].upper() + note[1:] + ". ") if note else ""
            self._shown_chunk_id = None
            self.source_view.show_passage(
                title=source.title,
                source_path=source.source,
                document_text=None,
                chunk=source,
                doc_id=source.doc_id,
                note=note
                + QCoreApplication.translate("MainWindow", "Showing the text the answer used."),
                quotes=quotes,
            )
            return
        await self._show_chunk(chunk, source.doc_id, source.title, source.source, quotes)
        self.browser.reveal_chunk(source.doc_id, chunk.heading_path, chunk.chunk_id)
