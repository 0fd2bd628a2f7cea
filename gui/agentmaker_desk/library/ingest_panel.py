"""The ingestion panel: each file with its state, overall progress with ETA, Cancel, Retry.

Every batch keeps its own group of rows under its own summary (``ingest_history``), so
earlier batches stay readable and their failures reachable. After a batch, scanned files
wait for OCR ("Waiting for OCR"); while OCR reads them the panel follows it page by
page, and its Cancel pauses OCR (the rest is read next time).
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDateTime, QEvent, QLocale, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.engine_messages import engine_text
from agentmaker_desk.library.ingest_history import BatchHistory
from agentmaker_desk.library.ingest_ocr import IngestOcr
from agentmaker_desk.theme import error_colour

_PATH_ROLE = Qt.ItemDataRole.UserRole + 1
_STAGE_ROLE = Qt.ItemDataRole.UserRole + 2
_KIND_ROLE = Qt.ItemDataRole.UserRole + 3
_CHUNKS_ROLE = Qt.ItemDataRole.UserRole + 4
_ERROR_ROLE = Qt.ItemDataRole.UserRole + 5
_OUTCOME_ROLE = Qt.ItemDataRole.UserRole + 6
_CODE_ROLE = Qt.ItemDataRole.UserRole + 7
_PARAMS_ROLE = Qt.ItemDataRole.UserRole + 8


def human_bytes(count: float) -> str:
    """``1.2 MB`` style sizes."""
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"


class IngestPanel(IngestOcr, QWidget):
    """Shows the ingestion batches (newest on top); asks the window to cancel or retry
    through signals."""

    cancelRequested = Signal()
    ocrCancelRequested = Signal()
    retryRequested = Signal(list)  # paths
    passwordRequested = Signal(str)  # path
    closeRequested = Signal()
    failuresChanged = Signal(int)  # how many files could not be added (newest rows)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ingestPanel")
        self._items: dict[str, QTreeWidgetItem] = {}
        self._started = 0.0
        self._running = False
        self._ocr_running = False
        self._ocr_enabled = True
        self._ocr_clock: dict[str, tuple[float, int]] = {}  # path → (first report, pages done)
        self._failed_count = 0

        self.title_label = QLabel(self.tr("Adding files"), self)
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("ingestProgress")
        self.progress.setAccessibleName(self.tr("Overall progress"))
        self.progress.setTextVisible(True)
        self.summary_label = QLabel(self)
        self.summary_label.setObjectName("ingestSummary")
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(self.tr("Stop adding files; files already added are kept"))
        self.cancel_button.clicked.connect(self._cancel)
        # Locked files wait for the person: a prompt opening by itself would take the
        # keyboard from whatever they are typing.
        self.password_button = QPushButton(self.tr("Enter password…"), self)
        self.password_button.setObjectName("passwordButton")
        self.password_button.setToolTip(self.tr("Open a password-protected file of this list"))
        self.password_button.clicked.connect(self._ask_password)
        self.password_button.setVisible(False)
        self.retry_button = QPushButton(self.tr("Retry failed files"), self)
        self.retry_button.clicked.connect(self._retry_failed)
        self.retry_button.setVisible(False)
        self.close_button = QPushButton(self.tr("Hide"), self)
        self.close_button.clicked.connect(self.closeRequested)
        self.close_button.setVisible(False)

        self.files = QTreeWidget(self)
        self.files.setObjectName("ingestFiles")
        self.files.setAccessibleName(self.tr("Files being added"))
        self.files.setColumnCount(3)
        self.files.setHeaderLabels([self.tr("File"), self.tr("State"), self.tr("Details")])
        self.files.setRootIsDecorated(True)
        self.history = BatchHistory(self.files, _STAGE_ROLE)
        self.files.setUniformRowHeights(True)
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.files.customContextMenuRequested.connect(self._context_menu)
        self.files.itemDoubleClicked.connect(self._double_clicked)
        header = self.files.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 260)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)

        top = QHBoxLayout()
        top.addWidget(self.title_label)
        top.addWidget(self.progress, 1)
        top.addWidget(self.cancel_button)
        top.addWidget(self.password_button)
        top.addWidget(self.retry_button)
        top.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.files, 1)

    # --- batch lifecycle -----------------------------------------------------------

    def begin(self, paths: Iterable[str]) -> None:
        """A new batch starts: its own group of rows on top; earlier batches stay below."""
        for item in self.history.start(self._heading(self.tr("Adding files…"))):
            path = item.data(0, _PATH_ROLE)
            if self._items.get(path) is item:
                del self._items[path]
        self._started = time.monotonic()
        self._running = True
        self.title_label.setText(self.tr("Adding files"))
        self.progress.setRange(0, 0)  # busy until the first report gives totals
        self.summary_label.setText(self.tr("Looking at the files…"))
        self.cancel_button.setVisible(True)
        self.cancel_button.setEnabled(True)
        self.retry_button.setVisible(False)
        self.close_button.setVisible(False)
        for path in paths:
            self._row(str(path))

    def update_progress(self, progress: Any) -> None:
        """Apply one IngestProgress report (on the GUI thread)."""
        path = str(getattr(progress, "path", "") or "")
        if path:
            stage = progress.stage
            detail = None
            chunks = int(getattr(progress, "chunks", 0) or 0)
            if stage == "embedding" and chunks:
                embedded = int(getattr(progress, "chunks_embedded", 0) or 0)
                detail = self.tr("{done} of %n passage(s)", "", chunks).format(
                    done=min(embedded, chunks)
                )
            self._set_state(
                path,
                stage,
                chunks,
                getattr(progress, "error", None),
                getattr(progress, "error_kind", None),
                detail=detail,
                code=getattr(progress, "error_code", None),
                params=getattr(progress, "error_params", None),
            )
            if stage in ("reading", "embedding"):
                self.files.scrollToItem(self._items[path])  # follow the current file
            self._update_password_button()
        total = int(getattr(progress, "files_total", 0) or 0)
        done = int(getattr(progress, "files_done", 0) or 0)
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
            self.progress.setFormat(self.tr("%v of %n file(s)", "", total))
        self.summary_label.setText(self._summary(progress))

    def finish(self, report: Any) -> None:
        """The batch ended; ``report`` is the BatchReport (authoritative final states)."""
        self._running = False
        counts = {"indexed": 0, "unchanged": 0, "failed": 0, "cancelled": 0, "ocr_queued": 0}
        for outcome in getattr(report, "files", []) or []:
            status = outcome.status
            counts[status] = counts.get(status, 0) + 1
            self._set_state(
                str(outcome.path),
                status,
                getattr(outcome, "chunks", 0),
                getattr(outcome, "error", None),
                getattr(outcome, "error_kind", None),
                code=getattr(outcome, "error_code", None),
                params=getattr(outcome, "error_params", None),
            )
        cancelled = bool(getattr(report, "cancelled", False))
        self.show_outcome({"state": "cancelled" if cancelled else "done", "counts": counts})

    def show_outcome(self, outcome: dict[str, Any], group: QTreeWidgetItem | None = None) -> None:
        """Show how a batch ended: on its group row, and in the header for the newest.

        ``outcome`` is ``{"state": "done"|"cancelled", "counts": {...}}`` or
        ``{"state": "failed", "message": ...}``; kept on the group, so the texts can be
        written again in another language.
        """
        group = group or self.history.current
        if group is not None:
            group.setData(0, _OUTCOME_ROLE, outcome)
        if outcome.get("state") == "failed":
            self.history.set_heading(self._heading(self.tr("Adding files failed"), group), group)
            if group is self.history.current:
                self.progress.setRange(0, 1)
                self.progress.setValue(0)
                self.title_label.setText(self.tr("Adding files failed"))
                self.summary_label.setText(str(outcome.get("message", "")))
                self.cancel_button.setVisible(False)
                self.close_button.setVisible(True)
            return
        counts = outcome.get("counts", {})
        cancelled = outcome.get("state") == "cancelled"
        parts = [self.tr("{n} added").format(n=counts.get("indexed", 0))]
        if counts.get("unchanged"):
            parts.append(self.tr("{n} already up to date").format(n=counts["unchanged"]))
        if counts.get("failed"):
            parts.append(self.tr("{n} could not be read").format(n=counts["failed"]))
        if counts.get("ocr_queued"):
            parts.append(self.tr("{n} waiting for OCR").format(n=counts["ocr_queued"]))
        if counts.get("cancelled") or cancelled:
            parts.append(self.tr("{n} not added (cancelled)").format(n=counts.get("cancelled", 0)))
        title = self.tr("Cancelled") if cancelled else self.tr("Done")
        joined = self.tr(", ").join(parts)  # Chinese lists take "，"
        summary = self.tr("{title}: {summary}").format(title=title, summary=joined)
        self.history.set_heading(self._heading(summary, group), group)
        if group is not self.history.current:
            return
        total = sum(counts.values())
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(total - counts.get("cancelled", 0))
        self.progress.setFormat(self.tr("%v of %n file(s)", "", total))
        self.title_label.setText(title)
        self.summary_label.setText(self.tr("{summary}.").format(summary=joined))
        self.cancel_button.setVisible(False)
        self.retry_button.setVisible(bool(self.failed_paths()))
        self._update_password_button()
        self.close_button.setVisible(True)
        if self._ocr_running:
            self._ocr_header()

    def fail(self, message: str) -> None:
        """The whole batch failed (e.g. the library could not be written)."""
        self._running = False
        self.show_outcome({"state": "failed", "message": message})

    # --- reading back ---------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._running

    def state_of(self, path: str) -> str | None:
        """The stage shown for ``path`` (``queued``, ``indexed``, ``failed``…)."""
        item = self._items.get(str(path))
        return item.data(0, _STAGE_ROLE) if item is not None else None

    def label_of(self, path: str) -> str | None:
        """The state text shown for ``path`` ("Waiting for OCR", …)."""
        item = self._items.get(str(path))
        return item.text(1) if item is not None else None

    def detail_of(self, path: str) -> str | None:
        """The details text shown for ``path``."""
        item = self._items.get(str(path))
        return item.text(2) if item is not None else None

    def batch_headings(self) -> list[str]:
        """Each batch's summary line, newest first."""
        return [group.text(0) for group in self.history.groups()]

    def batch_files(self, index: int) -> list[str]:
        """The paths of the rows of batch ``index`` (0 = newest)."""
        group = self.history.groups()[index]
        return [group.child(i).data(0, _PATH_ROLE) for i in range(group.childCount())]

    def reveal_failures(self) -> None:
        """Open the batches holding files that could not be added and select those rows."""
        failed = [self._items[p] for p in self.failed_paths()]
        self.files.clearSelection()
        if failed:
            self.files.setCurrentItem(failed[0])  # the keyboard starts there
        for item in failed:
            group = item.parent()
            if group is not None:
                group.setExpanded(True)
            item.setSelected(True)
        if failed:
            self.files.scrollToItem(failed[0])
            self.files.setFocus()

    def failed_paths(self, kind: str | None = None) -> list[str]:
        """Paths whose last state is failed (optionally only of one error kind)."""
        return [
            path
            for path, item in self._items.items()
            if item.data(0, _STAGE_ROLE) == "failed"
            and (kind is None or item.data(0, _KIND_ROLE) == kind)
        ]

    # --- carried over to a window rebuilt in another language ----------------------

    def snapshot(self) -> list[dict[str, Any]]:
        """The batches (newest first) as plain data: when each started, how it ended,
        and each row's state, so :meth:`restore` can write them in another language."""
        batches = []
        for group in self.history.groups():
            rows = []
            for i in range(group.childCount()):
                row = group.child(i)
                rows.append(
                    {
                        "path": row.data(0, _PATH_ROLE),
                        "stage": row.data(0, _STAGE_ROLE),
                        "chunks": row.data(0, _CHUNKS_ROLE) or 0,
                        "error": row.data(0, _ERROR_ROLE),
                        "kind": row.data(0, _KIND_ROLE),
                        "code": row.data(0, _CODE_ROLE),
                        "params": row.data(0, _PARAMS_ROLE),
                    }
                )
            batches.append(
                {
                    "started": self.history.started_at(group),
                    "outcome": group.data(0, _OUTCOME_ROLE),
                    "rows": rows,
                }
            )
        return batches

    def restore(self, batches: list[dict[str, Any]]) -> None:
        """Rebuild the batches of :meth:`snapshot` (texts in the current language)."""
        ocr_labels = {
            ("indexed", "ocr"): self.tr("Added (read by OCR)"),
            ("failed", "ocr_unreadable"): self.tr("No readable text"),
        }
        for batch in reversed(batches):  # oldest first: newer rows supersede older ones
            self.history.start("", started=batch["started"])
            for row in batch["rows"]:
                stage = row["stage"]
                if stage == "superseded":
                    stage = "failed" if row["error"] else "indexed"
                elif stage == "ocr_reading":
                    stage = "ocr_queued"  # the OCR runner's next report says more
                self._set_state(
                    row["path"],
                    stage,
                    row["chunks"],
                    row["error"],
                    row["kind"],
                    label=ocr_labels.get((stage, row["kind"])),
                    code=row.get("code"),
                    params=row.get("params"),
                )
            outcome = batch["outcome"]
            if outcome:
                self.show_outcome(outcome)
            else:
                self.history.set_heading(
                    self._heading(self.tr("Adding files"), self.history.current)
                )
        self.retry_button.setVisible(bool(self.failed_paths()))
        self._update_password_button()
        self.close_button.setVisible(True)

    # --- internals --------------------------------------------------------------

    def _heading(self, text: str, group: QTreeWidgetItem | None = None) -> str:
        started = self.history.started_at(group) if group is not None else 0.0
        moment = (
            QDateTime.fromSecsSinceEpoch(int(started)) if started else QDateTime.currentDateTime()
        )
        when = QLocale().toString(moment.time(), QLocale.FormatType.ShortFormat)
        return self.tr("{time} · {text}").format(time=when, text=text)

    def _row(self, path: str, *, in_batch: bool = True) -> QTreeWidgetItem:
        """The row of ``path``: in the current batch (``in_batch``), else its newest row."""
        item = self._items.get(path)
        if item is not None and (not in_batch or item.parent() is self.history.current):
            return item
        if item is not None:  # added again: its older row is history now
            self._supersede(item)
        group = self.history.ensure_current(lambda: self._heading(self.tr("Adding files")))
        item = QTreeWidgetItem([Path(path).name or path, self.tr("Waiting"), ""])
        item.setData(0, _PATH_ROLE, path)
        item.setData(0, _STAGE_ROLE, "queued")
        item.setToolTip(0, f"<p>{html.escape(path)}</p>")  # tooltips guess rich text
        group.addChild(item)
        self._items[path] = item
        return item

    def _count_text(self, which: str, n: int, **values: Any) -> str:
        """A text with a count in the right plural form (used by the OCR part too)."""
        if which == "pages_read":
            text = self.tr("{done} of %n page(s) read", "", n)
        elif which == "pages_by_ocr":
            text = self.tr("%n page(s) read by OCR", "", n)
        elif which == "continues":
            text = self.tr("Continues at the next start ({done} of %n page(s) read).", "", n)
        else:
            text = self.tr("%n passage(s)", "", n)
        return text.format(**values)

    def _supersede(self, item: QTreeWidgetItem) -> None:
        item.setData(0, _STAGE_ROLE, "superseded")
        item.setText(1, self.tr("Tried again"))
        item.setToolTip(1, self.tr("Added again in a later batch; its newest row is above."))
        dim = self.palette().color(QPalette.ColorRole.PlaceholderText)
        for column in range(3):
            item.setForeground(column, dim)

    def _count_failures(self) -> None:
        count = len(self.failed_paths())
        if count != self._failed_count:
            self._failed_count = count
            self.failuresChanged.emit(count)

    def _set_state(
        self,
        path: str,
        stage: str,
        chunks: Any = 0,
        error: Any = None,
        kind: Any = None,
        *,
        label: str | None = None,
        detail: str | None = None,
        in_batch: bool = True,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        item = self._row(path, in_batch=in_batch)
        labels = {
            "queued": self.tr("Waiting"),
            "reading": self.tr("Reading…"),
            "embedding": self.tr("Indexing…"),
            "indexed": self.tr("Added"),
            "unchanged": self.tr("Already up to date"),
            "failed": self.tr("Could not be read"),
            "cancelled": self.tr("Cancelled"),
            "ocr_queued": self.tr("Waiting for OCR"),
            "ocr_paused": self.tr("Paused"),
        }
        item.setText(1, label or labels.get(stage, stage))
        item.setData(0, _STAGE_ROLE, stage)
        item.setData(0, _KIND_ROLE, kind)
        item.setData(0, _CHUNKS_ROLE, int(chunks or 0))
        item.setData(0, _ERROR_ROLE, str(error) if error else None)
        item.setData(0, _CODE_ROLE, code)  # the engine's error code: shown translated
        item.setData(0, _PARAMS_ROLE, dict(params or {}))
        if stage == "failed":
            detail = engine_text(code=code, params=params, fallback=str(error or "")) or self.tr(
                "Unknown problem."
            )
            if kind == "password_required":
                detail += " " + self.tr("Use “Enter password…” (or double-click the row).")
            item.setText(2, detail)
            item.setToolTip(2, f"<p>{html.escape(detail)}</p>")
            for column in range(3):
                item.setForeground(column, error_colour(self.palette()))
            self._count_failures()
            return
        if detail is None:
            if stage == "indexed":
                detail = self.tr("%n passage(s)", "", chunks or 0)
            elif stage == "ocr_queued":
                detail = (
                    self.tr("Scanned: its pages are read by OCR after the other files.")
                    if self._ocr_enabled
                    else self.tr("Scanned: reading scanned pages is turned off in Settings.")
                )
            elif stage in ("queued", "reading", "embedding", "unchanged", "cancelled"):
                detail = ""
        if detail is not None:
            item.setText(2, detail)
            item.setToolTip(2, f"<p>{html.escape(detail)}</p>" if detail else "")
        for column in range(3):
            item.setData(column, Qt.ItemDataRole.ForegroundRole, None)
        self._count_failures()

    def changeEvent(self, event: QEvent) -> None:
        """Another theme: failed rows take the red that reads on it."""
        if event.type() == QEvent.Type.PaletteChange:
            red = error_colour(self.palette())
            for item in self._items.values():
                if item.data(0, _STAGE_ROLE) == "failed":
                    for column in range(3):
                        item.setForeground(column, red)
        super().changeEvent(event)

    def _ask_password(self) -> None:
        """The "Enter password…" button: the selected locked file, else the first one."""
        locked = self.failed_paths("password_required")
        selected = [i.data(0, _PATH_ROLE) for i in self.files.selectedItems()]
        chosen = next((p for p in selected if p in locked), locked[0] if locked else None)
        if chosen is not None and not self._running:
            self.passwordRequested.emit(chosen)

    def _update_password_button(self) -> None:
        self.password_button.setVisible(bool(self.failed_paths("password_required")))

    def _summary(self, progress: Any) -> str:
        done = int(getattr(progress, "files_done", 0) or 0)
        total = int(getattr(progress, "files_total", 0) or 0)
        bytes_total = float(getattr(progress, "bytes_total", 0) or 0)
        # Work done inside the current file counts too: a 3 MB book shows its progress
        # while it is embedded, not only once it is finished.
        fraction = getattr(progress, "work_fraction", None)
        if not isinstance(fraction, float):
            bytes_done = float(getattr(progress, "bytes_done", 0) or 0)
            fraction = bytes_done / bytes_total if bytes_total else (done / total if total else 0)
        parts = [self.tr("{done} of %n file(s)", "", total).format(done=done)]
        if bytes_total:
            parts.append(
                self.tr("{done} of {total}").format(
                    done=human_bytes(bytes_total * fraction), total=human_bytes(bytes_total)
                )
            )
        eta = self._eta(fraction)
        if eta:
            parts.append(eta)
        return " · ".join(parts)

    def _eta(self, fraction: float) -> str:
        elapsed = time.monotonic() - self._started
        if elapsed < 1.0 or fraction <= 0.02 or fraction >= 1.0:
            return ""
        remaining = elapsed * (1.0 - fraction) / fraction
        if remaining < 60:
            return self.tr("about {n} s left").format(n=max(1, round(remaining)))
        return self.tr("about {n} min left").format(n=round(remaining / 60))

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        if self._running:
            self.summary_label.setText(self.tr("Cancelling… files already added are kept."))
            self.cancelRequested.emit()
        elif self._ocr_running:
            self.summary_label.setText(self.tr("Pausing… pages already read are kept."))
            self.ocrCancelRequested.emit()

    def _retry_failed(self) -> None:
        paths = self.failed_paths()
        if paths:
            self.retryRequested.emit(paths)

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.data(0, _STAGE_ROLE) != "failed" or self._running:
            return
        path = item.data(0, _PATH_ROLE)
        if item.data(0, _KIND_ROLE) == "password_required":
            self.passwordRequested.emit(path)
        else:
            self.retryRequested.emit([path])

    def _context_menu(self, point: Any) -> None:
        selected = [i for i in self.files.selectedItems() if i.data(0, _STAGE_ROLE) == "failed"]
        if not selected or self._running:
            return
        menu = QMenu(self)
        retry = menu.addAction(self.tr("Retry"))
        retry.triggered.connect(
            lambda: self.retryRequested.emit([i.data(0, _PATH_ROLE) for i in selected])
        )
        locked = [i for i in selected if i.data(0, _KIND_ROLE) == "password_required"]
        if len(locked) == 1:
            password = menu.addAction(self.tr("Enter password…"))
            password.triggered.connect(
                lambda: self.passwordRequested.emit(locked[0].data(0, _PATH_ROLE))
            )
        menu.popup(self.files.viewport().mapToGlobal(point))
