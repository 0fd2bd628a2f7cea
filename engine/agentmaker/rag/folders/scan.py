"""One scan of linked folders: list, compare with the saved state, ingest, report."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from agentmaker.rag.documents import Document
from agentmaker.rag.folders.files import FileLister, IgnoreRules, file_hash, is_under
from agentmaker.rag.folders.reports import (
    Action,
    FileFailure,
    FileRow,
    LinkedFolder,
    SyncProgress,
    SyncReport,
)
from agentmaker.rag.ingest.batch import CancelToken, FileOutcome
from agentmaker.rag.ingest.pipeline import IngestionPipeline, doc_id_for_path
from agentmaker.retrieval.database import Database

log = logging.getLogger(__name__)


class FolderState(Protocol):
    """What a scan needs of :class:`~agentmaker.rag.folders.sync.FolderSync`: its pipeline
    and the saved per-file state (a protocol, so the two modules do not import each other)."""

    pipeline: IngestionPipeline
    db: Database

    def extensions(self) -> set[str]:
        """File types a scan picks up."""

    def rows_under(self, folder: str, roots: Sequence[str]) -> dict[str, FileRow]:
        """Saved rows of the files under ``roots`` of ``folder``."""

    def donors(self, size: int, content_hash: str, path: str) -> list[FileRow]:
        """Indexed files with this content elsewhere (a copy or a move)."""

    def put_state(
        self,
        path: str,
        folder: str,
        size: int,
        mtime_ns: int,
        content_hash: str,
        status: str,
        outcome: FileOutcome | None = None,
    ) -> None:
        """Save a file's state after it was read (or failed)."""

    def touch_state(self, path: str, size: int, mtime_ns: int) -> None:
        """Save a new size/mtime for a file whose content did not change."""

    def remove_file(self, row: FileRow) -> None:
        """Forget a file that is gone, with its document."""

    def password_for(self, path: str) -> str | None:
        """The password a person gave for this file, if any."""

    def relocate(
        self, donor: FileRow, path: str, state: tuple[str, int, int, str], *, move: bool
    ) -> Document | None:
        """Index ``path`` from a donor's stored chunks and vectors, without embedding."""


