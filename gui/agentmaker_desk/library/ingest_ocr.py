"""The import panel's OCR part: scanned files wait after their batch, then are read
page by page; the panel follows it (a mixin of :class:`IngestPanel`).

Texts keep the ``IngestPanel`` translation context they always had; the plural ones
come from the panel (``_count_text``), where lupdate sees their ``%n``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QTreeWidgetItem


class IngestOcr:
    """OCR rows and header of the import panel."""

    _items: dict[str, QTreeWidgetItem]
    _running: bool
    _ocr_running: bool
    _ocr_enabled: bool
    _ocr_clock: dict[str, tuple[float, int]]
    title_label: QLabel
    summary_label: QLabel
    progress: QProgressBar
    cancel_button: QPushButton
    retry_button: QPushButton
    close_button: QPushButton

    if TYPE_CHECKING:  # provided by IngestPanel

        def _set_state(self, path: str, stage: str, *args: Any, **kwargs: Any) -> None: ...
        def failed_paths(self, kind: str | None = None) -> list[str]: ...
        def state_of(self, path: str) -> str | None: ...
        def _count_text(self, which: str, n: int, **values: Any) -> str: ...

    # --- OCR (scanned pages, read after the batch) --------------------------------

    def _set_ocr_state(self, path: str, stage: str, *args: Any, **kwargs: Any) -> None:
        # OCR reports come after the batch that found the scan: they update its row
        # wherever it is, never start a row in a later batch.
        self._set_state(path, stage, *args, in_batch=False, **kwargs)

    def set_ocr_enabled(self, enabled: bool) -> None:
        """Whether OCR is on (rows of waiting scans say so when it is off)."""
        self._ocr_enabled = bool(enabled)
        for path in list(self._items):
            if self.state_of(path) == "ocr_queued":
                self._set_ocr_state(path, "ocr_queued")

    @property
    def ocr_running(self) -> bool:
        return self._ocr_running

    def ocr_started(self) -> None:
        """OCR began reading the waiting scans."""
        self._ocr_running = True
        self._ocr_clock.clear()
        if not self._running:
            self._ocr_header()

    def _ocr_header(self) -> None:
        self.title_label.setText(QCoreApplication.translate("IngestPanel", "Reading scanned pages"))
        self.progress.setRange(0, 0)
        self.summary_label.setText(QCoreApplication.translate("IngestPanel", "Starting OCR…"))
        self.cancel_button.setVisible(True)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setToolTip(
            QCoreApplication.translate(
                "IngestPanel", "Pause reading scanned pages; pages already read are kept"
            )
        )
        self.retry_button.setVisible(False)
        self.close_button.setVisible(True)

    def update_ocr(self, progress: Any) -> None:
        """Apply one OcrProgress report (on the GUI thread)."""
        path, status = str(progress.path), progress.status
        done, total = int(progress.pages_done or 0), int(progress.pages_total or 0)
        if status in ("started", "page_read", "page_unreadable", "page_failed", "indexing"):
            if done < total and status != "indexing":
                label = QCoreApplication.translate(
                    "IngestPanel", "Reading scanned page {n} of {total}…"
                ).format(n=done + 1, total=total)
            else:
                label = QCoreApplication.translate("IngestPanel", "Indexing…")
            detail = self._count_text("pages_read", total, done=done)
            self._set_ocr_state(path, "ocr_reading", label=label, detail=detail)
            self._ocr_clock.setdefault(path, (time.monotonic(), done))
        elif status == "indexed":
            self._set_ocr_state(
                path,
                "indexed",
                kind="ocr",
                label=QCoreApplication.translate("IngestPanel", "Added (read by OCR)"),
                detail=self._count_text("pages_by_ocr", total),
            )
        elif status == "unreadable":
            self._set_ocr_state(
                path, "failed", error=progress.error, kind="ocr_unreadable",
                label=QCoreApplication.translate("IngestPanel", "No readable text"),
            )  # fmt: skip
        elif status == "failed":
            self._set_ocr_state(path, "failed", error=progress.error, kind="ocr_failed")
        elif status == "cancelled":
            self._set_ocr_state(
                path,
                "ocr_paused",
                detail=self._count_text("continues", total, done=done),
            )
        if self._running or not self._ocr_running:
            return
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
            self.progress.setFormat(QCoreApplication.translate("IngestPanel", "page %v of %m"))
        parts = [
            QCoreApplication.translate("IngestPanel", "Reading “{name}”").format(
                name=Path(path).name
            )
        ]
        eta = self._ocr_eta(path, done, total)
        if eta:
            parts.append(eta)
        self.summary_label.setText(" · ".join(parts))

    def _ocr_eta(self, path: str, done: int, total: int) -> str:
        first, done_then = self._ocr_clock.get(path, (time.monotonic(), done))
        elapsed, read = time.monotonic() - first, done - done_then
        if read <= 0 or elapsed < 1.0 or done >= total:
            return ""
        remaining = elapsed / read * (total - done)
        if remaining < 60:
            return QCoreApplication.translate("IngestPanel", "about {n} s left").format(
                n=max(1, round(remaining))
            )
        return QCoreApplication.translate("IngestPanel", "about {n} min left").format(
            n=round(remaining / 60)
        )

    def ocr_finished(self, report: Any) -> None:
        """OCR ended; ``report`` is the OcrReport (authoritative final states)."""
        self._ocr_running = False
        counts: dict[str, int] = {}
        for job in getattr(report, "jobs", []) or []:
            counts[job.status] = counts.get(job.status, 0) + 1
            if job.status == "indexed":
                self._set_ocr_state(
                    job.path,
                    "indexed",
                    job.chunks,
                    kind="ocr",
                    label=QCoreApplication.translate("IngestPanel", "Added (read by OCR)"),
                    detail=self._count_text("passages", job.chunks),
                )
            elif job.status == "unchanged":
                self._set_ocr_state(job.path, "unchanged", kind="ocr")
        if self._running:
            return  # the batch running meanwhile owns the header
        self.cancel_button.setVisible(False)
        self.cancel_button.setToolTip(
            QCoreApplication.translate(
                "IngestPanel", "Stop adding files; files already added are kept"
            )
        )
        self.close_button.setVisible(True)
        self.retry_button.setVisible(bool(self.failed_paths()))
        error = getattr(report, "error", None)
        if error:
            self.title_label.setText(
                QCoreApplication.translate("IngestPanel", "Scanned pages could not be read")
            )
            self.summary_label.setText(str(error))
            return
        self.title_label.setText(
            QCoreApplication.translate("IngestPanel", "Paused")
            if getattr(report, "cancelled", False)
            else QCoreApplication.translate("IngestPanel", "Done")
        )
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.progress.setFormat("")
        parts = [
            QCoreApplication.translate("IngestPanel", "{n} read by OCR").format(
                n=counts.get("indexed", 0)
            )
        ]
        unreadable = counts.get("unreadable", 0) + counts.get("failed", 0)
        if unreadable:
            parts.append(
                QCoreApplication.translate("IngestPanel", "{n} could not be read").format(
                    n=unreadable
                )
            )
        if getattr(report, "cancelled", False):
            parts.append(
                QCoreApplication.translate("IngestPanel", "the rest continues at the next start")
            )
        self.summary_label.setText(
            QCoreApplication.translate("IngestPanel", "{summary}.").format(
                summary=QCoreApplication.translate("IngestPanel", ", ").join(parts)
            )
        )
