"""What a folder scan reports: linked folders, failures, progress and the summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from agentmaker.errors import AgentmakerError

Action = Literal[
    "added", "updated", "unchanged", "renamed", "copied", "removed", "failed",
    "ocr_queued", "cancelled", "done",
]  # fmt: skip


class FolderLinkError(AgentmakerError, ValueError):
    """A folder cannot be linked (not a folder, or already followed)."""


@dataclass
class LinkedFolder:
    """A folder the library follows."""

    path: str
    ignore: tuple[str, ...]
    added_at: float
    last_scan_at: float | None = None
    last_scan_seconds: float | None = None
    files: int = 0
    failed: int = 0


@dataclass
class FileFailure:
    """A file that could not be indexed, and why (it is retried once it changes)."""

    path: str
    folder: str
    error: str
    error_kind: str
    size: int
    mtime_ns: int
    failed_at: float


@dataclass
class SyncProgress:
    """One progress report, sent from the thread running the scan."""

    folder: str
    path: str
    action: Action
    files_done: int
    files_total: int  # files listed so far; final once ``listing_done``
    listing_done: bool
    added: int = 0
    updated: int = 0
    removed: int = 0
    failed: int = 0
    error: str | None = None
    error_kind: str | None = None


@dataclass
class SyncReport:
    """What one scan did."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    copied: list[tuple[str, str]] = field(default_factory=list)  # (from, new): no embedding
    failed: list[FileFailure] = field(default_factory=list)  # newly failed in this scan
    still_failing: int = 0  # known failures passed over (unchanged since they failed)
    ocr_queued: list[str] = field(default_factory=list)
    missing_folders: list[str] = field(default_factory=list)  # offline: nothing removed
    unreadable_dirs: list[str] = field(default_factory=list)
    cancelled: bool = False
    files_seen: int = 0
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """True when the library changed."""
        return bool(self.added or self.updated or self.removed or self.renamed or self.copied)

    def summary(self) -> str:
        """One line for logs and status bars."""
        parts = [
            f"{len(self.added)} added",
            f"{len(self.updated)} updated",
            f"{len(self.renamed)} renamed",
            f"{len(self.removed)} removed",
            f"{len(self.failed)} failed",
            f"{self.unchanged} unchanged",
        ]
        return ", ".join(parts) + (" (cancelled)" if self.cancelled else "")


class FileRow(NamedTuple):
    path: str
    folder: str
    size: int
    mtime_ns: int
    content_hash: str
    doc_id: str
    status: str
    updated_at: float

    def stat_trusted(self, size: int, mtime_ns: int) -> bool:
        """Same size and mtime, and the mtime was not too recent when recorded (a file
        written twice within the clock's granularity could keep both)."""
        racy = mtime_ns >= (self.updated_at - RACY_SECONDS) * 1e9
        return (self.size, self.mtime_ns) == (size, mtime_ns) and not racy


ROW_COLUMNS = "path, folder, size, mtime_ns, content_hash, doc_id, status, updated_at"
RACY_SECONDS = 2.0
