"""Part of the bridge: linked folders the library follows while the app runs.

Wraps the engine's :class:`~agentmaker.rag.folders.sync.FolderSync` (what is linked,
which files failed) and :class:`~agentmaker.rag.folders.watch.FolderWatcher` (live
file-system events, debounced scans, a periodic rescan). The watcher runs in its own
thread and delivers its callbacks on the qasync loop; everything here is re-emitted as
Qt signals. The watcher's task is kept apart from the bridge's short-lived tasks
(it runs until the library closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal

from agentmaker_desk.bridge.host import BridgeHost
from agentmaker_desk.engine_messages import engine_text

log = logging.getLogger(__name__)


def _is_under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class FolderLinks(QObject):
    """Linked folders of the open library: link, unlink, ignore lists, failures, retries."""

    foldersChanged = Signal(list)  # list[LinkedFolder]
    failuresChanged = Signal(list)  # list[FileFailure]
    syncProgress = Signal(object)  # SyncProgress
    syncFinished = Signal(object)  # SyncReport
    linkFailed = Signal(str)  # a plain-language reason
    passwordNeeded = Signal(list)  # paths of newly failed, password-protected files

    def __init__(
        self,
        bridge: BridgeHost,
        *,
        debounce: float = 1.5,
        rescan_interval: float | None = 600.0,
    ) -> None:
        super().__init__(bridge)
        self._bridge = bridge
        self._debounce = debounce
        self._rescan_interval = rescan_interval
        self._sync: Any = None
        self._watcher: Any = None
        self._task: asyncio.Future[Any] | None = None
        self._reports: set[asyncio.Task[Any]] = set()  # handling of watcher reports
        self.folders: list[Any] = []
        self.failures: list[Any] = []

    # --- the library ------------------------------------------------------------

    async def aattach(self, library: Any) -> None:
        """Follow ``library``'s linked folders (an initial scan brings them up to date)."""
        from agentmaker.rag.folders.sync import FolderSync
        from agentmaker.rag.folders.watch import FolderWatcher

        self._sync = await asyncio.to_thread(FolderSync, library)
        self._watcher = FolderWatcher(
            self._sync,
            debounce=self._debounce,
            rescan_interval=self._rescan_interval,
            progress=self._on_progress,
            on_report=self._on_report,
            on_error=self._on_error,
        )
        self._task = asyncio.ensure_future(self._watcher.arun())
        await self.refresh()

    async def adetach(self) -> None:
        """Stop watching (a running scan stops at the next file; the next start finishes it)."""
        task, self._task = self._task, None
        if self._sync is not None:
            self._sync.close()
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._sync = self._watcher = None
        self.folders, self.failures = [], []
        self.foldersChanged.emit([])
        self.failuresChanged.emit([])

    async def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no scan is pending or running and its report was handled."""
        watcher = self._watcher
        if watcher is None:
            return True
        idle = await asyncio.to_thread(watcher.wait_idle, timeout)
        for _ in range(3):  # reports are posted to the loop: let them and their work land
            await asyncio.sleep(0)
            while self._reports:
                await asyncio.gather(*list(self._reports), return_exceptions=True)
        return idle

    @property
    def attached(self) -> bool:
        return self._sync is not None

    @property
    def scanning(self) -> bool:
        return self._watcher is not None and self._watcher.scanning

    @property
    def unwatched(self) -> dict[str, str]:
        """Folders that cannot be watched live (path → reason); they are rescanned often."""
        return dict(self._watcher.unwatched) if self._watcher is not None else {}

    # --- reading ----------------------------------------------------------------

    async def refresh(self) -> None:
        """Re-read the linked folders and the failed files (off the GUI thread)."""
        sync = self._sync
        if sync is None:
            return
        folders, failures = await asyncio.to_thread(lambda: (sync.folders(), sync.failures()))
        if sync is not self._sync:  # the library closed meanwhile
            return
        self.folders, self.failures = folders, failures
        self.foldersChanged.emit(list(folders))
        self.failuresChanged.emit(list(failures))

    def folder_of(self, path: str) -> str | None:
        """The linked folder that holds ``path`` (from the last refresh), if any."""
        if not path:
            return None
        absolute = os.path.abspath(path)
        return next((f.path for f in self.folders if _is_under(absolute, f.path)), None)

    def is_failure(self, path: str) -> bool:
        """True when ``path`` is a file of a linked folder that failed."""
        return any(f.path == path for f in self.failures)

    # --- changing ---------------------------------------------------------------

    def link(self, folder: str, ignore: Sequence[str] = ()) -> asyncio.Task[Any]:
        return self._bridge.spawn(self.alink(folder, ignore), "link-folder")

    async def alink(self, folder: str, ignore: Sequence[str] = ()) -> Any:
        """Follow ``folder``; the watcher scans it at once. None (and a signal) on failure."""
        from agentmaker.errors import AgentmakerError

        sync = self._sync
        if sync is None:
            return None
        try:
            info = await asyncio.to_thread(sync.link, folder, list(ignore))
        except (AgentmakerError, OSError) as error:
            self.linkFailed.emit(engine_text(error))
            return None
        await self.refresh()
        return info

    def unlink(self, folder: str, remove_documents: bool) -> asyncio.Task[Any]:
        return self._bridge.spawn(self.aunlink(folder, remove_documents), "unlink-folder")

    async def aunlink(self, folder: str, remove_documents: bool) -> int:
        """Stop following ``folder``, keeping or removing its documents."""
        sync = self._sync
        if sync is None:
            return 0
        removed = await sync.aunlink(folder, remove_documents)
        await self.refresh()
        if removed:
            await self._bridge.refresh_documents()
            self._bridge.libraryChanged.emit()
        return removed

    def set_ignore(self, folder: str, patterns: Sequence[str]) -> asyncio.Task[Any]:
        return self._bridge.spawn(self.aset_ignore(folder, patterns), "ignore-folder")

    async def aset_ignore(self, folder: str, patterns: Sequence[str]) -> None:
        """Replace the folder's ignore patterns (the watcher rescans it)."""
        from agentmaker.errors import AgentmakerError

        sync = self._sync
        if sync is None:
            return
        try:
            await asyncio.to_thread(sync.set_ignore, folder, list(patterns))
        except AgentmakerError as error:
            self.linkFailed.emit(engine_text(error))
        await self.refresh()

    def sync_now(self, folder: str | None = None) -> None:
        """Scan ``folder`` (None: every linked folder) as soon as the watcher is free."""
        if self._watcher is not None:
            self._watcher.request_scan(folder)

    def retry(
        self, paths: Sequence[str] | None = None, passwords: dict[str, str] | None = None
    ) -> asyncio.Task[Any]:
        return self._bridge.spawn(self.aretry(paths, passwords), "retry-folder-files")

    async def aretry(
        self, paths: Sequence[str] | None = None, passwords: dict[str, str] | None = None
    ) -> Any:
        """Try failed files again now (all, or ``paths``), with passwords when given."""
        sync = self._sync
        if sync is None:
            return None
        wanted = list(paths) if paths is not None else None
        report = await asyncio.to_thread(sync.retry_failed, wanted, passwords=passwords or {})
        await self._after_report(report, ask_passwords=False)
        return report

    # --- watcher callbacks (on the loop) ------------------------------------------

    def _on_progress(self, progress: Any) -> None:
        if self._sync is not None:
            self.syncProgress.emit(progress)

    def _on_report(self, report: Any) -> None:
        if self._sync is not None:
            task = self._bridge.spawn(self._after_report(report), "folder-report")
            self._reports.add(task)
            task.add_done_callback(self._reports.discard)

    def _on_error(self, error: BaseException) -> None:
        log.warning("linked folder scan failed: %s", error)
        with contextlib.suppress(RuntimeError):  # the bridge is gone (app quitting)
            self._bridge.notice.emit(
                self.tr("A linked folder could not be synced: {error}").format(error=error)
            )

    async def _after_report(self, report: Any, *, ask_passwords: bool = True) -> None:
        self.syncFinished.emit(report)
        await self.refresh()
        if report.changed:
            await self._bridge.refresh_documents()
            self._bridge.libraryChanged.emit()
        if report.ocr_queued:
            self._bridge.ocr.start()
        locked = [f.path for f in report.failed if f.error_kind == "password_required"]
        if locked and ask_passwords:
            self.passwordNeeded.emit(locked)
