"""Many files at once: walking folders, progress reports, cancellation, outcomes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentmaker.errors import (
    AgentmakerError,
    CorruptDocumentError,
    EmptyDocumentError,
    FileTooLargeError,
    FormatMismatchError,
    NoTextLayerError,
    OperationCancelledError,
    PasswordRequiredError,
    UnsupportedFormatError,
)

Stage = Literal[
    "queued", "reading", "embedding", "indexed", "unchanged", "failed", "cancelled", "ocr_queued"
]
ErrorKind = Literal[
    "password_required", "no_text", "corrupt", "empty", "unsupported", "too_large", "other"
]

# Files people keep beside their documents that are never worth reading.
_IGNORED_PREFIXES = ("~$", ".~lock", ".")
_IGNORED_SUFFIXES = (".tmp", ".part", ".crdownload", ".swp", "~")


class CancelToken:
    """Cooperative cancellation: long operations check it between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the operation to stop at its next check."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise :class:`OperationCancelledError` when cancelled."""
        if self._event.is_set():
            raise OperationCancelledError("The operation was cancelled.")


@dataclass
class IngestProgress:
    """One progress report (sent from the worker thread doing the ingestion)."""

    path: str
    stage: Stage
    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    chunks: int = 0
    chunks_embedded: int = 0
    error: str | None = None
    error_kind: ErrorKind | None = None
    #: The error's stable code and message values (``AgentmakerError.code``/``params``),
    #: for apps that show the error in another language.
    error_code: str | None = None
    error_params: dict[str, Any] = field(default_factory=dict)
    #: Size of the file this report is about (with ``chunks_embedded / chunks``, the
    #: work done inside a large file, for an ETA that does not wait for it to end).
    file_bytes: int = 0

    @property
    def work_fraction(self) -> float:
        """Share of the batch's bytes done, counting the current file's embedded part."""
        if not self.bytes_total:
            return self.files_done / self.files_total if self.files_total else 0.0
        inside = 0.0
        if self.stage == "embedding" and self.chunks:
            inside = self.file_bytes * min(self.chunks_embedded, self.chunks) / self.chunks
        return min(1.0, (self.bytes_done + inside) / self.bytes_total)


@dataclass
class FileOutcome:
    """What happened to one file."""

    path: str
    status: Literal["indexed", "unchanged", "failed", "cancelled", "ocr_queued"]
    doc_id: str = ""
    chunks: int = 0
    error: str | None = None
    error_kind: ErrorKind | None = None
    warnings: list[str] = field(default_factory=list)
    #: The error's stable code and message values, as in :class:`IngestProgress`.
    error_code: str | None = None
    error_params: dict[str, Any] = field(default_factory=dict)


@dataclass
class BatchReport:
    """The outcome of ingesting many paths."""

    files: list[FileOutcome] = field(default_factory=list)
    cancelled: bool = False
    skipped_unsupported: int = 0

    def by_status(self, status: str) -> list[FileOutcome]:
        """Outcomes with this status."""
        return [f for f in self.files if f.status == status]


ProgressCallback = Callable[[IngestProgress], None]


def error_kind(error: BaseException) -> ErrorKind:
    """The category the app shows (and acts on, e.g. asking for a password)."""
    if isinstance(error, PasswordRequiredError):
        return "password_required"
    if isinstance(error, NoTextLayerError):
        return "no_text"
    if isinstance(error, CorruptDocumentError):
        return "corrupt"
    if isinstance(error, EmptyDocumentError):
        return "empty"
    if isinstance(error, UnsupportedFormatError | FormatMismatchError):
        return "unsupported"
    if isinstance(error, FileTooLargeError):
        return "too_large"
    return "other"


def error_code(error: BaseException, path: str) -> tuple[str, dict[str, Any]]:
    """The stable code and message values of ``error`` (see :class:`AgentmakerError`)."""
    if isinstance(error, AgentmakerError):
        return error.code, error.params
    name = {"file": Path(path).name}
    if isinstance(error, PermissionError):
        return "file_locked", name
    if isinstance(error, FileNotFoundError):
        return "file_missing", name
    if isinstance(error, OSError):
        return "unreadable", name
    return "unexpected", name


def failed_outcome(path: str, error: BaseException, kind: ErrorKind | None = None) -> FileOutcome:
    """The outcome of a file that could not be added because of ``error``."""
    code, params = error_code(error, path)
    return FileOutcome(
        path,
        "failed",
        error=describe_error(error, path),
        error_kind=kind or error_kind(error),
        error_code=code,
        error_params=params,
    )


def describe_error(error: BaseException, path: str) -> str:
    """A plain sentence for the user; typed errors already are one."""
    if isinstance(error, AgentmakerError):
        return str(error)
    if isinstance(error, PermissionError):
        return f"{Path(path).name}: the app may not read this file. Check its permissions."
    if isinstance(error, FileNotFoundError):
        return f"{Path(path).name}: the file disappeared before it could be read."
    if isinstance(error, OSError):
        return f"{Path(path).name}: the file could not be read ({error.strerror or error})."
    return f"{Path(path).name}: unexpected error ({type(error).__name__}: {error})."


def is_ignored(name: str) -> bool:
    """Hidden, temporary and lock files that a folder scan passes over."""
    return name.startswith(_IGNORED_PREFIXES) or name.endswith(_IGNORED_SUFFIXES)


def walk_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    cancel: CancelToken | None = None,
) -> Iterator[tuple[Path, bool]]:
    """Yield ``(file, explicit)`` for files and the supported files inside folders.

    Folders are walked recursively, following symlinks but never entering the same
    directory twice (so symlink loops end); hidden, temporary and lock files are
    passed over. ``explicit`` is True for files named directly.
    """
    seen_dirs: set[tuple[int, int]] = set()
    seen_files: set[str] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=True):
                if cancel is not None and cancel.cancelled:
                    return
                try:
                    st = os.stat(root)
                except OSError:
                    dirs[:] = []
                    continue
                if (st.st_dev, st.st_ino) in seen_dirs:
                    dirs[:] = []
                    continue
                seen_dirs.add((st.st_dev, st.st_ino))
                dirs[:] = sorted(d for d in dirs if not is_ignored(d))
                for name in sorted(files):
                    file = Path(root) / name
                    if is_ignored(name):
                        continue
                    key = os.path.realpath(file)
                    if key in seen_files:
                        continue
                    seen_files.add(key)
                    yield file, False
        else:
            key = os.path.realpath(path)
            if key not in seen_files:
                seen_files.add(key)
                yield path, True
