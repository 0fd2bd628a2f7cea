"""The chunk browser: a filterable tree of documents → heading paths → chunks,
with the selected chunk's full text and where it comes from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.chat.source_labels import heading_beside, place_text
from agentmaker_desk.library.chunk_tree_model import (
    ChunkSource,
    ChunkTreeModel,
    Loader,
    NodeKind,
    Roles,
    document_title,
)
from agentmaker_desk.widgets.failed_files_button import FailedFilesButton

# Re-exported so tests and callers can import the model from the browser module.
__all__ = ["ChunkBrowser", "ChunkTreeModel"]


class ChunkBrowser(QWidget):
    """Tree + detail; emits ``chunkSelected(chunk, document_info)`` and context-menu requests."""

    chunkSelected = Signal(object, object)
    removeRequested = Signal(str)  # doc_id
    reindexRequested = Signal(str)  # doc_id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ChunkTreeModel(parent=self)

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("documentFilter")
        self.filter_edit.setPlaceholderText(self.tr("Filter documents by name or folder"))
        self.filter_edit.setAccessibleName(self.tr("Filter documents"))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.model.set_filter)

        self.tree = QTreeView(self)
        self.tree.setObjectName("chunkTree")
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)  # keeps 100k-row trees fast
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setAccessibleName(self.tr("Documents and passages"))
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.selectionModel().currentChanged.connect(self._on_current)

        self.origin_label = QLabel(self)
        self.origin_label.setObjectName("chunkOrigin")
        self.origin_label.setTextFormat(Qt.TextFormat.PlainText)  # paths/headings are untrusted
        self.origin_label.setWordWrap(True)
        self.origin_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chunk_text = QPlainTextEdit(self)
        self.chunk_text.setObjectName("chunkText")
        self.chunk_text.setReadOnly(True)
        self.chunk_text.setAccessibleName(self.tr("Passage text"))
        self.chunk_text.setPlaceholderText(self.tr("Select a passage to read it here."))

        detail = QWidget(self)
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.origin_label)
        detail_layout.addWidget(self.chunk_text, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter_edit)
        self.failures_button = FailedFilesButton(self)  # the import panel's failures
        layout.addWidget(self.failures_button)
        layout.addWidget(self.splitter, 1)

    # --- feeding ----------------------------------------------------------------

    def set_source(self, source: ChunkSource | None, loader: Loader | None = None) -> None:
        """Browse another library."""
        self.chunk_text.clear()
        self.origin_label.clear()
        self.model.set_source(source, loader)

    def set_documents(self, documents: list[Any]) -> None:
        """The library's documents (DocumentInfo-like)."""
        self.model.set_documents(documents)

    # --- navigation -------------------------------------------------------------

    def reveal_chunk(self, doc_id: str, heading_path: str, chunk_id: str) -> None:
        """Expand to chunk ``chunk_id`` and select it (clears a filter that hides it)."""
        if not self.model.document_index(doc_id).isValid() and self.filter_edit.text():
            self.filter_edit.clear()
        self.model.reveal_chunk(doc_id, heading_path, chunk_id, self._select)

    def current_chunk(self) -> Any:
        """The selected chunk, or None."""
        index = self.tree.currentIndex()
        if index.isValid() and index.data(Roles.KIND) == NodeKind.CHUNK:
            return index.data(Roles.PAYLOAD)
        return None

    def _select(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        parent = index.parent()
        while parent.isValid():
            self.tree.expand(parent)
            parent = parent.parent()
        self.tree.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    # --- reactions --------------------------------------------------------------

    def _on_current(self, index: QModelIndex, _previous: QModelIndex) -> None:
        if not index.isValid() or index.data(Roles.KIND) != NodeKind.CHUNK:
            return
        chunk = index.data(Roles.PAYLOAD)
        info = self.model.document_info(index.data(Roles.DOC_ID))
        self.chunk_text.setPlainText(getattr(chunk, "content", ""))
        self.origin_label.setText(self.origin_text(chunk, info))
        self.chunkSelected.emit(chunk, info)

    def origin_text(self, chunk: Any, info: Any) -> str:
        """ "file · page · heading path" for a chunk."""
        metadata = getattr(chunk, "metadata", None) or {}
        parts = []
        if info is not None:
            source = getattr(info, "source", "") or ""
            parts.append(Path(source).name if source else document_title(info))
        place = place_text(metadata)
        if place:
            parts.append(place)
        if metadata.get("ocr"):
            parts.append(self.tr("read by OCR"))
        heading = heading_beside(place, getattr(chunk, "heading_path", "") or "")
        if heading:
            parts.append(heading)
        return " · ".join(parts)

    def _context_menu(self, point: QPoint) -> None:
        index = self.tree.indexAt(point)
        if not index.isValid():
            return
        doc_id = index.data(Roles.DOC_ID)
        info = self.model.document_info(doc_id)
        name = (document_title(info) if info is not None else doc_id).replace("&", "&&")
        menu = QMenu(self)
        reindex = menu.addAction(self.tr("Re-index “{name}”").format(name=name))
        remove = menu.addAction(self.tr("Remove “{name}” from the library").format(name=name))
        reindex.triggered.connect(lambda: self.reindexRequested.emit(doc_id))
        remove.triggered.connect(lambda: self.removeRequested.emit(doc_id))
        menu.popup(self.tree.viewport().mapToGlobal(point))
