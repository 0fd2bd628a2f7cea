"""OcrWorker: runs the queued OCR jobs in the background and indexes what they read.

For each pending job: render and read every page not read yet (each page's result is
stored at once, so a cancel or a crash loses at most the page being read), then build
the document and hand it to ``IngestionPipeline.ingest_document``, which replaces the
previous version of the same ``doc_id`` atomically:

- part of a PDF with a text layer: the text layer is read again and the OCR text is
  spliced into the pages that had none;
- a fully scanned PDF or an image: the document is made of the OCR text alone.

The chunks of OCR'd pages carry ``metadata["ocr"] = True``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentmaker.background import STOP_GRACE_S, finish_in_thread
from agentmaker.errors import (
    DocumentError,
    NoTextLayerError,
    OperationCancelledError,
    StorageError,
)
from agentmaker.ocr.documents import ocr_document, splice_ocr_pages
from agentmaker.ocr.engine import OcrEngine, OcrError, OcrUnavailableError
from agentmaker.ocr.queue import OcrJob, OcrPageResult, OcrQueue
from agentmaker.ocr.render import DEFAULT_DPI, is_image, page_count, page_labels, render_pages
from agentmaker.rag.documents import Document
from agentmaker.rag.ingest.batch import CancelToken

if TYPE_CHECKING:
    from agentmaker.rag.ingest.pipeline import IngestionPipeline

log = logging.getLogger(__name__)

ProgressStatus = Literal[
    "started",
    "page_read",
    "page_unreadable",
    "page_failed",
    "indexing",
    "indexed",
    "unreadable",
    "failed",
    "cancelled",
]
_WORD = re.compile(r"\w", re.UNICODE)


@dataclass
class OcrProgress:
    """One progress report, sent from the thread running the worker.

    ``page`` is the page just read (0 for reports about the whole job); ``pages_done``
    counts pages read so far, including those read before a restart.
    """

    path: str
    page: int
    pages_done: int
    pages_total: int
    status: ProgressStatus
    doc_id: str = ""
    error: str | None = None


@dataclass
class OcrJobOutcome:
    """What happened to one job in this run."""

    path: str
    doc_id: str
    status: Literal["indexed", "unchanged", "unreadable", "failed", "cancelled"]
    pages_read: int = 0
    pages_reused: int = 0
    unreadable_pages: list[int] = field(default_factory=list)
    chunks: int = 0
    error: str | None = None


@dataclass
class OcrReport:
    """The outcome of one :meth:`OcrWorker.run_pending`."""

    jobs: list[OcrJobOutcome] = field(default_factory=list)
    cancelled: bool = False
    disabled: bool = False
    #: Set when the OCR engine could not start; the jobs stay pending.
    error: str | None = None
    seconds: float = 0.0

    @property
    def pages_read(self) -> int:
        """Pages read by OCR in this run."""
        return sum(j.pages_read for j in self.jobs)

    def by_status(self, status: str) -> list[OcrJobOutcome]:
        """Outcomes with this status."""
        return [j for j in self.jobs if j.status == status]


OcrProgressCallback = Callable[[OcrProgress], None]


class _Cancelled(Exception):
    pass


class OcrWorker:
    """Reads the pending jobs of an :class:`OcrQueue` and indexes them with a pipeline.

    One worker runs at a time per library (two would read the same pages twice).
    """

    def __init__(
        self,
        queue: OcrQueue,
        pipeline: IngestionPipeline,
        engine: OcrEngine | None = None,
        *,
        dpi: int = DEFAULT_DPI,
    ) -> None:
        self.queue = queue
        self.pipeline = pipeline
        self.engine = engine or OcrEngine()
        self.dpi = dpi

    def run_pending(
        self,
        progress: OcrProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> OcrReport:
        """Run every pending job (including ones queued meanwhile) until done or cancelled."""
        cancel = cancel or CancelToken()
        report = OcrReport()
        started = time.perf_counter()
        if not self.queue.enabled:
            report.disabled = True
            return report
        seen: set[tuple[str, int]] = set()
        while not cancel.cancelled:
            job = next(
                (j for j in self.queue.pending() if (j.doc_id, j.generation) not in seen), None
            )
            if job is None:
                break
            seen.add((job.doc_id, job.generation))
            try:
                outcome = self._run_job(job, progress, cancel)
            except OcrUnavailableError as exc:
                report.error = str(exc)
                break
            report.jobs.append(outcome)
            if outcome.status == "cancelled":
                break
        report.cancelled = cancel.cancelled
        report.seconds = time.perf_counter() - started
        return report

    async def arun_pending(
        self,
        progress: OcrProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> OcrReport:
        """Async twin of :meth:`run_pending`; cancelling the task cancels the run.

        The task ends once the run stopped (after the page being read, at most
        ``STOP_GRACE_S``), so the library can be closed safely right after.
        """
        token = cancel or CancelToken()
        return await finish_in_thread(
            lambda: self.run_pending(progress, token),
            name="ocr-worker",
            on_cancel=token.cancel,
            grace=STOP_GRACE_S,
        )

    # --- one job --------------------------------------------------------------

    def _run_job(
        self, job: OcrJob, progress: OcrProgressCallback | None, cancel: CancelToken
    ) -> OcrJobOutcome:
        run = _JobRun(job, progress)
        path = run.path
        if not path.is_file():
            return run.fail(
                self.queue,
                f"{path.name}: the file no longer exists; it may have been moved, renamed "
                "or deleted, so its scanned pages could not be read.",
            )
        try:
            self.queue.refresh_signature(job)
            base, pages = self._pages_to_read(job, path)
            run.total = len(pages)
            self.queue.set_total(job.doc_id, run.total)
            stored = self.queue.page_results(job.doc_id)
            todo = [n for n in pages if n not in stored]
            run.done = run.outcome.pages_reused = run.total - len(todo)
            run.emit(0, "started")
            if todo:
                self._read_pages(run, todo, cancel)
            return self._index(run, base, pages, cancel)
        except (_Cancelled, OperationCancelledError):
            run.outcome.status = "cancelled"
            run.emit(0, "cancelled")
            return run.outcome
        except (OcrUnavailableError, StorageError):
            raise
        except FileNotFoundError:
            return run.fail(self.queue, f"{path.name}: the file disappeared while it was read.")
        except DocumentError as exc:
            return run.fail(self.queue, str(exc))
        except Exception as exc:
            log.exception("OCR job for %s failed", path)
            return run.fail(self.queue, f"{path.name}: OCR failed ({type(exc).__name__}: {exc}).")

    def _pages_to_read(self, job: OcrJob, path: Path) -> tuple[Document | None, list[int]]:
        """The text-layer document (None for a scan) and the pages OCR must read."""
        if job.pages is None or is_image(path):
            return None, list(range(1, page_count(path) + 1))
        from agentmaker.rag.readers import read_file

        try:
            base = read_file(path)
        except NoTextLayerError:  # the file was replaced by a scan since it was queued
            return None, list(range(1, page_count(path) + 1))
        # The file as it is now decides which pages lack text, not the queued list.
        missing = base.metadata.get("pages_without_text")
        return base, sorted(missing if missing is not None else job.pages)

    def _read_page(self, number: int, image: Any) -> tuple[OcrPageResult, float | None]:
        if isinstance(image, DocumentError):
            return OcrPageResult(number, "failed", reason=str(image)), None
        try:
            page = self.engine.read_image(image)
        except OcrUnavailableError:
            raise
        except OcrError as exc:
            return OcrPageResult(number, "failed", reason=str(exc)), None
        if _WORD.search(page.text) is None:
            result = OcrPageResult(
                number,
                "unreadable",
                "",
                page.mean_confidence,
                0,
                page.dropped,
                "no readable text",
            )
        else:
            result = OcrPageResult(
                number, "ok", page.text, page.mean_confidence, len(page.lines), page.dropped
            )
        return result, page.seconds

    def _read_pages(self, run: _JobRun, todo: list[int], cancel: CancelToken) -> None:
        if cancel.cancelled:
            raise _Cancelled
        with contextlib.closing(render_pages(run.path, todo, self.dpi)) as rendered:
            for number, image in rendered:
                result, seconds = self._read_page(number, image)
                self.queue.save_page(
                    run.job.doc_id, result, seconds=seconds, engine=self.engine.name, dpi=self.dpi
                )
                run.done += 1
                run.outcome.pages_read += 1
                run.emit(number, _PAGE_STATUS[result.status], result.reason)
                if cancel.cancelled:
                    raise _Cancelled

    def _index(
        self, run: _JobRun, base: Document | None, pages: list[int], cancel: CancelToken
    ) -> OcrJobOutcome:
        job, path, outcome = run.job, run.path, run.outcome
        results = self.queue.page_results(job.doc_id)
        texts = {n: r.text for n in pages if (r := results.get(n)) and r.status == "ok" and r.text}
        outcome.unreadable_pages = [n for n in pages if n not in texts]
        if base is None and not texts:
            reason = (
                f"{path.name}: OCR found no readable text"
                + (f" on its {len(pages)} pages" if len(pages) > 1 else "")
                + "; it may be a picture without text, too blurred or too small."
            )
            # An older, readable version of the file must not stay searchable.
            self.pipeline.delete_document(job.doc_id)
            self.queue.finish(job, "unreadable", reason)
            outcome.status, outcome.error = "unreadable", reason
            run.emit(0, "unreadable", reason)
            return outcome
        if base is not None:
            doc = splice_ocr_pages(base, texts)
            # Re-reading the unchanged file later gives `base` again: the pipeline must
            # treat that as current, not replace the OCR'd version with the text layer.
            doc.metadata["source_fingerprint"] = self.pipeline.fingerprint(base)
        else:
            source_format = _SOURCE_FORMATS.get(path.suffix.lower(), "pdf")
            doc = ocr_document(path, pages, texts, page_labels(path), source_format=source_format)
            with contextlib.suppress(OSError):
                info = os.stat(path)
                doc.metadata["size_bytes"], doc.metadata["mtime"] = info.st_size, info.st_mtime
        doc.doc_id = job.doc_id
        doc.source = str(path)
        _describe(doc, texts, outcome.unreadable_pages, results)
        run.emit(0, "indexing")
        report = self.pipeline.ingest_document(doc, cancel=cancel)
        self.queue.finish(job, "done")
        outcome.status = "unchanged" if report.skipped else "indexed"
        outcome.chunks = report.chunks
        run.emit(0, "indexed")
        return outcome


_PAGE_STATUS: dict[str, ProgressStatus] = {
    "ok": "page_read",
    "unreadable": "page_unreadable",
    "failed": "page_failed",
}
_SOURCE_FORMATS = {
    ".png": "png",
    ".jpg": "jpeg",
    ".jpeg": "jpeg",
    ".tif": "tiff",
    ".tiff": "tiff",
    ".webp": "webp",
    ".pdf": "pdf",
    ".pptx": "pptx",
}


class _JobRun:
    """The state of one job while it runs: counters, outcome and progress reports."""

    def __init__(self, job: OcrJob, progress: OcrProgressCallback | None) -> None:
        self.job = job
        self.path = Path(job.path)
        self.progress = progress
        self.total = 0
        self.done = 0
        self.outcome = OcrJobOutcome(str(self.path), job.doc_id, "failed")

    def emit(self, page: int, status: ProgressStatus, error: str | None = None) -> None:
        if self.progress is not None:
            self.progress(
                OcrProgress(
                    str(self.path), page, self.done, self.total, status, self.job.doc_id, error
                )
            )

    def fail(self, queue: OcrQueue, reason: str) -> OcrJobOutcome:
        queue.finish(self.job, "failed", reason)
        self.outcome.status, self.outcome.error = "failed", reason
        self.emit(0, "failed", reason)
        return self.outcome


def _describe(
    doc: Document,
    texts: dict[int, str],
    unreadable: list[int],
    results: dict[int, OcrPageResult],
) -> None:
    metadata = doc.metadata
    metadata["ocr_pages"] = sorted(texts)
    metadata["ocr_unreadable_pages"] = list(unreadable)
    read = [results[n] for n in texts]
    if read:
        metadata["ocr_mean_confidence"] = round(sum(r.confidence for r in read) / len(read), 4)
    warnings = [
        w for w in metadata.get("warnings") or [] if not ("no text layer" in w and "OCR" in w)
    ]
    if texts:
        warnings.append(
            f"{len(texts)} page(s) were read by OCR ({_pages(sorted(texts))}); their text "
            "may contain misread words."
        )
    if unreadable:
        warnings.append(
            f"OCR found no readable text on {len(unreadable)} page(s) "
            f"({_pages(unreadable)}); they are not searchable."
        )
    metadata["warnings"] = warnings


def _pages(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:20])
    more = f" and {len(numbers) - 20} more" if len(numbers) > 20 else ""
    return f"page {shown}{more}" if len(numbers) == 1 else f"pages {shown}{more}"
