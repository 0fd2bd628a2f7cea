"""Reading files in a separate process.

Parsers written in C (lxml for Word files, PDFium) hold Python's GIL while they work,
so reading a large file in a thread can freeze an app's event loop for half a second;
and a parser that crashes on a hostile file takes its whole process with it. Reading
in a child process avoids both: the app's process keeps its GIL, and a crash costs one
file ("the reader crashed on it") instead of the app.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from agentmaker.errors import CorruptDocumentError
from agentmaker.rag.documents import Document

log = logging.getLogger(__name__)


def _read(path: str, password: str | None, max_bytes: int) -> Document:
    from agentmaker.rag.readers import read_file

    return read_file(path, password=password, max_bytes=max_bytes)


class ReaderProcess:
    """One child process that reads files; restarted after a crash. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # "spawn": forking a process that runs Qt and threads is unsafe.
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
            return self._pool

    def read(self, path: Path, password: str | None, max_bytes: int) -> Document:
        """Read ``path`` in the child process (typed errors come back as they are)."""
        try:
            return self._executor().submit(_read, str(path), password, max_bytes).result()
        except BrokenProcessPool as exc:
            log.error("the reader process died while reading %s", path)
            with self._lock:
                self._pool = None  # the next file gets a fresh process
            raise CorruptDocumentError(
                "the file reader crashed on this file, which is probably damaged. The other "
                "files are not affected; re-export this one and add it again.",
                path,
            ) from exc

    def close(self) -> None:
        """Stop the child process. Safe to call twice."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
