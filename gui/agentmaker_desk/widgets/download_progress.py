"""Progress of a model download: a bar, a line of text (size, speed, time left), Cancel.

Shared by the first-run model offer and Settings → Language model, both of which follow
the window's one :class:`~agentmaker_desk.bridge.model_downloads.ModelDownloads`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class StatusLine(QLabel):
    """A line of text that takes no room while it is empty."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setVisible(bool(text))


class DownloadProgress(QWidget):
    """Shows one download's progress; ``busyChanged(bool)`` when it starts or ends."""

    busyChanged = Signal(bool)

    def __init__(self, downloads: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._downloads = downloads
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setAccessibleName(self.tr("Cancel the download"))
        self.status = StatusLine(self)
        self.status.setVisible(False)
        self.status.setObjectName("downloadStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.cancel_button.clicked.connect(downloads.cancel)
        downloads.progress.connect(self._on_progress)
        downloads.finished.connect(self._on_finished)
        downloads.failed.connect(self._on_failed)
        downloads.cancelled.connect(self._on_cancelled)
        self._set_busy(bool(getattr(downloads, "downloading", False)))

    def start(self, entry: Any) -> None:
        """Start downloading catalog ``entry`` (nothing happens while one runs)."""
        if self._downloads.downloading:
            return
        self.status.setText(self.tr("Starting the download…"))
        self._set_busy(True)
        self._downloads.start(entry)

    def say(self, text: str) -> None:
        """Show a message in the status line."""
        self.status.setText(text)

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.busyChanged.emit(busy)

    def _on_progress(self, done: float, total: float, speed: float, eta: float) -> None:
        if not self.progress.isVisible():
            self._set_busy(True)  # started elsewhere (the offer or the dialog)
        if total > 0:
            self.progress.setValue(int(done / total * 1000))
        left = (
            self.tr(", {minutes} min left").format(minutes=max(1, round(eta / 60))) if eta else ""
        )
        self.status.setText(
            self.tr("{done:.2f} of {total:.2f} GB at {speed:.1f} MB/s").format(
                done=done / 1e9, total=total / 1e9, speed=speed / 1e6
            )
            + left
        )

    def _on_finished(self, _path: str) -> None:
        self._set_busy(False)
        self.status.setText(self.tr("The model is ready. Answers are now written by it."))

    def _on_failed(self, message: str) -> None:
        self._set_busy(False)
        self.status.setText(message)

    def _on_cancelled(self) -> None:
        self._set_busy(False)
        self.status.setText(self.tr("Download cancelled. Nothing was kept."))


def choose_model_file(parent: QWidget, on_chosen: Callable[[str], object]) -> None:
    """Open the "Choose a model file" dialog (from the home folder, ``.gguf`` only);
    ``on_chosen(path)`` when the person picks one. Not modal-blocking (``open()``)."""
    dialog = QFileDialog(
        parent,
        QCoreApplication.translate("DownloadProgress", "Choose a model file"),
        str(Path.home()),
    )
    dialog.setNameFilter(
        QCoreApplication.translate("DownloadProgress", "GGUF model files (*.gguf)")
    )
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.fileSelected.connect(on_chosen)
    dialog.open()  # not exec(): see DESIGN's pitfalls
