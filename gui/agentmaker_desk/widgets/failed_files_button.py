"""A "Files that could not be added (N)" button: the way back to the import panel's
failures after it was hidden (shown in the library view and the empty library)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QWidget

from agentmaker_desk.theme import error_colour


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
        # From the application palette: this widget's own carries the red it set.
        palette = QPalette(QApplication.palette(self))
        palette.setColor(QPalette.ColorRole.ButtonText, error_colour(palette))
        self.setPalette(palette)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            self.setToolTip(self.tr("Show the files that could not be added, and why"))
        elif event.type() == QEvent.Type.PaletteChange:  # another theme
            wanted = error_colour(QApplication.palette(self))
            if self.palette().color(QPalette.ColorRole.ButtonText) != wanted:
                self._colour()  # (equal afterwards: no second round)
        super().changeEvent(event)
