"""Small helpers for GUI tests: real Qt events at the edges, nothing mocked inside."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget


def drop_files(target: QWidget, paths: Iterable[str | Path]) -> bool:
    """Drag ``paths`` onto ``target`` and drop them, as the OS would; True if accepted."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    point = QPointF(target.rect().center())
    enter = QDragEnterEvent(
        point.toPoint(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(
        point,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, drop)
    return drop.isAccepted()


def anchor_point(browser: QTextBrowser, href: str):
    """Viewport point inside the link ``href`` of a QTextBrowser."""
    document = browser.document()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                rect = browser.cursorRect(cursor)
                return rect.center()
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href!r}")
