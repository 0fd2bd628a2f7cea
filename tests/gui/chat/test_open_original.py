""" "Open original file" without a file launcher says so and offers the folder or the path.

The offscreen platform has no launcher, as a minimal Linux without xdg-open: Qt's
``QDesktopServices.openUrl`` really returns False here.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from agentmaker_desk.chat.source_view import SourceView
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication

from tests.gui.helpers import save_shot


class _Chunk:
    chunk_id = "c1"
    content = "The deposit is three months' rent."
    heading_path = "Tenancy agreement > Deposit"
    metadata: ClassVar[dict] = {}


def _view(qtbot, path: Path) -> SourceView:
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(520, 360)
    view.show()
    text = "# Deposit\n" + _Chunk.content + "\n"
    view.show_passage(title=path.name, source_path=str(path), document_text=text, chunk=_Chunk())
    assert view.open_button.isEnabled()
    return view


def test_no_launcher_offers_the_folder_and_the_path(qtbot, tmp_path: Path) -> None:
    original = tmp_path / "Tenancy agreement.md"
    original.write_text("# Deposit\n", encoding="utf-8")
    view = _view(qtbot, original)
    assert not view.open_failed.isVisible()

    view.open_button.click()
    notice = view.open_failed
    assert notice.isVisible()
    assert "“Tenancy agreement.md” could not be opened" in notice.message.text()
    save_shot(view, "12-open-original-no-launcher.png")

    notice.copy_button.click()
    assert QGuiApplication.clipboard().text() == str(original)
    assert "copied" in notice.message.text()

    notice.folder_button.click()  # no file manager either: the folder's path is copied
    assert QGuiApplication.clipboard().text() == str(tmp_path)
    assert str(tmp_path) in notice.message.text()
    assert not notice.folder_button.isEnabled()

    other = tmp_path / "other.md"
    other.write_text("x", encoding="utf-8")
    view.show_passage(title="other", source_path=str(other), document_text="x", chunk=_Chunk())
    assert not notice.isVisible()  # it was about the other file


class _Launcher(QObject):
    """A registered URL handler, as a desktop with a file launcher has."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toLocalFile())


def test_with_a_launcher_the_file_opens_without_a_notice(qtbot, tmp_path: Path) -> None:
    original = tmp_path / "Heating manual.md"
    original.write_text("# Boiler\n", encoding="utf-8")
    launcher = _Launcher()
    QDesktopServices.setUrlHandler("file", launcher, "open")
    try:
        view = _view(qtbot, original)
        view.open_button.click()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert launcher.opened == [str(original)]
    assert not view.open_failed.isVisible()
