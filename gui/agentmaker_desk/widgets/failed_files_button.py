"""A "Files that could not be added (N)" button: the way back to the import panel's
failures after it was hidden (shown in the library view and the empty library)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QPushButton, QWidget

_ERROR_COLOUR = "#c62828"


class FailedFilesButton(QPushButton):
    """Flat, link-like; hidden while every file was added."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("failedFilesButton")
        self.setFlat(True)
        self._count = 0
        self._colour()
        self.setToolTip(self.tr("Show the files that could not be added, and why"))
        self.setVisible(False)

    @property
    def count(self) -> int:
        """How many files the button stands for."""
        return self._count

    def set_count(self, count: int) -> None:
        """Show ``count`` failed files (hidden at 0)."""
        self._count = count
        self._retranslate()
        self.setVisible(count > 0)

    def _retranslate(self) -> None:
        self.setText(self.tr("Files that could not be added (%n)", "", self._count))

    def _colour(self) -> None:
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.ButtonText, QColor(_ERROR_COLOUR))
        self.setPalette(palette)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            self.setToolTip(self.tr("Show the files that could not be added, and why"))
        super().changeEvent(event)
