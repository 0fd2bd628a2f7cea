"""Settings → Language model → "A model on this computer": the installed models.

Lists the models on this computer (name, size; a file the person chose is marked as
theirs), deletes one (a downloaded file is removed after a confirmation; a chosen file is
only forgotten, never deleted), downloads one of the recommended models with progress
and Cancel, and takes a ``.gguf`` from anywhere (its header is checked first). The
selected model's path is what Save stores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.widgets.download_progress import DownloadProgress, choose_model_file

_PATH = Qt.ItemDataRole.UserRole
_NAME = Qt.ItemDataRole.UserRole + 1
_LINKED = Qt.ItemDataRole.UserRole + 2


class LocalModelsPanel(QWidget):
    """The models on this computer; ``chosen(path)`` when the selection changes."""

    chosen = Signal(str)

    def __init__(self, downloads: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("localModels")
        self._downloads = downloads
        self._busy_now = False
        self.models = QListWidget(self)
        self.models.setObjectName("installedModels")
        self.models.setAccessibleName(self.tr("Models on this computer"))
        self.models.setMaximumHeight(120)
        self.empty = QLabel(self.tr("No model on this computer yet."), self)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.delete_button = QPushButton(self.tr("Delete"), self)
        self.delete_button.setObjectName("deleteModel")
        self.file_button = QPushButton(self.tr("Use a model file on this computer…"), self)
        self.catalog = QComboBox(self)
        self.catalog.setObjectName("catalogModels")
        self.catalog.setAccessibleName(self.tr("Recommended models"))
        self.download_button = QPushButton(self.tr("Download"), self)
        self.download_button.setObjectName("downloadModel")
        self.download_progress = DownloadProgress(downloads, self)
        self.note = QLabel(self)
        self.note.setObjectName("localModelsNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)

        actions = QHBoxLayout()
        actions.addWidget(self.delete_button)
        actions.addWidget(self.file_button)
        actions.addStretch(1)
        get = QHBoxLayout()
        get.addWidget(self.catalog, 1)
        get.addWidget(self.download_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.models)
        layout.addWidget(self.empty)
        layout.addLayout(actions)
        layout.addLayout(get)
        layout.addWidget(self.download_progress)
        layout.addWidget(self.note)

        self.models.currentItemChanged.connect(self._selection_changed)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.file_button.clicked.connect(self._pick_file)
        self.download_button.clicked.connect(self.download)
        self.download_progress.busyChanged.connect(self._busy)
        downloads.finished.connect(self._downloaded)
        self.refresh()

    # --- what is shown ---------------------------------------------------------------

    def refresh(self, select: str = "") -> None:
        """List the installed models again (keeping or setting the selection)."""
        select = select or self.selected_path()
        self.models.blockSignals(True)
        self.models.clear()
        for model in self._downloads.installed():
            label = self.tr("{name} — {size:.2f} GB").format(
                name=model.display_name, size=model.size_bytes / 1e9
            )
            if model.linked:
                label += " · " + self.tr("your file, used where it is")
            item = QListWidgetItem(label, self.models)
            item.setData(_PATH, str(model.path))
            item.setData(_NAME, model.name)
            item.setData(_LINKED, model.linked)
            item.setToolTip(str(model.path))
            if select and Path(select) == model.path:
                self.models.setCurrentItem(item)
        self.models.blockSignals(False)
        has_models = self.models.count() > 0
        self.models.setVisible(has_models)
        self.empty.setVisible(not has_models)
        self._fill_catalog()
        self._update_buttons()

    def _fill_catalog(self) -> None:
        installed = {m.name for m in self._downloads.installed()}
        recommended = self._downloads.recommended()
        self.catalog.clear()
        for entry in self._downloads.catalog():
            if entry.id in installed:
                continue
            text = self.tr("{name}, {size} download, needs {ram:.0f} GB of memory").format(
                name=entry.display_name, size=entry.size_text, ram=entry.ram_bytes / 1e9
            )
            if recommended is not None and entry.id == recommended.id:
                text += " " + self.tr("(recommended for this computer)")
            self.catalog.addItem(text, entry)
        if recommended is not None:
            for index in range(self.catalog.count()):
                if self.catalog.itemData(index).id == recommended.id:
                    self.catalog.setCurrentIndex(index)

    def selected_path(self) -> str:
        """The chosen model's file ("" when none is selected)."""
        item = self.models.currentItem()
        return str(item.data(_PATH)) if item is not None else ""

    def select_path(self, path: str) -> None:
        """Select the installed model stored at ``path`` (if it is listed)."""
        self.refresh(select=path)

    def _update_buttons(self) -> None:
        item = self.models.currentItem()
        busy = self._busy_now or bool(self._downloads.downloading)
        self.delete_button.setEnabled(item is not None)
        if item is not None and item.data(_LINKED):
            self.delete_button.setText(self.tr("Remove from the list"))
        else:
            self.delete_button.setText(self.tr("Delete"))
        self.download_button.setEnabled(self.catalog.count() > 0 and not busy)
        self.catalog.setEnabled(not busy)

    def _selection_changed(self, *_args: Any) -> None:
        self._update_buttons()
        self.chosen.emit(self.selected_path())

    def _busy(self, busy: bool) -> None:
        self._busy_now = busy
        self._update_buttons()

    # --- actions ---------------------------------------------------------------------

    def download(self) -> None:
        """Download the model chosen in the list of recommended ones."""
        entry = self.catalog.currentData()
        if entry is not None:
            self.download_progress.start(entry)

    def _downloaded(self, path: str) -> None:
        self.refresh(select=path)
        self.chosen.emit(self.selected_path())

    def confirm_delete(self) -> None:
        """Ask before deleting a downloaded model (a chosen file is only forgotten)."""
        item = self.models.currentItem()
        if item is None:
            return
        if item.data(_LINKED):
            self.delete(str(item.data(_NAME)))
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Delete the model?"),
            self.tr(
                "Delete {name} from this computer? It frees {size:.2f} GB; you can "
                "download it again later."
            ).format(name=item.text().split(" — ")[0], size=_size_of(item) / 1e9),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("confirmDeleteModel")
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Delete"))
        box.button(QMessageBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        name = str(item.data(_NAME))
        box.accepted.connect(lambda: self.delete(name))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # not exec(): see DESIGN's pitfalls

    def delete(self, name: str) -> None:
        """Delete (or forget) the installed model ``name`` now."""
        problem = self._downloads.remove(name)
        self.note.setText(problem)
        if problem:
            return
        self.refresh()
        self.chosen.emit(self.selected_path())

    def use_file(self, path: str) -> bool:
        """Take a ``.gguf`` the person chose; False (and the reason shown) if unusable."""
        model_path, problem = self._downloads.use_file(path)
        if problem:
            self.note.setText(problem)
            return False
        self.note.setText("")
        self.refresh(select=model_path)
        self.chosen.emit(self.selected_path())
        return True

    def _pick_file(self) -> None:
        choose_model_file(self, self.use_file)


def _size_of(item: QListWidgetItem) -> int:
    try:
        return Path(str(item.data(_PATH))).stat().st_size
    except OSError:
        return 0
