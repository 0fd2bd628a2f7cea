"""What a new, empty library shows: one clear action."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from agentmaker_desk.widgets.failed_files_button import FailedFilesButton
from agentmaker_desk.widgets.icons import icon


class EmptyLibraryView(QFrame):
    """ "Drop files or folders here, or click Add files… or Add folder…" with an Add button."""

    addRequested = Signal()
    addFolderRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyLibrary")
        self.setFrameShape(QFrame.Shape.NoFrame)
        picture = QLabel(self)
        picture.setPixmap(icon("app").pixmap(QSize(96, 96)))
        picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.headline = QLabel(self.tr("Your library is empty"), self)
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        self.headline.setFont(font)
        self.headline.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message = QLabel(
            self.tr("Drop files or folders here, or click Add files… or Add folder…"), self
        )
        self.message.setObjectName("emptyMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.hint = QLabel(
            self.tr(
                "PDF, Word, PowerPoint, Excel, OpenDocument, RTF, EPUB, e-mail (.eml, .mbox), "
                "Markdown, text, HTML, CSV and JSON files, scans and pictures are read on this "
                "computer; nothing is uploaded."
            ),
            self,
        )
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.add_button = QPushButton(icon("add"), self.tr("Add files…"), self)
        self.add_button.setObjectName("emptyAddButton")
        self.add_button.setIconSize(QSize(20, 20))
        self.add_button.setMinimumHeight(36)
        self.add_button.clicked.connect(self.addRequested)
        self.add_folder_button = QPushButton(icon("folder"), self.tr("Add folder…"), self)
        self.add_folder_button.setObjectName("emptyAddFolderButton")
        self.add_folder_button.setIconSize(QSize(20, 20))
        self.add_folder_button.setMinimumHeight(36)
        self.add_folder_button.clicked.connect(self.addFolderRequested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.add_folder_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(picture)
        layout.addSpacing(12)
        layout.addWidget(self.headline)
        layout.addWidget(self.message)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addSpacing(12)
        layout.addWidget(self.hint)
        # Every file of a batch may have failed: the library is still empty then.
        self.failures_button = FailedFilesButton(self)
        layout.addWidget(self.failures_button, 0, Qt.AlignmentFlag.AlignCenter)
        layout.addStretch(3)

    def paintEvent(self, event: QPaintEvent) -> None:
        # Painted, not a style sheet: a style sheet freezes the palette of every child
        # here, and the headline stayed black on a dark theme.
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.palette().color(QPalette.ColorRole.Mid), 2, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 12, 12)
