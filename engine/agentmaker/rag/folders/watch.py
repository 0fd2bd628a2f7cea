"""Following linked folders live.

:class:`FolderWatcher` follows linked
folders live with ``watchdog`` (debounced events scan only the paths they name) and
rescans everything periodically as a safety net. No Qt here: the app drives the
watcher from its asyncio (qasync) loop through :meth:`FolderWatcher.arun`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from agentmaker.background import LoopPoster, drop, finish_in_thread
from agentmaker.rag.folders.files import IgnoreRules, is_under, normalize_folder
from agentmaker.rag.folders.reports import SyncProgress, SyncReport
from agentmaker.rag.ingest.batch import CancelToken

if TYPE_CHECKING:
    from agentmaker.rag.folders.sync import FolderSync

log = logging.getLogger(__name__)
# Event types that may mean a file's content or place changed (not opened/closed-unwritten).
_CHANGE_EVENTS = frozenset({"created", "modified", "moved", "deleted", "closed", "attrib"})


class _Handler:
    """A watchdog event handler that hands changed paths to the watcher."""

    def __init__(self, watcher: FolderWatcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        kind = event.event_type
        if kind not in _CHANGE_EVENTS or (event.is_directory and kind in {"modified", "attrib"}):
            return
        src = os.fsdecode(event.src_path)
        if kind == "moved":
            self.watcher.notify([os.fsdecode(event.dest_path)], vanished=[src])
        elif kind == "deleted":
            self.watcher.notify([], vanished=[src])
        else:
            self.watcher.notify([src])


class FolderWatcher:
    """Follows a :class:`FolderSync`'s linked folders while the app runs.

    File-system events are debounced (``debounce`` seconds of quiet, at most
    ``max_delay`` after the first event) and scan only the paths they name; a full
    rescan runs on start (``initial_scan``), after a folder is linked or its ignore
    list changes, and every ``rescan_interval`` seconds (``fallback_interval`` while a
    folder could not be watched live, e.g. a network drive or a full inotify table).
    Scans run in this watcher's own thread, never in the caller's. ``progress``,
    ``on_report`` and ``on_error`` are called from that thread, or on the event loop
    when the watcher runs through :meth:`arun`.
    """

    def __init__(
        self,
        sync: FolderSync,
        *,
        debounce: float = 1.5,
        max_delay: float = 10.0,
        rescan_interval: float | None = 600.0,
        fallback_interval: float = 60.0,
        initial_scan: bool = True,
        live: bool = True,
        progress: Callable[[SyncProgress], None] | None = None,
        on_report: Callable[[SyncReport], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.sync = sync
        self.debounce = debounce
        self.max_delay = max_delay
        self.rescan_interval = rescan_interval
        self.fallback_interval = fallback_interval
        self.initial_scan = initial_scan
        self.use_events = live
        self.max_paths = 2000  # more changed paths than this: rescan their folders
        self.progress = progress
        self.on_report = on_report
        self.on_error = on_error
        self.last_report: SyncReport | None = None
        self.last_error: BaseException | None = None
        #: Folders without live events (path -> reason); the periodic rescan covers them.
        self.unwatched: dict[str, str] = {}
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer: Any = None
        self._watches: dict[str, Any] = {}
        self._rules: dict[str, IgnoreRules] = {}
        self._ignore: dict[str, tuple[str, ...]] = {}
        self._added: dict[str, float] = {}
        self._pending: set[str] = set()
        self._vanished: set[str] = set()
        self._first_event = self._last_event = 0.0
        self._full: set[str | None] = set()  # None: every folder
        self._next_rescan = 0.0
        self._scanning = False
        self._refresh = False
        self._token: CancelToken | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._deliver: Callable[..., Any] = _direct
        self._stop_lock = threading.Lock()  # one stop at a time; a second waits for it

    # --- lifetime ---------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def scanning(self) -> bool:
        """True while a scan runs."""
        return self._scanning

    def start(self) -> None:
        """Start watching (and, with ``initial_scan``, scan every linked folder)."""
        if self.running:
            return
        self._stopping.clear()
        self._unsubscribe = self.sync.on_change(self._folders_changed)
        with self._cond:
            self._refresh = True  # the worker sets up the watches (a big tree takes time)
            if self.initial_scan:
                self._full.add(None)
            self._next_rescan = time.monotonic() + self._interval()
        self._thread = threading.Thread(target=self._run, name="folder-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop watching; a running scan is cancelled (the next start finishes it).

        Idempotent and safe from any thread. Waits up to ``timeout`` for the worker; a
        worker still busy then (a scan stuck in one large file) is left to end on its
        own, with its callbacks muted: it never calls ``progress``/``on_report`` again.
        """
        with self._stop_lock:
            self._stopping.set()
            with self._cond:
                if self._token is not None:
                    self._token.cancel()
                self._cond.notify_all()
            thread = self._thread
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout)
                if thread.is_alive():
                    log.warning("the folder watcher did not stop within %.0f s", timeout)
                    self._deliver = drop
                else:
                    self._thread = None
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
            if self._observer is not None:
                with contextlib.suppress(Exception):
                    self._observer.stop()
                    self._observer.join(timeout)
                self._observer = None
                self._watches.clear()

    async def arun(self, stop_timeout: float = 30.0) -> None:
        """Watch until the task is cancelled; callbacks are delivered on this loop.

        When this task ends, however often it was cancelled, the watcher has stopped
        (or, after ``stop_timeout``, been muted) and nothing is posted to the loop again.
        """
        post = LoopPoster(asyncio.get_running_loop())
        self._deliver = post
        self.start()
        try:
            await asyncio.Event().wait()
        finally:
            post.close()  # from here on, nothing reaches the loop
            self._deliver = drop
            try:
                await finish_in_thread(lambda: self.stop(stop_timeout), name="folder-watch-stop")
            finally:
                if not self.running:
                    self._deliver = _direct

    # --- requests ---------------------------------------------------------------

    def request_scan(self, folder: str | os.PathLike[str] | None = None) -> None:
        """Scan ``folder`` (None: every linked folder) as soon as the watcher is free."""
        with self._cond:
            self._full.add(normalize_folder(folder) if folder is not None else None)
            self._cond.notify_all()

    def notify(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        vanished: Iterable[str | os.PathLike[str]] = (),
    ) -> None:
        """Paths that changed (``vanished``: deleted or moved away); scanned after the
        debounce. Called by the file-system events; callable by hand too."""
        wanted = [p for p in (normalize_folder(p) for p in paths) if self._followed(p)]
        gone = [p for p in (normalize_folder(p) for p in vanished) if self._inside(p)]
        if not wanted and not gone:
            return
        with self._cond:
            now = time.monotonic()
            if not self._pending and not self._vanished:
                self._first_event = now
            self._last_event = now
            self._pending.update(wanted)
            self._vanished.update(gone)
            self._cond.notify_all()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until nothing is pending or scanning; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._pending or self._vanished or self._full or self._scanning or self._refresh:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
        return True

    def _inside(self, path: str) -> bool:
        return any(is_under(path, folder) for folder in self._rules)

    def _followed(self, path: str) -> bool:
        for folder, rules in self._rules.items():
            if is_under(path, folder):
                return rules.includes(path, is_dir=os.path.isdir(path))
        return False

    # --- folders and the observer ----------------------------------------------

    def _start_observer(self) -> None:
        try:
            from watchdog.observers import Observer

            self._observer = Observer()
            self._observer.start()
        except Exception as exc:  # no inotify, no permissions: periodic rescans only
            log.warning("live folder watching is unavailable: %s", exc)
            self._observer = None

    def _interval(self) -> float:
        interval = self.rescan_interval if self.rescan_interval is not None else float("inf")
        return min(interval, self.fallback_interval) if self.unwatched else interval

    def _reconcile(self) -> list[str]:
        """Watch the linked folders (and stop watching unlinked ones); returns the
        folders that are new or whose ignore list changed."""
        linked = self.sync.folders()
        folders = {f.path: f.ignore for f in linked}
        # A folder unlinked and linked again before this thread looked has the same
        # ignore list but a new link time: it is new, and must be scanned.
        added = {f.path: f.added_at for f in linked}
        extensions = self.sync.extensions()
        changed = [
            p
            for p, ignore in folders.items()
            if self._ignore.get(p) != ignore or self._added.get(p) != added[p]
        ]
        self._added = added
        self._rules = {p: IgnoreRules(p, ignore, extensions) for p, ignore in folders.items()}
        self._ignore = dict(folders)
        self.unwatched = {p: r for p, r in self.unwatched.items() if p in folders}
        if self._observer is None:
            if self.use_events:
                self.unwatched.update({p: "live watching is unavailable" for p in folders})
            return changed
        for path in [p for p in self._watches if p not in folders]:
            with contextlib.suppress(Exception):
                self._observer.unschedule(self._watches.pop(path))
        for path in folders:
            if path in self._watches:
                continue
            try:
                self._watches[path] = self._observer.schedule(_Handler(self), path, recursive=True)
                self.unwatched.pop(path, None)
            except Exception as exc:  # missing folder, inotify limit reached
                log.warning("cannot watch %s live: %s", path, exc)
                self.unwatched[path] = str(exc)
        return changed

    def _folders_changed(self) -> None:
        """A folder was linked, unlinked or given new ignore rules (any thread)."""
        with self._cond:
            self._refresh = True
            self._cond.notify_all()

    def _refresh_folders(self, first: bool) -> None:
        changed = self._reconcile()
        with self._cond:
            if not first:  # the initial scan, when asked for, covers every folder
                self._full.update(changed)
            if self.unwatched:
                self._next_rescan = min(self._next_rescan, time.monotonic() + self._interval())

    # --- the worker ---------------------------------------------------------------

    def _next_job(self) -> tuple[str, Any] | float:
        """The next scan to run, or how long to wait for one."""
        now = time.monotonic()
        if self._full:
            folders, self._full = self._full, set()
            everything = None in folders
            if everything:
                self._next_rescan = now + self._interval()
            self._pending = {p for p in self._pending if not self._covered(p, folders)}
            self._vanished = {p for p in self._vanished if not self._covered(p, folders)}
            return ("full", None if everything else sorted(f for f in folders if f))
        if now >= self._next_rescan:
            self._full.add(None)
            return 0.0
        if self._pending or self._vanished:
            due = min(self._last_event + self.debounce, self._first_event + self.max_delay)
            if now >= due:
                paths = sorted(self._pending) + sorted(self._vanished - self._pending)
                self._pending, self._vanished = set(), set()
                if len(paths) > self.max_paths:  # a storm (a checkout, a big copy)
                    self._full.update(f for f in self._rules if any(is_under(p, f) for p in paths))
                    return 0.0
                return ("paths", paths)
            return min(due, self._next_rescan) - now
        return self._next_rescan - now

    @staticmethod
    def _covered(path: str, folders: set[str | None]) -> bool:
        return None in folders or any(f is not None and is_under(path, f) for f in folders)

    def _run(self) -> None:
        if self.use_events:
            self._start_observer()
        first = True
        while not self._stopping.is_set():
            if self._refresh:
                self._refresh = False
                self._refresh_folders(first)
                first = False
            with self._cond:
                if self._refresh:
                    continue
                job = self._next_job()
                if isinstance(job, float):
                    self._cond.wait(max(0.01, min(job, 3600.0)))
                    continue
                self._scanning = True
                self._token = token = CancelToken()
            try:
                self._scan(job, token)
            finally:
                with self._cond:
                    self._scanning = False
                    self._token = None
                    self._cond.notify_all()

    def _scan(self, job: tuple[str, Any], token: CancelToken) -> None:
        kind, what = job
        progress = self._progress if self.progress is not None else None
        try:
            if kind == "paths":
                report = self.sync.scan(paths=what, progress=progress, cancel=token)
            else:
                if what is None and self.unwatched:
                    self._refresh = True  # a folder back online can be watched again
                report = self._scan_folders(what, progress, token)
        except Exception as exc:
            log.exception("folder scan failed")
            self.last_error = exc
            if self.on_error is not None:
                self._deliver(self.on_error, exc)
            return
        self.last_report = report
        if report.cancelled and not self._stopping.is_set():
            with self._cond:  # e.g. a folder was unlinked mid-scan: do the rest again
                if kind == "paths":
                    self._pending.update(what)
                    self._last_event = self._first_event = time.monotonic()
                else:
                    self._full.update(what or [None])
        if self.on_report is not None:
            self._deliver(self.on_report, report)

    def _scan_folders(
        self, folders: Sequence[str] | None, progress: Any, token: CancelToken
    ) -> SyncReport:
        if folders is None:
            return self.sync.scan(progress=progress, cancel=token)
        linked = {f.path for f in self.sync.folders()}
        total = SyncReport()
        for folder in folders:
            if folder not in linked:
                continue
            report = self.sync.scan(folder, progress=progress, cancel=token)
            total = _merge(total, report)
        return total

    def _progress(self, update: SyncProgress) -> None:
        if self.progress is not None:
            self._deliver(self.progress, update)


def _direct(fn: Callable[..., Any], *args: Any) -> None:
    fn(*args)


def _merge(total: SyncReport, report: SyncReport) -> SyncReport:
    for name in ("added", "updated", "removed", "renamed", "copied", "failed", "ocr_queued"):
        getattr(total, name).extend(getattr(report, name))
    for name in ("missing_folders", "unreadable_dirs"):
        getattr(total, name).extend(getattr(report, name))
    total.unchanged += report.unchanged
    total.still_failing += report.still_failing
    total.files_seen += report.files_seen
    total.seconds += report.seconds
    total.cancelled = total.cancelled or report.cancelled
    return total
