"""The question box: Enter asks, Shift+Enter starts a new line, Stop ends the answer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QToolButton, QWidget

from agentmaker_desk.widgets.icons import icon


def local_paths(mime: QMimeData) -> list[str]:
    """The local files and folders carried by a drag (other URLs are ignored)."""
    if not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and url.toLocalFile()]


class QuestionEdit(QPlainTextEdit):
    """A multi-line question field; dropping files on it adds them instead of pasting paths."""

    submitted = Signal()
    filesDropped = Signal(list)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            event.accept()
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(local_paths(source)) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        paths = local_paths(source)
        if paths:
            self.filesDropped.emit(paths)
            return
        super().insertFromMimeData(source)

    def sizeHint(self) -> QSize:
        line = self.fontMetrics().lineSpacing()
        return QSize(super().sizeHint().width(), line * 3 + 16)


class AskBar(QWidget):
    """Question field, Ask button and the icon-only Stop button."""

    askRequested = Signal(str)
    stopRequested = Signal()
    filesDropped = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QuestionEdit(self)
        self.edit.setObjectName("questionEdit")
        self.edit.setAccessibleName(self.tr("Question"))
        self.edit.setPlaceholderText(
            self.tr(
                "Ask a question about your documents (Enter to ask, Shift+Enter for a new line)"
            )
        )
        self.edit.setTabChangesFocus(True)
        self.edit.setMaximumHeight(self.edit.sizeHint().height() * 2)
        self.edit.submitted.connect(self._submit)
        self.edit.filesDropped.connect(self.filesDropped)

        self.ask_button = QPushButton(icon("send"), self.tr("Ask"), self)
        self.ask_button.setObjectName("askButton")
        self.ask_button.setToolTip(self.tr("Ask (Enter)"))
        self.ask_button.clicked.connect(self._submit)
        self.stop_button = QToolButton(self)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setIcon(icon("stop"))
        self.stop_button.setIconSize(QSize(20, 20))
        self.stop_button.setAccessibleName(self.tr("Stop the answer"))
        self.stop_button.setToolTip(self.tr("Stop the answer (Esc)"))
        self.stop_button.clicked.connect(self.stopRequested)
        self.stop_button.setEnabled(False)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.ask_button, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignBottom)

    def set_answering(self, answering: bool) -> None:
        """Stop is enabled only while an answer is being written."""
        self.stop_button.setEnabled(answering)

    def question(self) -> str:
        return self.edit.toPlainText().strip()

    def _submit(self) -> None:
        question = self.question()
        if question:
            self.askRequested.emit(question)


def display_name(path: str) -> str:
    """A file or folder's name for messages."""
    return Path(path).name or path
