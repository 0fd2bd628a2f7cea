"""Download a model file: resumable, verified, never a half file where a model belongs.

The bytes go to ``<file>.part`` next to the destination. An interrupted transfer is
resumed with an HTTP ``Range`` request (from the same ``.part``, also in a later run);
the free disk space is checked before anything is written; when all bytes are there the
size and sha256 (where the catalog states them) and the GGUF header are checked, and only
then is the ``.part`` renamed to the model's name. Cancel deletes the ``.part``.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from agentmaker.errors import (
    ChecksumMismatchError,
    DownloadDiskFullError,
    DownloadError,
    ModelFileError,
    OperationCancelledError,
)
from agentmaker.models.gguf import read_gguf
from agentmaker.models.model_catalog import CatalogModel

#: Room kept free beyond the file itself (the system needs some too).
DISK_MARGIN = 200_000_000
_CHUNK = 64 * 1024  # small: bytes reach the disk before a dropped connection loses them


@dataclass(frozen=True)
class DownloadProgress:
    """How far a download is: bytes, speed (bytes/s, recent), and seconds left."""

    done: int
    total: int | None
    speed: float
    eta_s: float | None

    @property
    def fraction(self) -> float | None:
        """0..1 when the total is known."""
        return self.done / self.total if self.total else None


class ModelDownload:
    """One download of ``url`` to ``dest``; :meth:`run` blocks, :meth:`arun` awaits.

    ``size_bytes``/``sha256``: checked when given; ``approx_bytes``: for the disk check
    when the server does not say the size; ``architecture``: the GGUF header must name it.
    ``progress`` is called from the downloading thread, at most every ``every`` seconds.
    """

    def __init__(
        self,
        url: str,
        dest: str | Path,
        *,
        size_bytes: int | None = None,
        sha256: str | None = None,
        approx_bytes: int | None = None,
        architecture: str | None = None,
        progress: Callable[[DownloadProgress], None] | None = None,
        retries: int = 5,
        timeout: float = 30.0,
        every: float = 0.25,
        client: httpx.Client | None = None,
    ) -> None:
        self.url = url
        self.dest = Path(dest)
        self.part = self.dest.with_name(self.dest.name + ".part")
        self.size_bytes = size_bytes
        self.sha256 = sha256.lower() if sha256 else None
        self.approx_bytes = approx_bytes
        self.architecture = architecture
        self.progress = progress
        self.retries = retries
        self.timeout = timeout
        self.every = every
        self._client = client
        self._cancel = threading.Event()

    @classmethod
    def for_catalog(
        cls,
        entry: CatalogModel,
        folder: str | Path,
        *,
        progress: Callable[[DownloadProgress], None] | None = None,
    ) -> ModelDownload:
        """The download of a catalog model into ``folder`` (a :class:`ModelStore`'s)."""
        return cls(
            entry.url,
            Path(folder) / entry.file_name,
            size_bytes=entry.size_bytes,
            sha256=entry.sha256,
            approx_bytes=entry.approx_bytes,
            architecture=entry.architecture,
            progress=progress,
        )

    def cancel(self) -> None:
        """Stop the download; the partial file is deleted."""
        self._cancel.set()

    async def arun(self) -> Path:
        """Async twin of :meth:`run` (the transfer runs in a worker thread)."""
        try:
            return await asyncio.to_thread(self.run)
        except asyncio.CancelledError:
            self.cancel()
            raise

    # --- the transfer -----------------------------------------------------------------

    def run(self) -> Path:
        """Download, verify and move into place; returns the model's path."""
        self.dest.parent.mkdir(parents=True, exist_ok=True)
        client = self._client or httpx.Client(timeout=self.timeout, follow_redirects=True)
        try:
            self._transfer(client)
            self._verify()
        except OperationCancelledError:
            self.part.unlink(missing_ok=True)
            raise
        except (ChecksumMismatchError, ModelFileError):
            self.part.unlink(missing_ok=True)  # a bad file is not worth resuming
            raise
        finally:
            if self._client is None:
                client.close()
        os.replace(self.part, self.dest)
        return self.dest

    def _check_disk(self, have: int, total: int | None) -> None:
        need = (total or self.size_bytes or self.approx_bytes or 0) - have
        free = shutil.disk_usage(self.dest.parent).free
        if need > 0 and free < need + DISK_MARGIN:
            raise DownloadDiskFullError(
                f"{self.dest.name}: needs {need / 1e9:.1f} GB of free disk space in "
                f"{self.dest.parent}, but only {free / 1e9:.1f} GB is free. Free some space "
                "and download again."
            )

    def _transfer(self, client: httpx.Client) -> None:
        self._check_disk(self.part.stat().st_size if self.part.exists() else 0, None)
        failures = 0
        while True:
            if self._cancel.is_set():
                raise OperationCancelledError(f"The download of {self.dest.name} was cancelled.")
            have = self.part.stat().st_size if self.part.exists() else 0
            try:
                if self._once(client, have):
                    return
                failures = 0  # progress was made; keep going
            except (httpx.TransportError, httpx.HTTPStatusError) as exc:
                failures += 1
                if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code < 500:
                    raise DownloadError(
                        f"{self.dest.name}: the server answered {exc.response.status_code} "
                        f"for {self.url}. Check the address or try again later."
                    ) from exc
                if failures > self.retries:
                    raise DownloadError(
                        f"{self.dest.name}: the download kept failing ({exc}). Check the "
                        "connection and download again; it resumes where it stopped."
                    ) from exc
                time.sleep(min(0.2 * 2**failures, 5.0))

    def _once(self, client: httpx.Client, have: int) -> bool:
        """One request from byte ``have``; True when the file is complete."""
        headers = {"Range": f"bytes={have}-"} if have else {}
        with client.stream("GET", self.url, headers=headers) as response:
            if response.status_code == 416 and have:  # nothing left to send
                return True
            response.raise_for_status()
            if have and response.status_code != 206:
                have = 0  # the server ignored the Range: start over
            total = _total(response, have)
            if total is not None and self.size_bytes is not None and total != self.size_bytes:
                raise ChecksumMismatchError(
                    f"{self.dest.name}: the server offers {total} bytes, but the catalog "
                    f"expects {self.size_bytes}. The download was refused."
                )
            self._check_disk(have, total)
            mode = "ab" if have else "wb"
            done, started, last = have, time.monotonic(), 0.0
            with self.part.open(mode) as out:
                for chunk in response.iter_bytes(_CHUNK):
                    if self._cancel.is_set():
                        raise OperationCancelledError(
                            f"The download of {self.dest.name} was cancelled."
                        )
                    _write(out, chunk, self)
                    done += len(chunk)
                    now = time.monotonic()
                    if self.progress is not None and now - last >= self.every:
                        last = now
                        speed = (done - have) / max(now - started, 1e-6)
                        eta = (total - done) / speed if total and speed > 0 else None
                        self.progress(DownloadProgress(done, total, speed, eta))
            if total is not None and done < total:
                raise httpx.ReadError("the connection closed before the end of the file")
            if self.progress is not None:
                self.progress(DownloadProgress(done, total, 0.0, 0.0))
            return True

    # --- verification -----------------------------------------------------------------

    def _verify(self) -> None:
        size = self.part.stat().st_size
        if self.size_bytes is not None and size != self.size_bytes:
            raise ChecksumMismatchError(
                f"{self.dest.name}: {size} bytes arrived, {self.size_bytes} were expected. "
                "The file was deleted; download it again."
            )
        if self.sha256 is not None:
            digest = hashlib.sha256()
            with self.part.open("rb") as stream:
                while block := stream.read(_CHUNK * 64):
                    if self._cancel.is_set():
                        raise OperationCancelledError(
                            f"The download of {self.dest.name} was cancelled."
                        )
                    digest.update(block)
            if digest.hexdigest() != self.sha256:
                raise ChecksumMismatchError(
                    f"{self.dest.name}: the file's sha256 is not the one the catalog states, "
                    "so it was deleted (a damaged or different file). Download it again."
                )
        info = read_gguf(self.part)
        if self.architecture and info.architecture != self.architecture:
            raise ModelFileError(
                f"The downloaded file is a {info.architecture!r} model, not the expected "
                f"{self.architecture!r}. It was deleted.",
                self.dest,
            )


def _total(response: httpx.Response, have: int) -> int | None:
    """The full file size from Content-Range (206) or Content-Length (200)."""
    if response.status_code == 206:
        value = response.headers.get("content-range", "")
        if "/" in value and value.rsplit("/", 1)[1].isdigit():
            return int(value.rsplit("/", 1)[1])
        length = response.headers.get("content-length")
        return have + int(length) if length and length.isdigit() else None
    length = response.headers.get("content-length")
    return int(length) if length and length.isdigit() else None


def _write(out: object, chunk: bytes, download: ModelDownload) -> None:
    """Write one chunk; a full disk becomes :class:`DownloadDiskFullError` (the part is removed
    to give the space back)."""
    try:
        out.write(chunk)  # type: ignore[attr-defined]
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            out.close()  # type: ignore[attr-defined]
            download.part.unlink(missing_ok=True)
            raise DownloadDiskFullError(
                f"{download.dest.name}: the disk became full while downloading. Free some "
                "space and download again."
            ) from exc
        raise DownloadError(f"{download.dest.name}: could not be written ({exc}).") from exc
