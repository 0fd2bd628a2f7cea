"""Adding files as a new user does: the drop highlight, Add folder…, where dialogs open."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent
from PySide6.QtWidgets import QApplication, QFileDialog


def _visible_dialogs() -> list[QFileDialog]:
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog) and w.isVisible()
    ]


def _close_dialogs() -> None:
    for dialog in _visible_dialogs():
        dialog.reject()


def test_dragging_files_over_the_window_highlights_it(desk, tmp_path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path))])
    enter = QDragEnterEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(desk, enter)
    assert enter.isAccepted() and desk.drop_overlay.isVisible()
    assert desk.drop_overlay.geometry() == desk.drop_overlay.parentWidget().rect()
    QApplication.sendEvent(desk, QDragLeaveEvent())
    assert not desk.drop_overlay.isVisible()


def test_the_empty_library_offers_add_folder_and_dialogs_open_at_home(desk, tmp_path) -> None:
    assert desk.stack.currentWidget() is desk.empty_view
    button = desk.empty_view.add_folder_button
    assert button.isVisibleTo(desk) and "folder" in button.text().lower()
    button.click()
    try:
        [dialog] = _visible_dialogs()
        assert dialog.fileMode() == QFileDialog.FileMode.Directory
        assert Path(dialog.directory().absolutePath()) == Path.home()
    finally:
        _close_dialogs()


def test_the_next_dialog_opens_where_files_were_last_added(desk, qloop, tmp_path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    note = folder / "q3.md"
    note.write_text("# Q3\n\nRevenue grew.\n", encoding="utf-8")
    desk.add_files()
    try:
        [dialog] = _visible_dialogs()
        dialog.filesSelected.emit([str(note)])  # what choosing the file does
    finally:
        _close_dialogs()
    qloop.until(lambda: not desk.bridge.tasks)
    desk.add_files()
    try:
        [dialog] = _visible_dialogs()
        assert Path(dialog.directory().absolutePath()) == folder
    finally:
        _close_dialogs()
    assert desk.store.load().last_folder == str(folder)  # remembered for the next run
