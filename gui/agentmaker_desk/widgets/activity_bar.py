"""The status bar's background work: re-embedding, reading scanned pages, folder syncs.

One line with a progress bar and, for work that can be stopped, a Cancel button.
When several things run at once, the most important one is shown ("+1 more").
Short work (a linked-folder rescan that finds nothing new) never flickers into view:
an activity shows only once it has lasted ``show_delay_ms``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

if TYPE_CHECKING:
    from agentmaker_desk.bridge.bridge import EngineBridge

# Shown first when several run at once.
PRIORITY = ("reembed", "ocr", "sync")


@dataclass
class _Activity:
    text: str
    done: int
    total: int
    cancellable: bool
    since: float


class ActivityBar(QWidget):
    """Shows background work from the bridge; Cancel stops re-embedding or OCR."""

    message = Signal(str)  # a one-line outcome for the status bar

    def __init__(self, parent: QWidget | None = None, *, show_delay_ms: int = 400) -> None:
        super().__init__(parent)
        self.setObjectName("activityBar")
        self.show_delay_ms = show_delay_ms
        self._activities: dict[str, _Activity] = {}
        self._cancelled: set[str] = set()
        self._bridge: EngineBridge | None = None
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setObjectName("activityCancel")
        self.cancel_button.clicked.connect(self._cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel_button)
        self.setVisible(False)

    # --- the bridge -----------------------------------------------------------------

    def watch(self, bridge: EngineBridge) -> None:
        """Follow the bridge's re-embedding, OCR and linked-folder work."""
        self._bridge = bridge
        bridge.reembedProgress.connect(self._reembed_progress)
        bridge.reembedFinished.connect(self._reembed_finished)
        bridge.reembedFailed.connect(self._reembed_failed)
        bridge.ocr.progress.connect(self._ocr_progress)
        bridge.ocr.finished.connect(self._ocr_finished)
        bridge.folders.syncProgress.connect(self._sync_progress)
        bridge.folders.syncFinished.connect(self._sync_finished)

    def _reembed_progress(self, done: int, total: int) -> None:
        self.update_activity(
            "reembed", self.tr("Re-computing search vectors"), done, total, cancellable=True
        )

    def _reembed_finished(self, cancelled: bool) -> None:
        self.end("reembed")
        self.message.emit(
            self.tr("Re-embedding was cancelled; the old vectors are kept.")
            if cancelled
            else self.tr("The library now searches with the new embedding model.")
        )

    def _reembed_failed(self, text: str) -> None:
        self.end("reembed")
        self.message.emit(text)

    def _ocr_progress(self, progress: Any) -> None:
        total = int(progress.pages_total or 0)
        done = int(progress.pages_done or 0)
        name = Path(progress.path).name
        if progress.status in ("indexed", "unreadable", "failed", "cancelled"):
            return
        if done < total and progress.status != "indexing":
            text = self.tr("Reading “{name}”: scanned page {n} of {total}").format(
                name=name, n=done + 1, total=total
            )
        else:
            text = self.tr("Indexing “{name}” (read by OCR)").format(name=name)
        self.update_activity("ocr", text, done, total, cancellable=True)

    def _ocr_finished(self, report: Any) -> None:
        self.end("ocr")
        read = len(report.by_status("indexed"))
        if report.cancelled:
            self.message.emit(
                self.tr("Reading scanned pages was paused; it continues at the next start.")
            )
        elif read:
            self.message.emit(self.tr("%n scanned document(s) were read by OCR.", "", read))

    def _sync_progress(self, progress: Any) -> None:
        if progress.action == "done":
            self.end("sync")
            return
        total = int(progress.files_total or 0) if progress.listing_done else 0
        self.update_activity(
            "sync",
            self.tr(
                "Syncing linked folders: {done} of %n file(s)", "", progress.files_total
            ).format(done=progress.files_done)
            if progress.listing_done
            else self.tr("Syncing linked folders: %n file(s) looked at", "", progress.files_done),
            int(progress.files_done or 0),
            total,
        )

    def _sync_finished(self, report: Any) -> None:
        self.end("sync")
        if report.changed or report.failed:
            parts = []
            added = len(report.added) + len(report.copied)
            if added:
                parts.append(self.tr("{n} added").format(n=added))
            if report.updated:
                parts.append(self.tr("{n} updated").format(n=len(report.updated)))
            if report.renamed:
                parts.append(self.tr("{n} renamed").format(n=len(report.renamed)))
            if report.removed:
                parts.append(self.tr("{n} removed").format(n=len(report.removed)))
            if report.failed:
                parts.append(self.tr("{n} could not be read").format(n=len(report.failed)))
            self.message.emit(
                self.tr("Linked folders: {what}.").format(what=self.tr(", ").join(parts))
            )

    # --- activities -----------------------------------------------------------------

    def update_activity(
        self, key: str, text: str, done: int = 0, total: int = 0, *, cancellable: bool = False
    ) -> None:
        """Start or update activity ``key`` (``total`` 0: no known end)."""
        activity = self._activities.get(key)
        if activity is None:
            self._activities[key] = _Activity(text, done, total, cancellable, time.monotonic())
            QTimer.singleShot(self.show_delay_ms + 10, self, self._render)
        else:
            activity.text, activity.done, activity.total = text, done, total
            activity.cancellable = cancellable
        self._render()

    def end(self, key: str) -> None:
        """Activity ``key`` is over."""
        self._cancelled.discard(key)
        if self._activities.pop(key, None) is not None:
            self._render()

    def current(self) -> str | None:
        """The key of the activity shown (None when nothing is)."""
        now = time.monotonic()
        for key in PRIORITY:
            activity = self._activities.get(key)
            if activity is not None and (now - activity.since) * 1000 >= self.show_delay_ms:
                return key
        return None

    def _render(self) -> None:
        key = self.current()
        if key is None:
            self.setVisible(False)
            return
        activity = self._activities[key]
        others = len(self._activities) - 1
        text = activity.text
        if others:
            text += " " + self.tr("(+{n} more)").format(n=others)
        self.label.setText(text)
        if activity.total > 0:
            self.progress.setRange(0, activity.total)
            self.progress.setValue(min(activity.done, activity.total))
        else:
            self.progress.setRange(0, 0)
        self.cancel_button.setVisible(activity.cancellable)
        self.cancel_button.setEnabled(key not in self._cancelled)
        self.setVisible(True)

    def _cancel(self) -> None:
        key = self.current()
        bridge = self._bridge
        if key is None or bridge is None:
            return
        self._cancelled.add(key)
        self.cancel_button.setEnabled(False)
        if key == "reembed":
            bridge.cancel_reembed()
        elif key == "ocr":
            bridge.ocr.cancel()
