"""Part of the bridge: reading scanned pages (OCR) in the background.

The engine's :class:`~agentmaker.ocr.OcrQueue` is attached to the open library, so
ingesting a scan queues it (``ocr_queued``); an :class:`~agentmaker.ocr.OcrWorker`
then reads the queued pages in a worker thread. Every page is stored as soon as it is
read, so a cancelled run (or a closed app) resumes on the next start without reading
finished pages again. Progress is re-posted to the GUI thread before it is emitted.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from agentmaker_desk.bridge.host import BridgeHost
from agentmaker_desk.engine_messages import engine_text

log = logging.getLogger(__name__)


class OcrRunner(QObject):
    """Owns the library's OCR queue and runs its pending jobs, one run at a time."""

    started = Signal()  # a run with pending jobs began
    progress = Signal(object)  # OcrProgress, on the GUI thread
    finished = Signal(object)  # OcrReport
    failed = Signal(str)  # the OCR engine could not start, or the library could not be written
    countsChanged = Signal(dict)  # jobs per status ("pending", "done", "failed", …)

    def __init__(self, bridge: BridgeHost, engine: Any = None, *, dpi: int = 150) -> None:
        super().__init__(bridge)
        self._bridge = bridge
        self._engine = engine  # None → the real OCR engine, created on the first run
        self._dpi = dpi
        self._queue: Any = None
        self._pipeline: Any = None
        self._enabled = True
        self._task: asyncio.Task[Any] | None = None
        self._token: Any = None
        self._again = False  # more jobs were queued while a run was ending
        self._paused = False  # Cancel was pressed: nothing starts until start() is called
        self._closed = True  # no library, or it is closing: nothing starts at all

    # --- the library ------------------------------------------------------------

    def attach(self, library: Any, enabled: bool) -> None:
        """Queue scans of ``library`` from now on (call off the GUI thread: it migrates)."""
        from agentmaker.ocr import OcrQueue

        self._enabled = bool(enabled) and self.available
        self._queue = OcrQueue(library.db, enabled=self._enabled)
        self._pipeline = library.pipeline
        library.pipeline.ocr = self._queue
        self._closed = self._paused = False

    def close(self) -> None:
        """The library is closing: stop after the page being read and start nothing new."""
        self._closed = True
        self.cancel()

    async def adetach(self) -> None:
        """Stop a run (after the page being read) and forget the library."""
        self.close()
        task = self._task
        if task is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)
        self._task = None
        self._queue = self._pipeline = None

    @property
    def queue(self) -> Any:
        """The open library's OcrQueue, or None."""
        return self._queue

    @property
    def enabled(self) -> bool:
        return self._enabled

    @property
    def available(self) -> bool:
        """False when this installation has no OCR engine (an installer built without it):
        then scans are remembered but not read, and pictures are not picked up."""
        return self._engine is not None or importlib.util.find_spec("rapidocr") is not None

    @property
    def running(self) -> bool:
        """True while a run is going on."""
        return self._task is not None and not self._task.done()

    def set_enabled(self, enabled: bool) -> None:
        """The "Read scanned pages" setting: off stops a run; on starts pending jobs."""
        self._enabled = bool(enabled) and self.available
        if self._queue is not None:
            self._queue.enabled = self._enabled
        if self._enabled:
            self.start()
        else:
            self.cancel()

    # --- running --------------------------------------------------------------------

    def start(self) -> None:
        """Read pending jobs in the background (no-op when off or nothing is pending)."""
        if self._queue is None or not self._enabled or self._closed:
            return
        self._paused = False
        if self.running:
            self._again = True  # jobs queued while the run ends are picked up by a rerun
            return
        self._task = self._bridge.spawn(self._run(), "ocr")

    def cancel(self) -> None:
        """Stop after the page being read; the rest is read on the next start."""
        self._again = False
        self._paused = True
        if self._token is not None:
            self._token.cancel()

    async def _run(self) -> None:
        from agentmaker.errors import AgentmakerError
        from agentmaker.ocr import OcrEngine, OcrWorker
        from agentmaker.rag.ingest.batch import CancelToken

        queue, pipeline = self._queue, self._pipeline
        if self._engine is None:
            self._engine = OcrEngine()  # the models load on the first page, in the worker
        while queue is not None and self._enabled:
            self._again = False
            if not await asyncio.to_thread(queue.pending):
                break
            if self._paused or self._closed or not self._enabled:
                break  # cancelled while looking
            token = CancelToken()
            self._token = token
            self.started.emit()
            try:
                report = await OcrWorker(queue, pipeline, self._engine, dpi=self._dpi).arun_pending(
                    progress=self._on_progress, cancel=token
                )
            except AgentmakerError as error:  # e.g. the library file cannot be written
                self.failed.emit(engine_text(error))
                return
            finally:
                self._token = None
            await asyncio.sleep(0)  # progress posted from the worker lands first
            self.finished.emit(report)
            if report.error:
                self.failed.emit(report.error)
            if any(j.status in ("indexed", "unreadable") for j in report.jobs):
                await self._bridge.refresh_documents()
                self._bridge.libraryChanged.emit()
            await self.refresh_counts()
            if report.error or not self._again or self._paused or self._closed:
                break

    def _on_progress(self, progress: Any) -> None:
        # Called on the worker's thread: hop to the GUI thread before emitting.
        self._bridge.post(self.progress.emit, progress)

    # --- the queue, for Settings ------------------------------------------------------

    def request_counts(self) -> None:
        """Emit ``countsChanged`` soon (read in the background; needs the running loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # e.g. a dialog built outside the loop: no counts shown
            return
        if self._queue is not None:
            self._bridge.spawn(self.refresh_counts(), "ocr-counts")

    def request_retry(self) -> None:
        """Retry the failed jobs in the background."""
        if self._queue is not None:
            self._bridge.spawn(self.retry_failed(), "ocr-retry")

    async def refresh_counts(self) -> dict[str, int]:
        """Jobs per status (read off the GUI thread); also emitted as ``countsChanged``."""
        queue = self._queue
        counts = await asyncio.to_thread(queue.counts) if queue is not None else {}
        self.countsChanged.emit(dict(counts))
        return counts

    async def retry_failed(self) -> int:
        """Try the jobs that failed again (their finished pages are kept)."""
        queue = self._queue
        if queue is None:
            return 0
        count = await asyncio.to_thread(queue.retry_failed)
        await self.refresh_counts()
        self.start()
        return count

    async def forget(self, doc_id: str) -> None:
        """Drop the job of a removed document, so OCR does not bring it back."""
        queue = self._queue
        if queue is not None:
            await asyncio.to_thread(queue.remove, doc_id)
