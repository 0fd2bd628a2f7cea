"""The file-system side of linked folders: which files are followed and listing them.

:class:`IgnoreRules` decides which files of a linked folder the library follows;
:class:`FileLister` walks folders in a helper thread so a scan can ingest the first
files while the rest is still being listed. Scans and the watcher both build on these.
"""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import os
import queue
import threading
from collections.abc import Iterable, Iterator, Sequence

from agentmaker.rag.ingest.batch import CancelToken, is_ignored

log = logging.getLogger(__name__)
_FILE_ATTRIBUTE_HIDDEN = 2
_QUEUE_SIZE = 20000
_DONE = None


def normalize_folder(folder: str | os.PathLike[str]) -> str:
    """The absolute form under which a folder is stored (links resolved, like documents)."""
    return os.path.realpath(os.path.expanduser(os.fspath(folder)))


def is_under(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or inside it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def file_hash(path: str) -> str:
    """blake2b-128 of a file's bytes (the content fingerprint used for renames)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, lambda: hashlib.blake2b(digest_size=16)).hexdigest()


class IgnoreRules:
    """Which files of a linked folder are followed.

    Passed over: hidden files and folders, temporary and lock files (``~$…``,
    ``.~lock…``, ``*.tmp``, ``*.part``, …), types the library cannot read, and the
    folder's own glob patterns, matched against the name and against the path relative
    to the folder (``*`` also crosses folders; a pattern ending in ``/`` names folders).
    """

    def __init__(self, folder: str, patterns: Sequence[str], extensions: Iterable[str]) -> None:
        self.folder = folder
        self.extensions = {e.lower() for e in extensions}
        self.patterns = [p.strip().replace("\\", "/") for p in patterns if p.strip()]

    def _matches(self, name: str, rel: str, is_dir: bool) -> bool:
        for pattern in self.patterns:
            if pattern.endswith("/"):
                if not is_dir:
                    continue
                pattern = pattern.rstrip("/")
            if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(rel, pattern):
                return True
        return False

    @staticmethod
    def _hidden(name: str, st: os.stat_result | None) -> bool:
        attributes = getattr(st, "st_file_attributes", 0) if st is not None else 0
        return is_ignored(name) or bool(attributes & _FILE_ATTRIBUTE_HIDDEN)

    def skip_dir(self, rel: str, name: str, st: os.stat_result | None = None) -> bool:
        """True for a folder whose files are not followed."""
        return self._hidden(name, st) or self._matches(name, rel, True)

    def skip_file(self, rel: str, name: str, st: os.stat_result | None = None) -> bool:
        """True for a file that is not followed."""
        if os.path.splitext(name)[1].lower() not in self.extensions:
            return True
        return self._hidden(name, st) or self._matches(name, rel, False)

    def includes(self, path: str, *, is_dir: bool = False) -> bool:
        """True when ``path`` (inside the folder) is followed, judging every component."""
        rel = os.path.relpath(path, self.folder).replace(os.sep, "/")
        if rel == ".":
            return True
        parts = rel.split("/")
        for depth, name in enumerate(parts[:-1] if not is_dir else parts, start=1):
            if self.skip_dir("/".join(parts[:depth]), name):
                return False
        return is_dir or not self.skip_file(rel, parts[-1])


class FileLister:
    """Walks roots in a helper thread, queueing ``(path, size, mtime_ns)`` per file."""

    def __init__(self, rules: IgnoreRules, roots: list[str], cancel: CancelToken) -> None:
        self.rules = rules
        self.roots = roots
        self.cancel = cancel
        self.queue: queue.Queue[tuple[str, int, int] | None] = queue.Queue(_QUEUE_SIZE)
        self.listed = 0
        self.done = False
        self.errors: list[str] = []
        self.failure: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="folder-sync-list", daemon=True)

    def __enter__(self) -> FileLister:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def __iter__(self) -> Iterator[tuple[str, int, int]]:
        while (item := self.queue.get()) is not _DONE:
            yield item
        if self.failure is not None:
            raise self.failure

    def _put(self, item: tuple[str, int, int] | None) -> None:
        while not self._stop.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _run(self) -> None:
        try:
            seen: set[tuple[int, int]] = set()
            for root in self.roots:
                if os.path.isdir(root):
                    if root == self.rules.folder or self.rules.includes(root, is_dir=True):
                        self._walk(root, seen)
                elif self.rules.includes(root):
                    try:
                        st = os.stat(root)
                    except OSError:
                        continue
                    self.listed += 1
                    self._put((root, st.st_size, st.st_mtime_ns))
        except BaseException as exc:  # handed to the consumer thread
            self.failure = exc
        finally:
            self.done = True
            self._put(_DONE)

    def _walk(self, top: str, seen: set[tuple[int, int]]) -> None:
        stack = [top]
        while stack:
            if self.cancel.cancelled or self._stop.is_set():
                return
            folder = stack.pop()
            try:
                st = os.stat(folder)
                if (st.st_dev, st.st_ino) in seen:
                    continue
                seen.add((st.st_dev, st.st_ino))
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as exc:
                log.info("cannot list %s: %s", folder, exc)
                self.errors.append(folder)
                continue
            subdirs = []
            for entry in entries:
                try:
                    rel = os.path.relpath(entry.path, self.rules.folder).replace(os.sep, "/")
                    if entry.is_dir():
                        if not self.rules.skip_dir(rel, entry.name, entry.stat()):
                            subdirs.append(entry.path)
                    elif entry.is_file():
                        info = entry.stat()
                        if not self.rules.skip_file(rel, entry.name, info):
                            self.listed += 1
                            self._put((entry.path, info.st_size, info.st_mtime_ns))
                except OSError:
                    continue  # vanished while listing
            stack.extend(reversed(subdirs))
