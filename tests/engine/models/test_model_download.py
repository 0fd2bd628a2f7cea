"""Model downloads against a real HTTP server on 127.0.0.1 that honours Range."""

from __future__ import annotations

import errno
import hashlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from agentmaker.errors import (
    ChecksumMismatchError,
    DownloadDiskFullError,
    ModelFileError,
    OperationCancelledError,
)
from agentmaker.models import model_download
from agentmaker.models.model_download import DownloadProgress, ModelDownload

from tests.gguf_files import write_gguf


class GgufServer(BaseHTTPRequestHandler):
    """Serves ``payload`` at /model.gguf with Range support; can misbehave on purpose."""

    payload: ClassVar[bytes] = b""
    drop_after: ClassVar[int | None] = None  # close the first response after this many bytes
    ranges: ClassVar[list[str]] = []
    gate: ClassVar[threading.Event | None] = None  # hold the transfer until set

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        cls = type(self)
        data = cls.payload
        start = 0
        header = self.headers.get("Range")
        cls.ranges.append(header or "")
        if header:
            start = int(header.removeprefix("bytes=").split("-")[0])
            if start >= len(data):
                self.send_response(416)
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        body = data[start:]
        if cls.drop_after is not None:
            cut, cls.drop_after = cls.drop_after, None
            self.wfile.write(body[:cut])
            self.wfile.flush()
            self.connection.shutdown(2)  # the connection drops mid-file
            return
        for i in range(0, len(body), 64 * 1024):
            if cls.gate is not None:
                cls.gate.wait(10)
            try:
                self.wfile.write(body[i : i + 64 * 1024])
            except OSError:
                return


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    GgufServer.payload = write_gguf(tmp_path / "source.gguf", elements=512 * 1024).read_bytes()
    GgufServer.drop_after, GgufServer.ranges, GgufServer.gate = None, [], None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), GgufServer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/model.gguf"
    if GgufServer.gate is not None:
        GgufServer.gate.set()
    httpd.shutdown()
    httpd.server_close()


def test_a_dropped_connection_is_resumed_with_range(server: str, tmp_path: Path) -> None:
    payload = GgufServer.payload
    GgufServer.drop_after = 700_000
    seen: list[DownloadProgress] = []
    dest = tmp_path / "models" / "m.gguf"
    job = ModelDownload(
        server,
        dest,
        size_bytes=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
        architecture="llama",
        progress=seen.append,
        every=0.0,
    )
    assert job.run() == dest
    assert dest.read_bytes() == payload
    assert not job.part.exists()
    assert GgufServer.ranges[0] == "" and GgufServer.ranges[1].startswith("bytes=")
    assert int(GgufServer.ranges[1].split("=")[1].rstrip("-")) > 0  # resumed, not restarted
    assert seen[-1].done == len(payload) and seen[-1].total == len(payload)


def test_a_part_left_by_an_earlier_run_is_resumed(server: str, tmp_path: Path) -> None:
    payload = GgufServer.payload
    dest = tmp_path / "m.gguf"
    (tmp_path / "m.gguf.part").write_bytes(payload[:1_000_000])
    ModelDownload(server, dest, size_bytes=len(payload)).run()
    assert dest.read_bytes() == payload and GgufServer.ranges == ["bytes=1000000-"]


def test_a_wrong_hash_is_refused_and_nothing_is_left(server: str, tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf"
    with pytest.raises(ChecksumMismatchError, match="sha256"):
        ModelDownload(server, dest, sha256="0" * 64).run()
    assert list(tmp_path.iterdir()) == [tmp_path / "source.gguf"]
    with pytest.raises(ChecksumMismatchError, match="expects 5"):
        ModelDownload(server, dest, size_bytes=5).run()
    assert not dest.exists()


def test_a_file_of_another_architecture_is_refused(server: str, tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not the expected 'qwen2'"):
        ModelDownload(server, tmp_path / "m.gguf", architecture="qwen2").run()
    assert not (tmp_path / "m.gguf").exists() and not (tmp_path / "m.gguf.part").exists()


def test_not_enough_free_disk_is_refused_before_writing(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Usage:
        total, used, free = 10**12, 10**12, 1000

    monkeypatch.setattr(model_download.shutil, "disk_usage", lambda _path: Usage)
    with pytest.raises(DownloadDiskFullError, match="GB of free disk space"):
        ModelDownload(server, tmp_path / "m.gguf").run()
    assert not (tmp_path / "m.gguf.part").exists()


def test_the_disk_filling_up_midway_is_a_clear_error(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = model_download._write
    written = [0]

    def filling(out: object, chunk: bytes, download: ModelDownload) -> None:
        written[0] += len(chunk)
        if written[0] > 600_000:  # the disk fills up after 600 kB
            out.write = _no_space  # type: ignore[attr-defined]
        real_write(out, chunk, download)

    def _no_space(_data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(model_download, "_write", filling)
    with pytest.raises(DownloadDiskFullError, match="disk became full"):
        ModelDownload(server, tmp_path / "m.gguf").run()
    assert not (tmp_path / "m.gguf").exists() and not (tmp_path / "m.gguf.part").exists()


def test_cancel_leaves_no_file(server: str, tmp_path: Path) -> None:
    GgufServer.gate = threading.Event()  # the server sends one block, then waits
    dest = tmp_path / "m.gguf"
    job = ModelDownload(server, dest, progress=lambda p: job.cancel(), every=0.0)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            job.run()
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    GgufServer.gate.set()
    worker.join(60)
    assert len(errors) == 1 and isinstance(errors[0], OperationCancelledError)
    assert not dest.exists() and not job.part.exists()
