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


def place_text(metadata: dict[str, Any], page: Any = None, label: Any = None) -> str:
    """Where a passage is, in words: slide, sheet and row, message, or page.

    ``page`` / ``label`` default to the metadata's ``page`` / ``page_label``.
    """
    tr = QCoreApplication.translate
    slide = metadata.get("slide")
    if isinstance(slide, int):
        return tr("SourcesView", "slide {number}").format(number=slide)
    sheet = metadata.get("sheet")
    if sheet:
        records = metadata.get("records")
        row = metadata.get("row")
        if row is None and isinstance(records, list) and records and records[0] == records[-1]:
            row = records[0]
        if row is not None:
            return tr("SourcesView", "Sheet '{sheet}', row {row}").format(sheet=sheet, row=row)
        if isinstance(records, list) and records:
            return tr("SourcesView", "Sheet '{sheet}', rows {first}–{last}").format(
                sheet=sheet, first=records[0], last=records[-1]
            )
        return tr("SourcesView", "Sheet '{sheet}'").format(sheet=sheet)
    location = metadata.get("location")
    if location:  # an e-mail: its subject and date, document text shown as it is
        return str(location)
    if page is None:
        page, label = metadata.get("page"), metadata.get("page_label")
    return page_text(page, label)


def heading_beside(place: str, heading: str) -> str:
    """The heading path, unless the place already says it (a sheet's name)."""
    return "" if heading and heading.startswith("Sheet '") and place else heading


def where_text(source: Any) -> str:
    """Place (page, slide, sheet row, message) and/or heading path, or a dash."""
    parts = []
    place = place_text(
        getattr(source, "metadata", None) or {},
        getattr(source, "page", None),
        getattr(source, "page_label", None),
    )
    if place:
        parts.append(place)
    heading = heading_beside(place, getattr(source, "heading_path", "") or "")
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
