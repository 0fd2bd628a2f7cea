"""The first-run offer of a language model on this computer (shown once).

Until a model is there, answers quote the documents (extractive). This bar says so and
offers the recommended model ("download Qwen2.5 1.5B, 1.1 GB, once"), or a ``.gguf``
the person already has. While downloading it shows progress, speed and time left, with
Cancel. Whether it was shown is remembered in the app's settings file.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.widgets.download_progress import DownloadProgress, choose_model_file

SHOWN_KEY = "modelOffer/shown"


class ModelOffer(QFrame):
    """A bar offering a local model; emits :attr:`modelReady` with the model's path."""

    modelReady = Signal(str)

    def __init__(self, downloads: Any, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelOffer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._downloads = downloads
        self._settings = settings
        self._entry = downloads.recommended()
        self.message = QLabel(self)
        self.message.setObjectName("modelOfferMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setText(
            self.tr(
                "Answers written by a model on this computer: download {name}, {size}, once. "
                "Until then, answers quote your documents."
            ).format(name=self._entry.display_name, size=self._entry.size_text)
        )
        self.download_button = QPushButton(self.tr("Download"), self)
        self.file_button = QPushButton(self.tr("Use a model file on this computer…"), self)
        self.later_button = QPushButton(self.tr("Not now"), self)
        self.download_progress = DownloadProgress(downloads, self)
        self.progress = self.download_progress.progress
        self.cancel_button = self.download_progress.cancel_button
        self.status = self.download_progress.status
        self.status.setObjectName("modelOfferStatus")
        buttons = QHBoxLayout()
        for button in (self.download_button, self.file_button, self.later_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        layout.addWidget(self.download_progress)
        self.download_button.clicked.connect(self.download)
        self.file_button.clicked.connect(self._pick_file)
        self.later_button.clicked.connect(self.dismiss)
        self.download_progress.busyChanged.connect(self._busy)
        downloads.finished.connect(self._on_finished)
        self._busy(self.progress.isVisible())

    @staticmethod
    def should_show(settings: QSettings, downloads: Any) -> bool:
        """Offer only once, and only while no model is installed."""
        shown = settings.value(SHOWN_KEY, False, type=bool)
        return not shown and not downloads.installed()

    def showEvent(self, event: Any) -> None:
        self._settings.setValue(SHOWN_KEY, True)  # shown once: never offered again
        self._settings.sync()
        super().showEvent(event)

    # --- actions ----------------------------------------------------------------------

    def download(self) -> None:
        """Start downloading the recommended model."""
        self.download_progress.start(self._entry)

    def use_file(self, path: str) -> bool:
        """Use a ``.gguf`` the person chose; False (and the reason shown) if unusable."""
        model_path, problem = self._downloads.use_file(path)
        if problem:
            self.status.setText(problem)
            return False
        self.modelReady.emit(model_path)
        self.hide()
        return True

    def dismiss(self) -> None:
        """Close the offer (Settings still lists the models)."""
        self.hide()

    def _pick_file(self) -> None:
        choose_model_file(self, self.use_file)

    # --- download events --------------------------------------------------------------

    def _busy(self, busy: bool) -> None:
        for button in (self.download_button, self.file_button, self.later_button):
            button.setEnabled(not busy)

    def _on_finished(self, path: str) -> None:
        self.modelReady.emit(path)
        self.hide()


def add_model_offer(window: Any, layout: Any) -> ModelOffer | None:
    """Put the offer into ``window``'s ``layout`` when it is due (see
    :meth:`ModelOffer.should_show`); a model it provides becomes the answer model."""
    from agentmaker_desk.settings.settings import ModelChoice

    if window.settings.llm.kind != "none":
        return None
    settings = QSettings(str(window.store.path), QSettings.Format.IniFormat)
    downloads = window.model_downloads
    if not ModelOffer.should_show(settings, downloads):
        return None
    offer = ModelOffer(downloads, settings, window)

    def use(path: str) -> None:
        current = window.store.load()
        current.llm = ModelChoice(kind="local", model=path)
        window.store.save(current)
        window.settings = current
        window.bridge.apply_settings(current)

    offer.modelReady.connect(use)
    layout.addWidget(offer)
    return offer
