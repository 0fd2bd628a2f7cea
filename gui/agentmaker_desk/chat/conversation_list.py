"""The sidebar's chats: New chat, a search box, and the list (rename, delete with undo).

Rows are plain text (titles are untrusted: they are the first question). Renaming is
done in place (F2, double-click or the Rename button); Delete removes the chat and
offers Undo for a few seconds. While the search box holds text, the list shows the
chats whose questions or answers match, each with a snippet.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.widgets.icons import icon

_ID = Qt.ItemDataRole.UserRole + 1
#: How long the search box waits for typing to pause (milliseconds).
SEARCH_DELAY_MS = 250
#: How long Undo is offered after a delete (milliseconds).
UNDO_MS = 8000


def when_text(stamp: float, now: float | None = None) -> str:
    """A short date for a chat row: the time today, else the date."""
    now = time.time() if now is None else now
    local, today = time.localtime(stamp), time.localtime(now)
    if local[:3] == today[:3]:
        return time.strftime("%H:%M", local)
    return time.strftime("%Y-%m-%d", local)


class ConversationList(QWidget):
    """New chat button, search box and the list of chats."""

    newRequested = Signal()
    openRequested = Signal(str)  # conversation id
    renameRequested = Signal(str, str)  # conversation id, new title
    deleteRequested = Signal(str)
    undoRequested = Signal()
    searchRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._current: str | None = None
        self._filling = False
        self._all: list[Any] = []

        self.new_button = QPushButton(icon("chat"), self.tr("New chat"), self)
        self.new_button.setObjectName("newChatButton")
        self.new_button.setToolTip(self.tr("Start a new chat (Ctrl+N)"))
        self.new_button.clicked.connect(self.newRequested)

        self.search_edit = QLineEdit(self)
        self.search_edit.setObjectName("chatSearch")
        self.search_edit.setPlaceholderText(self.tr("Search chats"))
        self.search_edit.setAccessibleName(self.tr("Search chats"))
        self.search_edit.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._search_now)
        self.search_edit.textChanged.connect(lambda _t: self._search_timer.start())

        self.list = QListWidget(self)
        self.list.setObjectName("chatList")
        self.list.setAccessibleName(self.tr("Chats"))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        self.list.itemChanged.connect(self._renamed)
        self.list.currentItemChanged.connect(lambda *_: self._update_buttons())

        self.rename_button = self._tool_button("edit", self.tr("Rename chat"), self.rename_current)
        self.delete_button = self._tool_button(
            "delete", self.tr("Delete chat"), self.delete_current
        )
        delete_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.list)
        delete_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self.delete_current)

        self.undo_label = QLabel(self)
        self.undo_label.setTextFormat(Qt.TextFormat.PlainText)
        self.undo_label.setWordWrap(True)
        self.undo_button = QPushButton(self.tr("Undo"), self)
        self.undo_button.setObjectName("undoDeleteButton")
        self.undo_button.clicked.connect(self._undo)
        self.undo_bar = QWidget(self)
        undo_layout = QHBoxLayout(self.undo_bar)
        undo_layout.setContentsMargins(0, 0, 0, 0)
        undo_layout.addWidget(self.undo_label, 1)
        undo_layout.addWidget(self.undo_button)
        self.undo_bar.setVisible(False)
        self._undo_timer = QTimer(self)
        self._undo_timer.setSingleShot(True)
        self._undo_timer.setInterval(UNDO_MS)
        self._undo_timer.timeout.connect(lambda: self.undo_bar.setVisible(False))

        top = QHBoxLayout()
        top.addWidget(self.new_button, 1)
        top.addWidget(self.rename_button)
        top.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.search_edit)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.undo_bar)
        self._update_buttons()

    def _tool_button(self, name: str, text: str, slot: Any) -> QToolButton:
        button = QToolButton(self)
        button.setIcon(icon(name))
        button.setIconSize(QSize(18, 18))
        button.setAccessibleName(text)
        button.setToolTip(text)
        button.clicked.connect(slot)
        return button

    # --- filling -----------------------------------------------------------------

    def set_conversations(self, conversations: Iterable[Any]) -> None:
        """Show these chats (newest first), unless a search is showing its results."""
        self._all = list(conversations)
        if self.search_text:
            self._search_now()
            return
        self._show_all()

    def _show_all(self) -> None:
        rows = [
            (c.conversation_id, c.title or self.tr("New chat"), when_text(c.updated_at), "")
            for c in self._all
        ]
        self._fill(rows)

    def set_search_results(self, text: str, hits: Iterable[Any]) -> None:
        """Show the chats matching ``text`` (ignored when the box changed meanwhile)."""
        if not text or text != self.search_text:
            return
        rows = [(h.conversation_id, h.title or self.tr("New chat"), "", h.snippet) for h in hits]
        self._fill(rows)
        if not rows:
            item = QListWidgetItem(self.tr("No chat mentions this."))
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(item)

    def _fill(self, rows: list[tuple[str, str, str, str]]) -> None:
        self._filling = True
        try:
            self.list.clear()
            for cid, title, when, snippet in rows:
                item = QListWidgetItem(title)
                item.setData(_ID, cid)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, title)
                # Tooltips guess rich text: a title is a question anyone could have typed.
                tip = "<br>".join(html.escape(p) for p in (title, when, snippet) if p)
                item.setToolTip(f"<p>{tip}</p>")
                if snippet:
                    item.setData(Qt.ItemDataRole.StatusTipRole, snippet)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.list.addItem(item)
                if cid == self._current:
                    self.list.setCurrentItem(item)
        finally:
            self._filling = False
        self._update_buttons()

    def set_current(self, conversation_id: str | None) -> None:
        """Mark the chat shown in the transcript (None: a new chat)."""
        self._current = conversation_id
        self._filling = True
        try:
            if conversation_id is None:
                self.list.setCurrentItem(None)
                self.list.clearSelection()
            for i in range(self.list.count()):
                item = self.list.item(i)
                if item.data(_ID) == conversation_id:
                    self.list.setCurrentItem(item)
        finally:
            self._filling = False
        self._update_buttons()

    @property
    def search_text(self) -> str:
        return self.search_edit.text().strip()

    def ids(self) -> list[str]:
        """Conversation ids of the rows, top to bottom."""
        return [
            self.list.item(i).data(_ID)
            for i in range(self.list.count())
            if self.list.item(i).data(_ID)
        ]

    def titles(self) -> list[str]:
        """Titles of the rows, top to bottom."""
        return [
            self.list.item(i).text()
            for i in range(self.list.count())
            if self.list.item(i).data(_ID)
        ]

    # --- actions -----------------------------------------------------------------

    def selected_id(self) -> str | None:
        item = self.list.currentItem()
        return item.data(_ID) if item is not None else None

    def rename_current(self) -> None:
        """Edit the selected chat's title in place."""
        item = self.list.currentItem()
        if item is not None and item.data(_ID):
            self.list.editItem(item)

    def delete_current(self) -> None:
        """Delete the selected chat (Undo is offered)."""
        cid = self.selected_id()
        if cid:
            self.deleteRequested.emit(cid)

    def offer_undo(self, title: str) -> None:
        """Show “Deleted …  Undo” for a few seconds."""
        self.undo_label.setText(
            self.tr("Deleted “{title}”.").format(title=title or self.tr("New chat"))
        )
        self.undo_bar.setVisible(True)
        self._undo_timer.start()

    def _undo(self) -> None:
        self.undo_bar.setVisible(False)
        self._undo_timer.stop()
        self.undoRequested.emit()

    def _activated(self, item: QListWidgetItem) -> None:
        cid = item.data(_ID)
        if cid and cid != self._current:
            self.openRequested.emit(cid)

    def _renamed(self, item: QListWidgetItem) -> None:
        if self._filling:
            return
        cid = item.data(_ID)
        if cid:
            self.renameRequested.emit(cid, item.text())

    def _search_now(self) -> None:
        self._search_timer.stop()
        if self.search_text:
            self.searchRequested.emit(self.search_text)
        else:
            self._show_all()

    def _update_buttons(self) -> None:
        has = self.selected_id() is not None
        self.rename_button.setEnabled(has)
        self.delete_button.setEnabled(has)
