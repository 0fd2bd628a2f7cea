"""FolderSync: linked folders whose files the library follows.

A person links a folder once; every scan then brings the library in step with it:
new files are ingested, changed ones re-ingested, vanished ones removed, renamed or
moved ones keep their chunks and vectors (nothing is embedded again). State lives in
the library file (tables ``sync_folders`` and ``sync_files``), so it survives restarts.

Per file, cheapest check first: size and mtime equal to the last scan means
unchanged (a stat, nothing read); otherwise a hash of the bytes decides whether the
content changed (a touched file costs one read, no parsing, no embedding); a new or
changed file whose bytes equal a document already indexed (a rename, a move, a copy)
reuses that document's chunks and vectors. A file that fails is remembered with its
size, mtime and hash and is not retried until it changes.

Scans are resumable: each file's ingest is committed on its own and the ingest is
idempotent (an unchanged document short-circuits on its fingerprint), so a scan
killed half-way is finished by the next one. Listing runs in a helper thread ahead
of the ingestion, so the total is known early while the first files are already
being indexed. This module does not import Qt; see ``folder_watch`` for live watching.

In a team library (PostgreSQL) a linked folder is a path on one person's computer: the
rows record their login and computer, row-level security keeps them to that login, and
an app lists and scans only the folders linked on its own computer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agentmaker.rag.documents import Chunk, Document
from agentmaker.rag.folders.files import (
    is_under,
    normalize_folder,
)
from agentmaker.rag.folders.reports import (
    ROW_COLUMNS,
    FileFailure,
    FileRow,
    FolderLinkError,
    LinkedFolder,
    SyncProgress,
    SyncReport,
)
from agentmaker.rag.folders.scan import ScanRun, outermost
from agentmaker.rag.ingest.batch import CancelToken, FileOutcome
from agentmaker.rag.ingest.contextualizers import HeadingContextualizer
from agentmaker.rag.ingest.pipeline import IngestionPipeline, doc_id_for_path, supported_extensions
from agentmaker.retrieval.database import Database, dialect, own_rows, this_computer
from agentmaker.retrieval.sqlite.items import chunked

log = logging.getLogger(__name__)

_MIGRATIONS = [
    "CREATE TABLE sync_folders (\n"
    "  folder TEXT PRIMARY KEY,\n"
    "  ignore TEXT NOT NULL DEFAULT '[]',\n"
    "  added_at REAL NOT NULL,\n"
    "  last_scan_at REAL,\n"
    "  last_scan_seconds REAL\n);\n"
    "CREATE TABLE sync_files (\n"
    "  path TEXT PRIMARY KEY,\n"
    "  folder TEXT NOT NULL,\n"
    "  size INTEGER NOT NULL,\n"
    "  mtime_ns INTEGER NOT NULL,\n"
    "  content_hash TEXT NOT NULL DEFAULT '',\n"
    "  doc_id TEXT NOT NULL DEFAULT '',\n"
    "  status TEXT NOT NULL,\n"
    "  error TEXT,\n"
    "  error_kind TEXT,\n"
    "  updated_at REAL NOT NULL\n);\n"
    "CREATE INDEX sync_files_folder ON sync_files(folder);\n"
    "CREATE INDEX sync_files_doc ON sync_files(doc_id);\n"
    "CREATE INDEX sync_files_content ON sync_files(size, content_hash)",
]
# A team library's extra step: whose folder it is and on which computer it lives.
_PG_PEOPLE = (
    "ALTER TABLE sync_folders ADD COLUMN owner TEXT NOT NULL DEFAULT current_user;\n"
    "ALTER TABLE sync_folders ADD COLUMN machine TEXT NOT NULL DEFAULT '';\n"
    "ALTER TABLE sync_folders ENABLE ROW LEVEL SECURITY;\n"
    "CREATE POLICY sync_folders_mine ON sync_folders USING (owner = current_user);\n"
    "ALTER TABLE sync_files ADD COLUMN owner TEXT NOT NULL DEFAULT current_user;\n"
    "ALTER TABLE sync_files ENABLE ROW LEVEL SECURITY;\n"
    "CREATE POLICY sync_files_mine ON sync_files USING (owner = current_user)"
)


def _linked_elsewhere(path: str, computer: str | None) -> FolderLinkError:
    if computer is None:
        return FolderLinkError(
            f"{path} is already linked to this team library by someone else. Add its files "
            "instead of linking the folder."
        ).coded("folder_linked_by_someone", folder=path)
    return FolderLinkError(
        f"{path} is already linked to this team library on the computer {computer!r}. Link "
        "it there, or add its files instead of linking the folder."
    ).coded("folder_linked_elsewhere", folder=path, computer=computer)


def _not_linked(path: str) -> FolderLinkError:
    return FolderLinkError(f"{path} is not a linked folder.").coded(
        "folder_not_linked", folder=path
    )


class FolderSync:
    """Keeps a library in step with the folders linked to it.

    ``target`` is a :class:`~agentmaker.library.Library` or an
    :class:`IngestionPipeline` (then pass ``db`` when it differs from the source
    store's). Methods may be called from any thread; scans run one at a time.
    """

    def __init__(
        self, target: Any, db: Database | None = None, *, machine: str | None = None
    ) -> None:
        pipeline = getattr(target, "pipeline", target)
        if not isinstance(pipeline, IngestionPipeline):
            raise TypeError("FolderSync needs a Library or an IngestionPipeline.")
        self.pipeline = pipeline
        self.db: Database = db or getattr(target, "db", None) or pipeline.source_store.db
        self.db.migrate("folder_sync", _MIGRATIONS)
        #: This computer, in a team library (None in a library file: one computer's).
        self.machine = this_computer(self.db, machine)
        if dialect(self.db) == "postgresql":
            self.db.migrate("folder_sync_people", [_PG_PEOPLE])
        self._scan_lock = threading.Lock()
        self._active: CancelToken | None = None
        self._listeners: list[Callable[[], None]] = []
        self._passwords: dict[str, str] = {}

    # --- linked folders ---------------------------------------------------------

    def link(self, folder: str | os.PathLike[str], ignore: Sequence[str] = ()) -> LinkedFolder:
        """Follow ``folder`` (files are picked up by the next :meth:`scan`).

        Linking a folder again only updates its ignore patterns (when given). A folder
        that holds linked folders absorbs them; one inside a linked folder is refused.
        """
        path = normalize_folder(folder)
        if not os.path.isdir(path):
            raise FolderLinkError(f"{path} is not a folder (or cannot be reached).").coded(
                "not_a_folder", folder=path
            )
        linked = {f.path: f for f in self.folders()}
        if path in linked:
            if ignore:
                self.set_ignore(path, ignore)
            return self._folder(path)
        for other in linked:
            if is_under(path, other):
                raise FolderLinkError(f"{path} is already followed as part of {other}.").coded(
                    "folder_inside_linked", folder=path, parent=other
                )
        patterns = [p for p in ignore if p.strip()]
        self._refuse_elsewhere(path)
        try:
            with self.db.transaction():
                for other, info in linked.items():
                    if is_under(other, path):  # absorb a linked subfolder, keeping its rules
                        rel = os.path.relpath(other, path).replace(os.sep, "/")
                        patterns += [f"{rel}/{p.lstrip('/')}" for p in info.ignore]
                        self.db.execute(
                            "UPDATE sync_files SET folder = ? WHERE folder = ?", (path, other)
                        )
                        self.db.execute("DELETE FROM sync_folders WHERE folder = ?", (other,))
                self.db.execute(
                    "INSERT INTO sync_folders(folder, ignore, added_at) VALUES (?, ?, ?)",
                    (path, json.dumps(patterns), time.time()),
                )
                if self.machine is not None:
                    self.db.execute(
                        "UPDATE sync_folders SET machine = ? WHERE folder = ?", (self.machine, path)
                    )
        except Exception as exc:  # another person linked this path (hidden from us)
            if getattr(exc, "sqlstate", None) == "23505":
                raise _linked_elsewhere(path, None) from exc
            raise
        self._changed()
        return self._folder(path)

    def unlink(self, folder: str | os.PathLike[str], remove_documents: bool) -> int:
        """Stop following ``folder``; with ``remove_documents`` its documents leave the
        library too (else they stay as ordinary documents). Returns documents removed."""
        path = normalize_folder(folder)
        if self._active is not None:
            self._active.cancel()  # a running scan would otherwise finish adding them
        removed = 0
        with self._scan_lock, self.db.transaction():
            rows = self.db.query("SELECT doc_id FROM sync_files WHERE folder = ?", (path,))
            self.db.execute("DELETE FROM sync_files WHERE folder = ?", (path,))
            if remove_documents:
                for (doc_id,) in rows:
                    removed += self._delete_document(doc_id)
            self.db.execute("DELETE FROM sync_folders WHERE folder = ?", (path,))
        self._changed()
        return removed

    async def aunlink(self, folder: str | os.PathLike[str], remove_documents: bool) -> int:
        """Async twin of :meth:`unlink` (removing many documents takes a while)."""
        return await asyncio.to_thread(self.unlink, folder, remove_documents)

    def set_ignore(self, folder: str | os.PathLike[str], patterns: Sequence[str]) -> None:
        """Replace a folder's ignore patterns (the next scan drops newly ignored files)."""
        path = normalize_folder(folder)
        clean = [p.strip() for p in patterns if isinstance(p, str) and p.strip()]
        cursor = self.db.execute(
            "UPDATE sync_folders SET ignore = ? WHERE folder = ?", (json.dumps(clean), path)
        )
        if not cursor.rowcount:
            raise _not_linked(path)
        self._changed()

    def _refuse_elsewhere(self, path: str) -> None:
        """In a team library a folder path is linked once: refuse it when another
        computer (or another person) linked the same path."""
        if self.machine is None:
            return
        rows = self.db.query("SELECT machine FROM sync_folders WHERE folder = ?", (path,))
        if rows and rows[0][0] != self.machine:
            raise _linked_elsewhere(path, rows[0][0])

    def _mine(self, alias: str = "") -> tuple[str, tuple[str, ...]]:
        return own_rows(self.machine, alias)

    def _in_my_folders(self) -> tuple[str, tuple[str, ...]]:
        """``own_rows`` for ``sync_files``: the rows under this computer's folders."""
        if self.machine is None:
            return "1 = 1", ()
        mine, params = self._mine()
        return f"folder IN (SELECT folder FROM sync_folders WHERE {mine})", params

    def folders(self) -> list[LinkedFolder]:
        """The linked folders, with their file and failure counts."""
        mine, params = self._mine("f.")
        rows = self.db.query(
            "SELECT f.folder, f.ignore, f.added_at, f.last_scan_at, f.last_scan_seconds, "
            "count(s.path), count(CASE WHEN s.status = 'failed' THEN 1 END) FROM sync_folders f "
            f"LEFT JOIN sync_files s ON s.folder = f.folder WHERE {mine} "
            "GROUP BY f.folder ORDER BY f.folder",
            params,
        )
        return [
            LinkedFolder(r[0], tuple(json.loads(r[1])), r[2], r[3], r[4], int(r[5]), int(r[6]))
            for r in rows
        ]

    def _folder(self, path: str) -> LinkedFolder:
        return next(f for f in self.folders() if f.path == path)

    def folder_of(self, path: str | os.PathLike[str]) -> str | None:
        """The linked folder holding ``path``, if any."""
        absolute = normalize_folder(path)
        return next((f.path for f in self.folders() if is_under(absolute, f.path)), None)

    def failures(self, folder: str | os.PathLike[str] | None = None) -> list[FileFailure]:
        """Files that could not be indexed, with the reason (plain sentence) and kind."""
        sql = (
            "SELECT path, folder, coalesce(error, ''), coalesce(error_kind, 'other'), size, "
            "mtime_ns, updated_at FROM sync_files WHERE status = 'failed'"
        )
        mine, params = self._in_my_folders()
        sql += f" AND {mine}"
        if folder is not None:
            sql, params = sql + " AND folder = ?", (*params, normalize_folder(folder))
        return [FileFailure(*r) for r in self.db.query(sql + " ORDER BY path", params)]

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after link, unlink and set_ignore; returns an unsubscribe."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _changed(self) -> None:
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:
                log.exception("folder-sync listener failed")

    # --- scanning ---------------------------------------------------------------

    def scan(
        self,
        folder: str | os.PathLike[str] | None = None,
        *,
        paths: Iterable[str | os.PathLike[str]] | None = None,
        progress: Callable[[SyncProgress], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> SyncReport:
        """Bring the library in step with every linked folder (or ``folder``).

        With ``paths``, only those files or folders (created, changed, moved or
        deleted, e.g. from file-system events) are looked at. ``progress`` is called
        from the thread running the scan. Cancelling stops at the next file; what was
        done is kept, and the next scan finishes the rest.
        """
        cancel = cancel or CancelToken()
        with self._scan_lock:
            self._active = cancel
            try:
                run = ScanRun(self, progress, cancel)
                return run.execute(self._jobs(folder, paths))
            finally:
                self._active = None

    async def ascan(
        self,
        folder: str | os.PathLike[str] | None = None,
        *,
        paths: Iterable[str | os.PathLike[str]] | None = None,
        progress: Callable[[SyncProgress], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> SyncReport:
        """Async twin of :meth:`scan` (runs in a worker thread; cancelling the task
        cancels the scan)."""
        token = cancel or CancelToken()
        path_list = None if paths is None else list(paths)
        try:
            return await asyncio.to_thread(
                self.scan, folder, paths=path_list, progress=progress, cancel=token
            )
        except asyncio.CancelledError:
            token.cancel()
            raise

    def retry_failed(
        self,
        paths: Iterable[str | os.PathLike[str]] | None = None,
        *,
        passwords: dict[str, str] | None = None,
        progress: Callable[[SyncProgress], None] | None = None,
    ) -> SyncReport:
        """Try failed files again now (all, or ``paths``), e.g. with their passwords."""
        wanted = [normalize_folder(p) for p in paths] if paths is not None else None
        targets = [f.path for f in self.failures() if wanted is None or f.path in wanted]
        if not targets:
            return SyncReport()
        with self.db.transaction():
            for part in chunked(targets, 500):
                marks = ",".join("?" * len(part))
                self.db.execute(
                    f"UPDATE sync_files SET size = -1, content_hash = '' WHERE path IN ({marks})",
                    part,
                )
        self._passwords = {normalize_folder(k): v for k, v in (passwords or {}).items()}
        try:
            return self.scan(paths=targets, progress=progress)
        finally:
            self._passwords = {}

    def _jobs(
        self,
        folder: str | os.PathLike[str] | None,
        paths: Iterable[str | os.PathLike[str]] | None,
    ) -> list[tuple[LinkedFolder, list[str]]]:
        linked = self.folders()
        if folder is not None:
            wanted = normalize_folder(folder)
            linked = [f for f in linked if f.path == wanted]
            if not linked:
                raise _not_linked(wanted)
        if paths is None:
            return [(f, [f.path]) for f in linked]
        jobs: list[tuple[LinkedFolder, list[str]]] = []
        for info in linked:
            roots = sorted(
                {p for p in (normalize_folder(x) for x in paths) if is_under(p, info.path)}
            )
            if info.path in roots:
                roots = [info.path]
            if roots:
                jobs.append((info, outermost(roots)))
        return jobs

    # --- helpers shared with the scan run ----------------------------------------

    def extensions(self) -> set[str]:
        """File types a scan picks up (readers, plus OCR image types when set)."""
        ocr = self.pipeline.ocr
        return supported_extensions() | set(ocr.extensions if ocr else ())

    def rows_under(self, folder: str, roots: Sequence[str]) -> dict[str, FileRow]:
        """The per-file state of ``folder`` under ``roots``."""
        if roots == [folder]:
            rows = self.db.query(
                f"SELECT {ROW_COLUMNS} FROM sync_files WHERE folder = ?", (folder,)
            )
        else:
            rows = []
            for root in roots:
                prefix = root.rstrip(os.sep) + os.sep
                upper = prefix[:-1] + chr(ord(os.sep) + 1)
                rows += self.db.query(
                    f"SELECT {ROW_COLUMNS} FROM sync_files WHERE folder = ? "
                    "AND (path = ? OR (path >= ? AND path < ?))",
                    (folder, root, prefix, upper),
                )
        return {r[0]: FileRow(*r) for r in rows}

    def donors(self, size: int, content_hash: str, path: str) -> list[FileRow]:
        """Indexed files with these exact bytes (rename, move or copy sources)."""
        mine, params = self._in_my_folders()  # a file elsewhere is no rename source here
        rows = self.db.query(
            f"SELECT {ROW_COLUMNS} FROM sync_files WHERE size = ? AND content_hash = ? "
            f"AND status = 'indexed' AND path != ? AND {mine}",
            (size, content_hash, path, *params),
        )
        return [FileRow(*r) for r in rows]

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
        """Record a file's state after it was looked at."""
        self.db.execute(
            "INSERT INTO sync_files(path, folder, size, mtime_ns, content_hash, doc_id, status, "
            "error, error_kind, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO "
            "UPDATE SET folder=excluded.folder, size=excluded.size, mtime_ns=excluded.mtime_ns, "
            "content_hash=excluded.content_hash, doc_id=excluded.doc_id, "
            "status=excluded.status, error=excluded.error, error_kind=excluded.error_kind, "
            "updated_at=excluded.updated_at",
            (
                path,
                folder,
                size,
                mtime_ns,
                content_hash,
                doc_id_for_path(path),
                status,
                outcome.error if outcome else None,
                outcome.error_kind if outcome else None,
                time.time(),
            ),
        )

    def touch_state(self, path: str, size: int, mtime_ns: int) -> None:
        """A file whose bytes did not change: remember its new size and mtime only."""
        self.db.execute(
            "UPDATE sync_files SET size = ?, mtime_ns = ?, updated_at = ? WHERE path = ?",
            (size, mtime_ns, time.time(), path),
        )

    def remove_file(self, row: FileRow) -> None:
        """Drop a vanished file: its document and its state, in one transaction."""
        with self.db.transaction():
            self.db.execute("DELETE FROM sync_files WHERE path = ?", (row.path,))
            self._delete_document(row.doc_id)

    def _shared(self, doc_id: str) -> bool:
        # Another path with the same document id: a case-only rename on a
        # case-insensitive file system (doc ids fold case there).
        return bool(self.db.query("SELECT 1 FROM sync_files WHERE doc_id = ? LIMIT 1", (doc_id,)))

    def _delete_document(self, doc_id: str) -> int:
        """Remove a document unless another followed file still holds it."""
        if not doc_id or self._shared(doc_id):
            return 0
        ocr_remove = getattr(self.pipeline.ocr, "remove", None)
        if callable(ocr_remove):
            ocr_remove(doc_id)
        return int(self.pipeline.delete_document(doc_id))

    def password_for(self, path: str) -> str | None:
        """A password handed to :meth:`retry_failed` for this file."""
        return self._passwords.get(path)

    def relocate(
        self, donor: FileRow, path: str, state: tuple[str, int, int, str], *, move: bool
    ) -> Document | None:
        """Index the file at ``path`` (same bytes as ``donor``'s) from the donor's stored
        chunks and vectors, without embedding. With ``move`` the donor document goes.
        Returns the new document (None when the donor cannot be reused).
        """
        pipeline = self.pipeline
        stored = pipeline.stored_document(donor.doc_id)
        fingerprint = pipeline.source_store.fingerprint_of(donor.doc_id)
        if stored is None or not fingerprint:
            return None
        old, old_chunks = stored
        indexed = self._indexed_items([c.chunk_id for c in old_chunks])
        if indexed is None or len(indexed) != len(old_chunks) or not old_chunks:
            return None
        doc_id = doc_id_for_path(path)
        title = old.title
        if title == Path(donor.path).stem:  # the readers' fallback title: the file name
            title = Path(path).stem
        metadata = dict(old.metadata)
        try:
            info = os.stat(path)
            metadata.update(size_bytes=info.st_size, mtime=info.st_mtime)
        except OSError:
            return None
        doc = Document(old.content, doc_id, title, os.path.abspath(path), old.format, metadata)
        chunks = [
            Chunk(c.content, "", doc_id, c.heading_path, c.index, dict(c.metadata))
            for c in old_chunks
        ]
        contextualizer = pipeline.contextualizer
        texts: list[str] | None = None  # the heading contextualizer is cheap: new title
        if contextualizer is not None and not isinstance(contextualizer, HeadingContextualizer):
            texts = [indexed[c.chunk_id][0] for c in old_chunks]  # e.g. written by a model
        vectors = np.stack([indexed[c.chunk_id][1] for c in old_chunks])
        with self.db.transaction():
            pipeline.write_document(doc, chunks, vectors, fingerprint=fingerprint, texts=texts)
            self.put_state(path, state[0], state[1], state[2], state[3], "indexed")
            if move:
                self.db.execute("DELETE FROM sync_files WHERE path = ?", (donor.path,))
                self._delete_document(donor.doc_id)
        return doc

    def _indexed_items(self, chunk_ids: list[str]) -> dict[str, tuple[str, Any]] | None:
        """``{chunk_id: (indexed text, vector)}`` read from the index, or None."""
        stored_items = getattr(self.pipeline.retriever, "stored_items", None)
        if stored_items is None or getattr(self.pipeline.retriever, "db", None) is not self.db:
            return None
        return dict(stored_items(chunk_ids))

    def close(self) -> None:
        """Cancel a running scan (the library itself is closed by its owner)."""
        if self._active is not None:
            self._active.cancel()
