"""OcrQueue: the OCR jobs of a library and each page's result, kept in the library file.

The ingestion pipeline hands scanned files (or pages) to :meth:`OcrQueue.schedule`;
an :class:`~agentmaker.ocr.worker.OcrWorker` reads them later. Every page's result is
stored as soon as it is read, so a cancelled or crashed job resumes where it stopped.

A job belongs to one document (``doc_id``). Scheduling it again marks it pending again
(the worker then rebuilds the document from the stored pages, which costs no OCR);
stored pages are thrown away only when the file itself changed (size or mtime).

In a team library (PostgreSQL) the files named by the jobs are on the computers of the
people who added them, so a job also records its login and computer, and each app reads
only its own: row-level security keeps a login's jobs and pages to itself, and the
computer's name keeps one login's two laptops from taking each other's files.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentmaker.ocr.render import IMAGE_EXTENSIONS
from agentmaker.retrieval.database import dialect, own_rows, this_computer

JobStatus = Literal["pending", "done", "unreadable", "failed"]
PageStatus = Literal["ok", "unreadable", "failed"]

_MIGRATIONS: list[str] = [
    # 1: jobs and per-page results
    """
    CREATE TABLE ocr_jobs (
        doc_id TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        pages TEXT,
        status TEXT NOT NULL DEFAULT 'pending',
        reason TEXT,
        file_size INTEGER,
        file_mtime_ns INTEGER,
        generation INTEGER NOT NULL DEFAULT 1,
        pages_total INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX ocr_jobs_status ON ocr_jobs(status, created_at);
    CREATE TABLE ocr_pages (
        doc_id TEXT NOT NULL REFERENCES ocr_jobs(doc_id) ON DELETE CASCADE,
        page INTEGER NOT NULL,
        status TEXT NOT NULL,
        text TEXT NOT NULL DEFAULT '',
        confidence REAL NOT NULL DEFAULT 0,
        lines INTEGER NOT NULL DEFAULT 0,
        dropped INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        seconds REAL,
        engine TEXT,
        dpi INTEGER,
        PRIMARY KEY (doc_id, page)
    )
    """,
]

# A team library's extra step: whose job it is and on which computer its file lives.
_PG_PEOPLE = (
    "ALTER TABLE ocr_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT current_user;\n"
    "ALTER TABLE ocr_jobs ADD COLUMN machine TEXT NOT NULL DEFAULT '';\n"
    "CREATE INDEX ocr_jobs_owner ON ocr_jobs(owner, machine, status);\n"
    "ALTER TABLE ocr_jobs ENABLE ROW LEVEL SECURITY;\n"
    "CREATE POLICY ocr_jobs_mine ON ocr_jobs USING (owner = current_user);\n"
    "ALTER TABLE ocr_pages ADD COLUMN owner TEXT NOT NULL DEFAULT current_user;\n"
    "ALTER TABLE ocr_pages ENABLE ROW LEVEL SECURITY;\n"
    "CREATE POLICY ocr_pages_mine ON ocr_pages USING (owner = current_user)"
)

_JOB_COLUMNS = (
    "doc_id, path, pages, status, reason, file_size, file_mtime_ns, generation, pages_total"
)


@dataclass
class OcrJob:
    """One document waiting for (or done with) OCR.

    ``pages`` lists the 1-based pages to read (None: every page, i.e. a fully scanned
    PDF or an image). ``generation`` grows with every :meth:`OcrQueue.schedule`, so a
    worker finishing an older request does not mark a newer one done.
    """

    doc_id: str
    path: str
    pages: list[int] | None
    status: JobStatus
    reason: str | None
    file_size: int | None
    file_mtime_ns: int | None
    generation: int
    pages_total: int | None

    @classmethod
    def _from_row(cls, row: Any) -> OcrJob:
        return cls(
            doc_id=row[0],
            path=row[1],
            pages=json.loads(row[2]) if row[2] is not None else None,
            status=row[3],
            reason=row[4],
            file_size=row[5],
            file_mtime_ns=row[6],
            generation=row[7],
            pages_total=row[8],
        )


@dataclass
class OcrPageResult:
    """The stored outcome of reading one page."""

    page: int
    status: PageStatus
    text: str = ""
    confidence: float = 0.0
    lines: int = 0
    dropped: int = 0
    reason: str | None = None


def file_signature(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(size, mtime in ns) of a file, or None when it cannot be seen."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


class OcrQueue:
    """OCR jobs persisted in the library file; implements the pipeline's OcrScheduler.

    ``enabled`` is the app's "read scanned documents" setting. Turned off, folder scans
    no longer pick up image files (``extensions`` is empty) and the worker reads
    nothing, but scanned PDFs met meanwhile are still remembered, so turning OCR on
    later reads them.
    """

    def __init__(self, db: Any, *, enabled: bool = True, machine: str | None = None) -> None:
        self.db = db
        db.migrate("ocr", _MIGRATIONS)
        #: This computer, in a team library (None in a library file: one computer's).
        self.machine = this_computer(db, machine)
        if dialect(db) == "postgresql":
            db.migrate("ocr_people", [_PG_PEOPLE])
        self.extensions: frozenset[str] = frozenset()
        self._enabled = False
        self.enabled = enabled

    @property
    def enabled(self) -> bool:
        """Whether OCR runs (the app's setting)."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._enabled = bool(value)
        self.extensions = IMAGE_EXTENSIONS if self._enabled else frozenset()

    # --- the OcrScheduler protocol -------------------------------------------

    def schedule(self, path: Path, doc_id: str, pages: list[int] | None) -> None:
        """Queue ``pages`` (1-based; None: every page) of ``path`` for OCR."""
        absolute = os.path.abspath(os.fspath(path))
        signature = file_signature(absolute)
        size, mtime = signature if signature is not None else (None, None)
        pages_json = json.dumps(sorted(set(pages))) if pages is not None else None
        now = time.time()
        with self.db.transaction():
            rows = self.db.query(
                "SELECT file_size, file_mtime_ns FROM ocr_jobs WHERE doc_id = ?", (doc_id,)
            )
            if not rows:
                self.db.execute(
                    "INSERT INTO ocr_jobs(doc_id, path, pages, status, file_size, file_mtime_ns,"
                    " created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)",
                    (doc_id, absolute, pages_json, size, mtime, now, now),
                )
                self._claim(doc_id)
                return
            if (rows[0][0], rows[0][1]) != (size, mtime):
                self.db.execute("DELETE FROM ocr_pages WHERE doc_id = ?", (doc_id,))
            self.db.execute(
                "UPDATE ocr_jobs SET path = ?, pages = ?, status = 'pending', reason = NULL,"
                " file_size = ?, file_mtime_ns = ?, generation = generation + 1,"
                " pages_total = NULL, updated_at = ? WHERE doc_id = ?",
                (absolute, pages_json, size, mtime, now, doc_id),
            )
            self._claim(doc_id)

    def _claim(self, doc_id: str) -> None:
        # The computer that scheduled the job last has the file: it reads it.
        if self.machine is not None:
            self.db.execute(
                "UPDATE ocr_jobs SET machine = ? WHERE doc_id = ?", (self.machine, doc_id)
            )

    def _mine(self) -> tuple[str, tuple[Any, ...]]:
        return own_rows(self.machine)

    # --- reading the queue ---------------------------------------------------

    def job(self, doc_id: str) -> OcrJob | None:
        """The job of a document, if it has one."""
        rows = self.db.query(f"SELECT {_JOB_COLUMNS} FROM ocr_jobs WHERE doc_id = ?", (doc_id,))
        return OcrJob._from_row(rows[0]) if rows else None

    def jobs(self, status: JobStatus | None = None) -> list[OcrJob]:
        """Jobs in the order they were queued, optionally only those with ``status``."""
        mine, params = self._mine()
        if status is None:
            rows = self.db.query(
                f"SELECT {_JOB_COLUMNS} FROM ocr_jobs WHERE {mine} ORDER BY created_at, doc_id",
                params,
            )
        else:
            rows = self.db.query(
                f"SELECT {_JOB_COLUMNS} FROM ocr_jobs WHERE status = ? AND {mine}"
                " ORDER BY created_at, doc_id",
                (status, *params),
            )
        return [OcrJob._from_row(r) for r in rows]

    def pending(self) -> list[OcrJob]:
        """Jobs still to run, oldest first."""
        return self.jobs("pending")

    def counts(self) -> dict[str, int]:
        """Number of jobs per status (for the app's status bar)."""
        mine, params = self._mine()
        rows = self.db.query(
            f"SELECT status, COUNT(*) FROM ocr_jobs WHERE {mine} GROUP BY status", params
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def page_results(self, doc_id: str) -> dict[int, OcrPageResult]:
        """The pages of a document read so far, by page number."""
        rows = self.db.query(
            "SELECT page, status, text, confidence, lines, dropped, reason FROM ocr_pages"
            " WHERE doc_id = ? ORDER BY page",
            (doc_id,),
        )
        return {
            r[0]: OcrPageResult(r[0], r[1], r[2], float(r[3]), int(r[4]), int(r[5]), r[6])
            for r in rows
        }

    # --- used by the worker --------------------------------------------------

    def save_page(
        self,
        doc_id: str,
        result: OcrPageResult,
        *,
        seconds: float | None = None,
        engine: str | None = None,
        dpi: int | None = None,
    ) -> None:
        """Store one page's result at once (committed), so a restart skips the page."""
        self.db.execute(
            "INSERT INTO ocr_pages(doc_id, page, status, text, confidence, lines, dropped,"
            " reason, seconds, engine, dpi) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(doc_id, page) DO UPDATE SET status = excluded.status,"
            " text = excluded.text, confidence = excluded.confidence, lines = excluded.lines,"
            " dropped = excluded.dropped, reason = excluded.reason, seconds = excluded.seconds,"
            " engine = excluded.engine, dpi = excluded.dpi",
            (
                doc_id,
                result.page,
                result.status,
                result.text,
                result.confidence,
                result.lines,
                result.dropped,
                result.reason,
                seconds,
                engine,
                dpi,
            ),
        )

    def refresh_signature(self, job: OcrJob) -> bool:
        """Forget the stored pages if the file changed since they were read.

        Returns True when the pages were thrown away.
        """
        signature = file_signature(job.path)
        if signature is None or signature == (job.file_size, job.file_mtime_ns):
            return False
        with self.db.transaction():
            self.db.execute("DELETE FROM ocr_pages WHERE doc_id = ?", (job.doc_id,))
            self.db.execute(
                "UPDATE ocr_jobs SET file_size = ?, file_mtime_ns = ?, updated_at = ?"
                " WHERE doc_id = ?",
                (signature[0], signature[1], time.time(), job.doc_id),
            )
        job.file_size, job.file_mtime_ns = signature
        return True

    def set_total(self, doc_id: str, pages_total: int) -> None:
        """Record how many pages the job covers (for progress)."""
        self.db.execute(
            "UPDATE ocr_jobs SET pages_total = ?, updated_at = ? WHERE doc_id = ?",
            (pages_total, time.time(), doc_id),
        )

    def finish(self, job: OcrJob, status: JobStatus, reason: str | None = None) -> bool:
        """Close a job, unless it was scheduled again meanwhile (then it stays pending).

        Returns True when the job was closed.
        """
        cursor = self.db.execute(
            "UPDATE ocr_jobs SET status = ?, reason = ?, updated_at = ?"
            " WHERE doc_id = ? AND generation = ?",
            (status, reason, time.time(), job.doc_id, job.generation),
        )
        return bool(cursor.rowcount)

    def remove(self, doc_id: str) -> bool:
        """Forget a document's job and pages (e.g. when it is deleted from the library)."""
        cursor = self.db.execute("DELETE FROM ocr_jobs WHERE doc_id = ?", (doc_id,))
        return bool(cursor.rowcount)

    def retry_failed(self) -> int:
        """Mark failed jobs pending again (their finished pages are kept)."""
        mine, params = self._mine()
        cursor = self.db.execute(
            "UPDATE ocr_jobs SET status = 'pending', reason = NULL, generation = generation + 1,"
            f" updated_at = ? WHERE status = 'failed' AND {mine}",
            (time.time(), *params),
        )
        return int(cursor.rowcount)
