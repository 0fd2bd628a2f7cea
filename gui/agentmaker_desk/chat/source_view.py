"""The source view: a cited passage shown highlighted inside its document.

The document text is shown as plain text (never interpreted as HTML), the passage
is highlighted with the palette's highlight colours and scrolled into view. Very
long documents are shown as a window around the passage so the view stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.chat.open_original import OpenFailedNotice, open_in_system
from agentmaker_desk.chat.source_labels import heading_beside, place_text
from agentmaker_desk.widgets.icons import icon

#: Documents longer than this are shown as a window around the passage.
FULL_TEXT_LIMIT = 200_000
#: Characters of context kept on each side of the passage in a window.
WINDOW_CONTEXT = 20_000


@dataclass(frozen=True)
class PassageSpan:
    """Where the passage lies in the shown text, and which part of the document is shown."""

    start: int
    end: int
    shown_from: int
    shown_to: int
    total: int


def locate_passage(text: str, content: str, start: Any, end: Any) -> tuple[int, int] | None:
    """The passage's ``(start, end)`` in ``text``: the stored offsets when they match,
    else the first occurrence of the passage, else the offsets as given."""
    valid = isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)
    if valid and text[start:end] == content:
        return start, end
    if content:
        hint = start if isinstance(start, int) and 0 <= start <= len(text) else 0
        found = text.find(content, max(0, hint - 2000))
        if found < 0:
            found = text.find(content)
        if found >= 0:
            return found, found + len(content)
    return (start, end) if valid else None


def window_around(text: str, start: int, end: int) -> tuple[int, int]:
    """A range of ``text`` around ``start..end`` snapped to line breaks."""
    if len(text) <= FULL_TEXT_LIMIT:
        return 0, len(text)
    lo = max(0, start - WINDOW_CONTEXT)
    hi = min(len(text), end + WINDOW_CONTEXT)
    if lo > 0:
        newline = text.find("\n", lo, start)
        lo = newline + 1 if newline >= 0 else lo
    if hi < len(text):
        newline = text.rfind("\n", end, hi)
        hi = newline if newline >= 0 else hi
    return lo, hi


def _utf16_offset(text: str, index: int) -> int:
    """``index`` (code points into ``text``) as a Qt position (UTF-16 code units)."""
    if text.isascii():
        return index
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


class SourceView(QWidget):
    """Title, location (page, heading path), the highlighted passage, "Open original file"."""

    openOriginalRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._source_path = ""
        self._span: PassageSpan | None = None
        self._quotes: list[tuple[int, int]] = []  # quoted sentences (UTF-16 offsets)
        self._shown_key: tuple[str, int, int] | None = None
        self.shown: dict[str, Any] | None = None

        self.title_label = QLabel(self)
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)  # titles are untrusted text
        self.title_label.setObjectName("sourceTitle")
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setWordWrap(True)
        self.location_label = QLabel(self)
        self.location_label.setTextFormat(Qt.TextFormat.PlainText)
        self.location_label.setWordWrap(True)
        self.note_label = QLabel(self)
        self.note_label.setTextFormat(Qt.TextFormat.PlainText)
        self.note_label.setWordWrap(True)
        self.note_label.setVisible(False)

        self.open_button = QPushButton(icon("open-file"), self.tr("Open original file"), self)
        self.open_button.setToolTip(self.tr("Open the document in its own application"))
        self.open_button.clicked.connect(self._open_original)
        self.open_button.setEnabled(False)
        self.open_failed = OpenFailedNotice(self)

        self.text = QPlainTextEdit(self)
        self.text.setObjectName("sourceText")
        self.text.setReadOnly(True)
        self.text.setAccessibleName(self.tr("Document text"))
        self.text.setPlaceholderText(
            self.tr("Click a citation [n] or a source to see the passage in its document.")
        )
        self.text.setCenterOnScroll(True)

        top = QHBoxLayout()
        labels = QVBoxLayout()
        labels.addWidget(self.title_label)
        labels.addWidget(self.location_label)
        top.addLayout(labels, 1)
        top.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.open_failed)
        layout.addWidget(self.note_label)
        layout.addWidget(self.text, 1)

    # --- showing ---------------------------------------------------------------

    def show_passage(
        self,
        *,
        title: str,
        source_path: str,
        document_text: str | None,
        chunk: Any,
        doc_id: str = "",
        note: str = "",
        quotes: Sequence[str] = (),
    ) -> None:
        """Show ``chunk`` (content, heading_path, metadata) highlighted in its document.

        ``note`` is shown above the text (e.g. why only the quoted passage is shown);
        ``quotes`` are sentences the answer quoted: marked more strongly inside the passage."""
        self.shown = {  # what a window rebuilt in another language shows again
            "title": title,
            "source_path": source_path,
            "document_text": document_text,
            "chunk": chunk,
            "doc_id": doc_id,
            "note": note,
            "quotes": tuple(quotes),
        }
        content = getattr(chunk, "content", "") or ""
        metadata = getattr(chunk, "metadata", None) or {}
        if (source_path or "") != self.open_failed.path:
            self.open_failed.hide()  # the notice was about another file
        self._source_path = source_path or ""
        self.title_label.setText(title or Path(source_path).name or self.tr("(untitled)"))
        where = []
        place = place_text(metadata)
        if place:
            where.append(place)
        heading = heading_beside(place, getattr(chunk, "heading_path", "") or "")
        if heading:
            where.append(heading)
        if source_path:
            where.append(source_path)
        self.location_label.setText(" · ".join(where))
        self.open_button.setEnabled(bool(source_path) and Path(source_path).is_file())

        text = document_text or ""
        notes: list[str] = [note] if note else []
        found = locate_passage(text, content, metadata.get("start_char"), metadata.get("end_char"))
        if found is None:
            # Without the document text, show the passage itself.
            text, found = content, (0, len(content))
            if not note:
                notes.append(
                    self.tr("The full document text is not available; showing the passage only.")
                )
        start, end = found
        lo, hi = window_around(text, start, end)
        if lo > 0 or hi < len(text):
            notes.append(
                self.tr(
                    "Long document: showing characters {a}–{b} of {n} around the passage."
                ).format(a=f"{lo + 1:,}", b=f"{hi:,}", n=f"{len(text):,}")
            )
        self.note_label.setText(" ".join(notes))
        self.note_label.setVisible(bool(notes))
        shown = text[lo:hi]
        key = (doc_id or source_path, lo, hi)
        if key != self._shown_key:
            self.text.setPlainText(shown)
            self._shown_key = key
        # Qt counts UTF-16 code units; Python counts code points.
        self._span = PassageSpan(
            _utf16_offset(shown, start - lo), _utf16_offset(shown, end - lo), lo, hi, len(text)
        )
        self._quotes = []
        for quote in quotes:
            pattern = r"\s+".join(re.escape(word) for word in quote.split())
            match = re.compile(pattern, re.IGNORECASE).search(shown, start - lo, end - lo)
            if match is not None:
                self._quotes.append(
                    (_utf16_offset(shown, match.start()), _utf16_offset(shown, match.end()))
                )
        self._highlight()

    def clear(self) -> None:
        """Show nothing."""
        self._span = None
        self._quotes = []
        self._shown_key = None
        self._source_path = ""
        self.shown = None
        self.title_label.clear()
        self.location_label.clear()
        self.note_label.setVisible(False)
        self.open_button.setEnabled(False)
        self.open_failed.hide()
        self.text.setExtraSelections([])
        self.text.clear()

    def quoted_texts(self) -> list[str]:
        """The sentences marked as quoted by the answer, as plain text."""
        return [
            s.cursor.selectedText().replace("\u2029", "\n") for s in self.text.extraSelections()[1:]
        ]

    def highlighted_text(self) -> str:
        """The highlighted passage as plain text (line breaks as ``\\n``)."""
        selections = self.text.extraSelections()
        if not selections:
            return ""
        return selections[0].cursor.selectedText().replace("\u2029", "\n")

    @property
    def source_path(self) -> str:
        return self._source_path

    # --- internals --------------------------------------------------------------

    def _highlight(self) -> None:
        if self._span is None:
            return
        palette = self.palette()
        fmt = QTextCharFormat()
        fmt.setBackground(palette.color(QPalette.ColorRole.Highlight))
        fmt.setForeground(palette.color(QPalette.ColorRole.HighlightedText))
        cursor = QTextCursor(self.text.document())
        cursor.setPosition(self._span.start)
        cursor.setPosition(self._span.end, QTextCursor.MoveMode.KeepAnchor)
        selection = QTextEdit.ExtraSelection()
        selection.cursor = cursor
        selection.format = fmt
        selections = [selection]
        quoted = QTextCharFormat(fmt)
        quoted.setFontWeight(QFont.Weight.Bold)
        quoted.setFontUnderline(True)
        for first, last in self._quotes:
            cursor = QTextCursor(self.text.document())
            cursor.setPosition(first)
            cursor.setPosition(last, QTextCursor.MoveMode.KeepAnchor)
            extra = QTextEdit.ExtraSelection()
            extra.cursor = cursor
            extra.format = quoted
            selections.append(extra)
        self.text.setExtraSelections(selections)
        # Put the caret at the passage start and centre it, now and once laid out.
        caret = QTextCursor(self.text.document())
        caret.setPosition(self._span.start)
        self.text.setTextCursor(caret)
        self.text.centerCursor()
        QTimer.singleShot(0, self.text, self.text.centerCursor)

    def _open_original(self) -> None:
        if self._source_path:
            self.openOriginalRequested.emit(self._source_path)
            if open_in_system(self._source_path):
                self.open_failed.hide()
            else:  # no launcher for it: nothing would happen without a word
                self.open_failed.show_for(self._source_path)
