"""The highlight shown while files are dragged over the window: "Drop to add them"."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QWidget


class DropOverlay(QWidget):
    """Covers its parent while a drag with files is over it; mouse events pass through."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("dropOverlay")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAccessibleName(self.tr("Drop to add to the library"))
        self.hide()
        parent.installEventFilter(self)

    def show_over_parent(self) -> None:
        """Show the highlight over the whole parent."""
        self.setGeometry(self.parentWidget().rect())
        self.raise_()
        self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self.setGeometry(self.parentWidget().rect())
        return False

    def paintEvent(self, _event: object) -> None:
        painter = QPainter(self)
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        fill = QColor(highlight)
        fill.setAlpha(40)
        painter.fillRect(self.rect(), fill)
        pen = QPen(highlight, 3, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawRoundedRect(self.rect().adjusted(6, 6, -6, -6), 12, 12)
        font = painter.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        painter.drawText(
            self.rect(), Qt.AlignmentFlag.AlignCenter, self.tr("Drop to add to the library")
        )
