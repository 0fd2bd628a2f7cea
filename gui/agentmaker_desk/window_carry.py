"""What a main window rebuilt in another language carries over from the old one.

Switching the language builds a new window (every text is written at construction);
this keeps what the person was looking at: the open chat and its answers, the passage
shown beside it, the question being typed, the import panel's batches and failures, and
the offer to keep a folder in sync.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentmaker_desk.main_window import MainWindow


@dataclass
class WindowCarry:
    """The old window's state, as plain data."""

    chat_id: str | None = None
    draft: str = ""
    sidebar_index: int = 0
    passage: dict[str, Any] | None = None
    batches: list[dict[str, Any]] = field(default_factory=list)
    panel_visible: bool = False
    link_folders: list[str] = field(default_factory=list)


def capture(window: MainWindow) -> WindowCarry:
    """Read what ``window`` shows now."""
    return WindowCarry(
        chat_id=window.bridge.chats.current_id,
        draft=window.ask_bar.edit.toPlainText(),
        sidebar_index=window.sidebar.currentIndex(),
        passage=window.source_view.shown,
        batches=window.ingest_panel.snapshot(),
        panel_visible=window.ingest_panel.isVisible(),
        link_folders=window.link_offer.folders,
    )


def restore(window: MainWindow, carry: WindowCarry) -> Any:
    """Show ``carry`` in the new ``window``; returns the task reopening the chat (or None)."""
    window.conversation_list.set_conversations(list(window.bridge.chats.conversations))
    window.sidebar.setCurrentIndex(carry.sidebar_index)
    if carry.draft:
        window.ask_bar.edit.setPlainText(carry.draft)
    if carry.batches:
        window.ingest_panel.restore(carry.batches)
    if window.bridge.ocr.running:  # scans are being read: the panel follows them again
        window.ingest_panel.ocr_started()
    window.ingest_panel.setVisible(carry.panel_visible)
    if carry.link_folders:
        window.link_offer.offer(carry.link_folders)
    if carry.chat_id is None:
        if carry.passage:
            window.source_view.show_passage(**carry.passage)
        return None
    return window.bridge.spawn(_reopen(window, carry), "carry-chat")


async def _reopen(window: MainWindow, carry: WindowCarry) -> None:
    # Opening the chat clears the passage view, so the passage comes back after it.
    assert carry.chat_id is not None
    await window.bridge.chats.open(carry.chat_id)
    if carry.passage:
        window.source_view.show_passage(**carry.passage)
