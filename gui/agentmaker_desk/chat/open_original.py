"""Opening a document's original file, and what to offer when the system cannot.

``QDesktopServices.openUrl`` returns False when no application is registered for the
file (a minimal Linux without ``xdg-open``, a file type nobody opens): the person then
sees why nothing happened, with "Show in folder" and "Copy path" to reach it another way.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget


def open_in_system(path: str) -> bool:
    """Ask the system to open ``path`` in its own application; False when it cannot."""
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(path)))


class OpenFailedNotice(QFrame):
    """A bar saying the original could not be opened, offering its folder or its path."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openFailedNotice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._path = ""
        self.message = QLabel(self)
        self.message.setObjectName("openFailedMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # file names are untrusted
        self.message.setWordWrap(True)
        self.folder_button = QPushButton(self.tr("Show in folder"), self)
        self.folder_button.setToolTip(self.tr("Open the folder that holds the file"))
        self.folder_button.clicked.connect(self.show_folder)
        self.copy_button = QPushButton(self.tr("Copy path"), self)
        self.copy_button.setToolTip(self.tr("Copy the file's full path to the clipboard"))
        self.copy_button.clicked.connect(self.copy_path)
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setAccessibleName(self.tr("Close"))
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.folder_button)
        layout.addWidget(self.copy_button)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.setVisible(False)

    def show_for(self, path: str) -> None:
        """Opening ``path`` failed: say so and offer the other ways."""
        self._path = path
        self.message.setText(
            self.tr(
                "“{name}” could not be opened: this computer has no application set up to "
                "open it. Show its folder, or copy its path to open it yourself."
            ).format(name=Path(path).name)
        )
        self.folder_button.setEnabled(True)
        self.setVisible(True)

    def show_folder(self) -> None:
        """Open the file's folder; when that fails too, copy the folder's path instead."""
        folder = str(Path(self._path).parent)
        if open_in_system(folder):
            self.hide()
            return
        QGuiApplication.clipboard().setText(folder)
        self.folder_button.setEnabled(False)
        self.message.setText(
            self.tr(
                "No file manager could be opened either. The folder is {folder}; its path "
                "was copied to the clipboard."
            ).format(folder=folder)
        )

    def copy_path(self) -> None:
        """Put the file's full path on the clipboard."""
        QGuiApplication.clipboard().setText(self._path)
        self.message.setText(
            self.tr("The path of “{name}” was copied to the clipboard.").format(
                name=Path(self._path).name
            )
        )

    @property
    def path(self) -> str:
        """The file the notice is about."""
        return self._path
