"""Asking for the password of an encrypted file, without a nested event loop.

A modal ``exec()`` inside an async slot breaks qasync, so the dialog is shown with
``open()`` and the caller awaits a future that the dialog's ``finished`` resolves.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.theme import error_colour


class PasswordDialog(QDialog):
    """ "<file> is protected by a password" with a password field."""

    def __init__(self, path: str, *, wrong: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("passwordDialog")
        self.setWindowTitle(self.tr("Password needed"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        message = QLabel(self)
        message.setTextFormat(Qt.TextFormat.PlainText)  # file names are untrusted
        message.setWordWrap(True)
        message.setText(
            self.tr("“{name}” is protected by a password. Enter it to add the file.").format(
                name=Path(path).name
            )
        )
        self.error_label = QLabel(self.tr("That password did not open the file. Try again."))
        self.error_label.setObjectName("passwordError")
        self.error_label.setStyleSheet(f"color: {error_colour(self.palette()).name()};")
        self.error_label.setVisible(wrong)
        self.password_edit = QLineEdit(self)
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setAccessibleName(self.tr("Password"))
        self.password_edit.setPlaceholderText(self.tr("Password"))
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Open file"))
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("Skip this file"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(message)
        layout.addWidget(self.error_label)
        layout.addWidget(self.password_edit)
        layout.addWidget(buttons)


async def ask_password(
    path: str, *, wrong: bool = False, parent: QWidget | None = None
) -> str | None:
    """Show a PasswordDialog with ``open()`` and wait for it; None when skipped."""
    dialog = PasswordDialog(path, wrong=wrong, parent=parent)
    future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    def finished(result: int) -> None:
        if not future.done():
            accepted = result == QDialog.DialogCode.Accepted
            future.set_result(dialog.password_edit.text() if accepted else None)
        dialog.deleteLater()

    dialog.finished.connect(finished)
    dialog.open()
    dialog.password_edit.setFocus()
    try:
        return await future
    finally:
        if not future.done():  # the waiter was cancelled: close the dialog too
            dialog.reject()
