"""Ingesting many files: one outcome per file, progress reports, cancellation, OCR hand-off.

A bad file becomes a "failed" outcome and the batch goes on; only a storage failure
(disk full, read-only library) stops it, since every later file would fail too. Each
function takes the :class:`IngestionPipeline` whose methods of the same name call it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentmaker.errors import (
    DocumentError,
    NoTextLayerError,
    OperationCancelledError,
    StorageError,
)
from agentmaker.rag.ingest.batch import (
    BatchReport,
    CancelToken,
    FileOutcome,
    IngestProgress,
    ProgressCallback,
    failed_outcome,
    walk_paths,
)
from agentmaker.rag.ingest.loading import doc_id_for_path, supported_extensions

if TYPE_CHECKING:
    from agentmaker.rag.ingest.steps import PipelineSteps

log = logging.getLogger(__name__)

# Above this many files a batch sends no per-file "queued" reports (a list of a
# million rows helps nobody); progress still reports every file as it is done.
QUEUE_LISTING_LIMIT = 5000


def _no_emit(*args: Any, **kwargs: Any) -> None:
    """A progress sink that drops reports."""


def ingest_paths(
    pipeline: PipelineSteps,
    paths: Iterable[str | os.PathLike[str]],
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    passwords: dict[str, str] | None = None,
) -> BatchReport:
    """Ingest files and folders (recursively); see :meth:`IngestionPipeline.ingest_paths`."""
    cancel = cancel or CancelToken()
    passwords = passwords or {}
    paths = list(paths)
    report = BatchReport()
    supported = supported_extensions() | set(pipeline.ocr.extensions if pipeline.ocr else ())

    def candidates() -> Iterator[tuple[Path, int]]:
        # Walked twice (count, then ingest) rather than held in a list, so a folder
        # of a million files costs no more memory than a folder of ten.
        for file, explicit in walk_paths(paths, cancel=cancel):
            if not explicit and file.suffix.lower() not in supported:
                report.skipped_unsupported += 1
                continue
            try:
                size = file.stat().st_size
            except OSError:
                size = 0
            yield file, size

    total_files = total_bytes = 0
    listed: list[Path] = []
    for file, size in candidates():
        total_files += 1
        total_bytes += size
        if total_files <= QUEUE_LISTING_LIMIT:
            listed.append(file)
    done_bytes = current_bytes = 0

    def emit(path: Path, stage: Any, done: int, **extra: Any) -> None:
        if progress is not None:
            extra.setdefault("file_bytes", current_bytes)
            progress(
                IngestProgress(
                    str(path), stage, done, total_files, done_bytes, total_bytes, **extra
                )
            )

    if total_files <= QUEUE_LISTING_LIMIT:
        for file in listed:
            emit(file, "queued", 0)
    listed.clear()
    skipped, number = report.skipped_unsupported, 0
    for file, size in candidates():
        if number >= total_files:  # files that appeared after the count wait for next time
            break
        if cancel.cancelled:
            report.cancelled = True
            report.files.append(FileOutcome(str(file), "cancelled"))
            emit(file, "cancelled", number)
            number += 1
            continue
        current_bytes = size
        emit(file, "reading", number)
        try:
            outcome = ingest_one(pipeline, file, passwords.get(str(file)), cancel, emit, number)
        except StorageError as error:  # disk full, read-only: later files would fail too
            report.files.append(FileOutcome(str(file), "failed", error=str(error)))
            report.skipped_unsupported = skipped
            error.report = report  # what was committed before it stays known
            raise
        report.files.append(outcome)
        done_bytes += size
        number += 1
        if outcome.status == "cancelled":
            report.cancelled = True
        emit(
            file,
            outcome.status,
            number,
            chunks=outcome.chunks,
            error=outcome.error,
            error_kind=outcome.error_kind,
            error_code=outcome.error_code,
            error_params=outcome.error_params,
        )
    report.skipped_unsupported = skipped  # the second walk counted them again
    return report


def ingest_path(
    pipeline: PipelineSteps,
    file: str | os.PathLike[str],
    *,
    password: str | None = None,
    cancel: CancelToken | None = None,
) -> FileOutcome:
    """Ingest one file and report its outcome instead of raising for a bad file."""
    return ingest_one(pipeline, Path(file), password, cancel or CancelToken(), _no_emit, 0)


def ingest_one(
    pipeline: PipelineSteps,
    file: Path,
    password: str | None,
    cancel: CancelToken,
    emit: Callable[..., None],
    number: int,
) -> FileOutcome:
    """Ingest (or queue for OCR) one file of a batch; ``emit`` receives its embedding
    progress as file ``number``. Raises only :class:`StorageError`."""
    ocr = pipeline.ocr
    if ocr is not None and file.suffix.lower() in ocr.extensions:
        # The readers' imports are heavy (pypdf, bs4): loaded on first use, as in loading.
        from agentmaker.rag.readers.detect import check_image

        try:
            check_image(file)  # a renamed file is refused before it waits for OCR
        except DocumentError as exc:
            return failed_outcome(str(file), exc)
        ocr.schedule(file, doc_id_for_path(file), None)
        return FileOutcome(str(file), "ocr_queued", doc_id_for_path(file))
    try:
        doc = pipeline.read_file(file, password)
        report = pipeline.ingest_document(
            doc,
            cancel=cancel,
            on_embedded=lambda n, total: emit(
                file, "embedding", number, chunks=total, chunks_embedded=n
            ),
        )
    except OperationCancelledError:
        return FileOutcome(str(file), "cancelled")
    except NoTextLayerError as exc:
        if ocr is None:
            return failed_outcome(str(file), exc, "no_text")
        ocr.schedule(file, doc_id_for_path(file), None)
        return FileOutcome(str(file), "ocr_queued", doc_id_for_path(file))
    except StorageError:
        raise  # disk full, read-only library: every later file would fail too
    except (DocumentError, OSError) as exc:
        log.info("could not ingest %s: %s", file, exc)
        return failed_outcome(str(file), exc)
    except Exception as exc:
        log.exception("unexpected failure ingesting %s", file)
        return failed_outcome(str(file), exc, "other")
    missing = doc.metadata.get("pages_without_text") or []
    if ocr is not None and missing and not report.skipped:
        ocr.schedule(file, report.doc_id, list(missing))
    status: Literal["unchanged", "indexed"] = "unchanged" if report.skipped else "indexed"
    return FileOutcome(str(file), status, report.doc_id, report.chunks, warnings=report.warnings)
