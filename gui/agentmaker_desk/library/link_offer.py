"""A non-blocking offer shown after a folder is added: "Keep “Notes” in sync?".

Adding the folder's files starts at once; the offer waits beside it and never blocks.
Accepting links the folder, so new, changed and deleted files are followed from then
on; "Not now" (or adding something else) just hides it.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from agentmaker_desk.widgets.icons import icon


class LinkOffer(QFrame):
    """Emits ``accepted(folders)`` when the person chooses to keep the folders in sync."""

    accepted = Signal(list)  # folder paths

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("linkOffer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(self.tr("Keep folders in sync"))
        self._folders: list[str] = []
        self.icon_label = QLabel(self)
        self.icon_label.setPixmap(icon("sync").pixmap(20, 20))
        self.message = QLabel(self)
        self.message.setObjectName("linkOfferMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # folder names are untrusted
        self.message.setWordWrap(True)
        self.keep_button = QPushButton(self.tr("Keep in sync"), self)
        self.keep_button.setObjectName("keepInSync")
        self.keep_button.setDefault(False)
        self.keep_button.clicked.connect(self._accept)
        self.dismiss_button = QPushButton(self.tr("Not now"), self)
        self.dismiss_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.icon_label)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.keep_button)
        layout.addWidget(self.dismiss_button)
        self.setVisible(False)

    @property
    def folders(self) -> list[str]:
        """The folders on offer (empty when hidden)."""
        return list(self._folders)

    def offer(self, folders: list[str]) -> None:
        """Ask whether to keep ``folders`` in sync (replaces an earlier offer)."""
        self._folders = list(dict.fromkeys(folders))
        if not self._folders:
            self.dismiss()
            return
        if len(self._folders) == 1:
            text = self.tr(
                "Keep “{name}” in sync? The library then follows the folder while the app "
                "runs: new and changed files are added, deleted ones removed."
            ).format(name=Path(self._folders[0]).name or self._folders[0])
        else:
            text = self.tr(
                "Keep these {n} folders in sync? The library then follows them while the app "
                "runs: new and changed files are added, deleted ones removed."
            ).format(n=len(self._folders))
        self.message.setText(text)
        # Tooltips guess rich text: a folder named "<img src=…>" must stay a name.
        self.setToolTip("<p>" + "<br>".join(html.escape(f) for f in self._folders) + "</p>")
        self.setVisible(True)

    def dismiss(self) -> None:
        self._folders = []
        self.setVisible(False)

    def _accept(self) -> None:
        folders = self._folders
        self.dismiss()
        if folders:
            self.accepted.emit(folders)
