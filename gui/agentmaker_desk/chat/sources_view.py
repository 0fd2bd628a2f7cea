"""The sources list: one row per cited passage, saying where it is and why it was found."""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

_N_ROLE = Qt.ItemDataRole.UserRole + 1


def document_label(source: Any) -> str:
    """The document's title, else its file name."""
    title = (getattr(source, "title", "") or "").strip()
    if title:
        return title
    path = getattr(source, "source", "") or ""
    return Path(path).name or path or QCoreApplication.translate("SourcesView", "(untitled)")


def page_text(page: Any, label: Any) -> str:
    """``p. 5`` or, when the printed label differs, ``p. iv (5)``."""
    if page in (None, ""):
        return ""
    if label not in (None, "") and str(label) != str(page):
        return QCoreApplication.translate("SourcesView", "p. {label} ({page})").format(
            label=label, page=page
        )
    return QCoreApplication.translate("SourcesView", "p. {page}").format(page=page)


def where_text(source: Any) -> str:
    """Page (for paged documents) and/or heading path, or a dash."""
    parts = []
    page = page_text(getattr(source, "page", None), getattr(source, "page_label", None))
    if page:
        parts.append(page)
    heading = getattr(source, "heading_path", "") or ""
    if heading:
        parts.append(heading)
    return " · ".join(parts) or "—"


def why_text(metadata: dict[str, Any] | None) -> str:
    """Plain words for the retrieval evidence in a source's metadata."""
    metadata = metadata or {}
    parts: list[str] = []
    keyword = metadata.get("keyword_rank")
    vector = metadata.get("vector_rank")
    if keyword is not None:
        parts.append(
            QCoreApplication.translate("SourcesView", "keyword match #{rank}").format(rank=keyword)
        )
    if vector is not None:
        parts.append(
            QCoreApplication.translate("SourcesView", "meaning match #{rank}").format(rank=vector)
        )
    if metadata.get("rrf_score") is not None:
        parts.append(
            QCoreApplication.translate("SourcesView", "fused score {score:.4f}").format(
                score=float(metadata["rrf_score"])
            )
        )
    if metadata.get("rerank_score") is not None:
        parts.append(
            QCoreApplication.translate("SourcesView", "re-rank score {score:.3f}").format(
                score=float(metadata["rerank_score"])
            )
        )
    if metadata.get("ocr"):
        parts.append(QCoreApplication.translate("SourcesView", "read by OCR"))
    return ", ".join(parts) or QCoreApplication.translate("SourcesView", "neighbouring passage")


class SourcesView(QTreeWidget):
    """Rows ``[n] | document | where | why``; activating a row emits ``sourceActivated(n)``."""

    sourceActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourcesView")
        self.setAccessibleName(self.tr("Sources"))
        self.setColumnCount(4)
        self.setHeaderLabels(
            [self.tr("#"), self.tr("Document"), self.tr("Where"), self.tr("Why it was found")]
        )
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.resizeSection(1, 140)
        header.resizeSection(2, 150)
        self.itemClicked.connect(self._emit)
        self.itemActivated.connect(self._emit)

    def set_sources(self, sources: Iterable[Any]) -> None:
        """Replace the rows with these SourceRefs (texts are set as plain text)."""
        self.clear()
        for source in sources:
            n = int(getattr(source, "n", 0))
            item = QTreeWidgetItem(
                [
                    f"[{n}]",
                    document_label(source),
                    where_text(source),
                    why_text(getattr(source, "metadata", None)),
                ]
            )
            item.setData(0, _N_ROLE, n)
            # Tooltips guess rich text from the content, so escape the untrusted passage.
            passage = (getattr(source, "content", "") or "")[:600]
            item.setToolTip(1, f"<p>{html.escape(getattr(source, 'source', '') or '')}</p>")
            item.setToolTip(3, f"<p>{html.escape(passage)}</p>")
            self.addTopLevelItem(item)

    def select_source(self, n: int) -> None:
        """Highlight the row of source ``n`` without emitting ``sourceActivated``."""
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item.data(0, _N_ROLE) == n:
                self.blockSignals(True)
                self.setCurrentItem(item)
                self.blockSignals(False)
                self.scrollToItem(item)
                return

    def _emit(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        n = item.data(0, _N_ROLE)
        if n is not None:
            self.sourceActivated.emit(int(n))