class ScanRun:
    """One call of :meth:`FolderSync.scan`: its report, counters and progress."""

    def __init__(
        self,
        sync: FolderState,
        progress: Callable[[SyncProgress], None] | None,
        cancel: CancelToken,
    ) -> None:
        self.sync = sync
        self.pipeline = sync.pipeline
        self.progress = progress
        self.cancel = cancel
        self.report = SyncReport()
        store_db = self.pipeline.source_store.db
        self.doc_ids = {r[0] for r in store_db.read("SELECT doc_id FROM documents")}
        self.consumed: set[str] = set()  # donors moved away during this scan
        self.extensions = sync.extensions()
        self.lister: FileLister | None = None
        self.folder = ""
        self.done = 0
        self.last_emit = 0.0

    def execute(self, jobs: list[tuple[LinkedFolder, list[str]]]) -> SyncReport:
        started = time.monotonic()
        vanished: list[FileRow] = []
        for info, roots in jobs:
            if self.cancel.cancelled:
                self.report.cancelled = True
                break
            vanished += self._folder(info, roots)
        # Removals last, so a file moved from one linked folder to another is a move.
        for row in vanished:
            if row.path in self.consumed:
                continue
            self.sync.remove_file(row)
            self.doc_ids.discard(row.doc_id)
            self.report.removed.append(row.path)
            self._emit(row.path, "removed", force=True)
        self.report.seconds = time.monotonic() - started
        self._emit("", "done", force=True)
        return self.report

    def _folder(self, info: LinkedFolder, roots: list[str]) -> list[FileRow]:
        """Bring the listed files in step; returns the known files that vanished."""
        folder = self.folder = info.path
        report = self.report
        if not os.path.isdir(folder):
            report.missing_folders.append(folder)  # offline drive: keep its documents
            return []
        started = time.monotonic()
        known = self.sync.rows_under(folder, roots)
        seen: set[str] = set()
        rules = IgnoreRules(folder, info.ignore, self.extensions)
        with FileLister(rules, roots, self.cancel) as lister:
            self.lister = lister
            for path, size, mtime_ns in lister:
                if self.cancel.cancelled or not self._file(known.get(path), path, size, mtime_ns):
                    report.cancelled = True
                    break
                seen.add(path)
        report.files_seen += lister.listed
        report.unreadable_dirs += lister.errors
        if report.cancelled:
            return []  # the listing is incomplete: absence proves nothing
        if roots == [folder]:
            self.sync.db.execute(
                "UPDATE sync_folders SET last_scan_at = ?, last_scan_seconds = ? WHERE folder = ?",
                (time.time(), time.monotonic() - started, folder),
            )
        return [
            row
            for path, row in known.items()
            if path not in seen and not any(is_under(path, d) for d in lister.errors)
        ]

    def _file(self, row: FileRow | None, path: str, size: int, mtime_ns: int) -> bool:
        """Bring one listed file in step; False when cancelled."""
        report = self.report
        if row is not None and row.stat_trusted(size, mtime_ns):
            if row.status == "failed":
                report.still_failing += 1
                return self._tick(path, "unchanged")
            if row.status != "indexed" or row.doc_id in self.doc_ids:
                report.unchanged += 1
                return self._tick(path, "unchanged")
        try:
            digest = file_hash(path)
        except OSError:
            digest = ""  # the ingest below will say why it cannot be read
        same_bytes = row is not None and bool(digest) and digest == row.content_hash
        if (
            row is not None
            and same_bytes
            and (row.status != "indexed" or row.doc_id in self.doc_ids)
        ):
            self.sync.touch_state(path, size, mtime_ns)  # touched, not changed
            if row.status == "failed":
                report.still_failing += 1
            else:
                report.unchanged += 1
            return self._tick(path, "unchanged")
        if digest and self._reuse(path, size, mtime_ns, digest):
            return True
        return self._ingest(row, path, size, mtime_ns, digest)

    def _reuse(self, path: str, size: int, mtime_ns: int, digest: str) -> bool:
        """Index ``path`` from a document with the same bytes (renamed, moved, copied)."""
        donors = [
            d
            for d in self.sync.donors(size, digest, path)
            if d.path not in self.consumed and d.doc_id in self.doc_ids
        ]
        gone = {d.path for d in donors if not os.path.lexists(d.path) and os.path.isdir(d.folder)}
        for donor in sorted(donors, key=lambda d: d.path not in gone):
            move = donor.path in gone
            state = (self.folder, size, mtime_ns, digest)
            try:
                doc = self.sync.relocate(donor, path, state, move=move)
            except Exception:
                log.exception("could not reuse %s for %s", donor.path, path)
                continue
            if doc is None:
                continue
            self.doc_ids.add(doc.doc_id)
            if move:
                self.consumed.add(donor.path)
                self.doc_ids.discard(donor.doc_id)
                self.report.renamed.append((donor.path, path))
                self._tick(path, "renamed")
            else:
                self.report.copied.append((donor.path, path))
                self._tick(path, "copied")
            return True
        return False

    def _ingest(
        self, row: FileRow | None, path: str, size: int, mtime_ns: int, digest: str
    ) -> bool:
        doc_id = doc_id_for_path(path)
        existed = doc_id in self.doc_ids
        outcome = self.pipeline.ingest_path(
            path, password=self.sync.password_for(path), cancel=self.cancel
        )
        if outcome.status == "cancelled":
            return False
        report = self.report
        status = {"failed": "failed", "ocr_queued": "ocr"}.get(outcome.status, "indexed")
        self.sync.put_state(path, self.folder, size, mtime_ns, digest, status, outcome)
        if outcome.status == "failed":
            failure = FileFailure(
                path,
                self.folder,
                outcome.error or "",
                outcome.error_kind or "other",
                size,
                mtime_ns,
                time.time(),
            )
            report.failed.append(failure)
            return self._tick(path, "failed", outcome)
        if outcome.status == "ocr_queued":
            report.ocr_queued.append(path)
            return self._tick(path, "ocr_queued")
        self.doc_ids.add(doc_id)
        if outcome.status == "unchanged":
            report.unchanged += 1
            return self._tick(path, "unchanged")
        (report.updated if existed else report.added).append(path)
        return self._tick(path, "updated" if existed else "added", force=True)

    def _tick(
        self, path: str, action: Action, outcome: FileOutcome | None = None, force: bool = False
    ) -> bool:
        self.done += 1
        self._emit(path, action, outcome, force=force or action != "unchanged")
        return True

    def _emit(
        self, path: str, action: Action, outcome: FileOutcome | None = None, force: bool = False
    ) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if not force and now - self.last_emit < 0.1:
            return
        self.last_emit = now
        lister = self.lister
        report = self.report
        self.progress(
            SyncProgress(
                self.folder,
                path,
                action,
                self.done,
                max(lister.listed if lister else 0, self.done),
                lister.done if lister else True,
                added=len(report.added) + len(report.copied),
                updated=len(report.updated),
                removed=len(report.removed),
                failed=len(report.failed),
                error=outcome.error if outcome else None,
                error_kind=outcome.error_kind if outcome else None,
            )
        )


def outermost(roots: list[str]) -> list[str]:
    """Drop the roots that lie inside another root (their files would be seen twice)."""
    given = set(roots)
    out = []
    for root in roots:
        child, parent = root, os.path.dirname(root)
        while parent != child and parent not in given:
            child, parent = parent, os.path.dirname(parent)
        if parent == child:  # reached the top without meeting another root
            out.append(root)
    return out
