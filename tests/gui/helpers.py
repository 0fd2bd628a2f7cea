"""Small helpers for GUI tests: real Qt events at the edges, nothing mocked inside."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agentmaker.ocr import OcrLine, OcrPage
from agentmaker.testing import FakeEmbedder
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget


def drop_files(target: QWidget, paths: Iterable[str | Path]) -> bool:
    """Drag ``paths`` onto ``target`` and drop them, as the OS would; True if accepted."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    point = QPointF(target.rect().center())
    enter = QDragEnterEvent(
        point.toPoint(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(
        point,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, drop)
    return drop.isAccepted()


def anchor_point(browser: QTextBrowser, href: str):
    """Viewport point inside the link ``href`` of a QTextBrowser."""
    document = browser.document()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                rect = browser.cursorRect(cursor)
                return rect.center()
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href!r}")


class StubOcrEngine:
    """Stands in for the OCR engine (seconds per page): one confident line per image.

    ``hold()`` makes every page wait until ``release()`` lets it through, so a test can
    look at the window while a page is being read.
    """

    name = "stub-ocr"

    def __init__(self) -> None:
        self.calls = 0
        self.waiting = 0
        self._gate: threading.Semaphore | None = None

    def hold(self) -> None:
        self._gate = threading.Semaphore(0)

    def release(self, pages: int = 1) -> None:
        if self._gate is not None:
            for _ in range(pages):
                self._gate.release()

    def read_image(self, image: Any) -> OcrPage:
        gate = self._gate
        if gate is not None:
            self.waiting += 1
            try:
                if not gate.acquire(timeout=30):
                    raise TimeoutError("the test never released the page")
            finally:
                self.waiting -= 1
        self.calls += 1
        text = f"Zebra migration survey, scanned page {self.calls}"
        return OcrPage([OcrLine(text, 0.97, (10.0, 10.0, 300.0, 40.0))], text, 0.97)


class GatedEmbedder(FakeEmbedder):
    """A fake embedder whose batches wait for ``release()`` once ``hold()`` was called."""

    def __init__(self) -> None:
        super().__init__(name="fake-embedder-2")
        self.waiting = 0
        self._gate: threading.Semaphore | None = None

    def hold(self) -> None:
        self._gate = threading.Semaphore(0)

    def release(self, batches: int = 1) -> None:
        if self._gate is not None:
            for _ in range(batches):
                self._gate.release()

    def embed_batch(self, texts: Any) -> Any:
        gate = self._gate
        if gate is not None:
            self.waiting += 1
            try:
                gate.acquire(timeout=30)
            finally:
                self.waiting -= 1
        return super().embed_batch(texts)


def make_scan(path: Path, pages: int) -> Path:
    """An image-only PDF of ``pages`` pages (no text layer at all), like a scanner makes."""
    from PIL import Image, ImageDraw

    images = []
    for number in range(1, pages + 1):
        image = Image.new("RGB", (320, 420), "white")
        ImageDraw.Draw(image).text((30, 40), f"Scanned page {number}", fill="black")
        images.append(image)
    images[0].save(path, save_all=True, append_images=images[1:], resolution=72.0)
    return path


class _SlowFile(BaseHTTPRequestHandler):
    """Serves ``payload`` in 64 KiB pieces, slowly enough to watch progress and Cancel."""

    payload = b""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.payload)))
        self.end_headers()
        for i in range(0, len(self.payload), 64 * 1024):
            try:
                self.wfile.write(self.payload[i : i + 64 * 1024])
            except OSError:
                return
            threading.Event().wait(0.02)


@contextlib.contextmanager
def serve_slowly(payload: bytes) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 serving ``payload``; yields its URL."""
    handler = type("SlowFile", (_SlowFile,), {"payload": payload})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/model.gguf"
    finally:
        httpd.shutdown()
        httpd.server_close()


def save_shot(widget: QWidget, name: str) -> Path | None:
    """Save a picture of ``widget`` as ``name`` in ``$DESK_SHOTS`` (when set), to look at."""
    import os

    folder = os.environ.get("DESK_SHOTS")
    if not folder:
        return None
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()
    widget.grab().save(str(path))
    return path
