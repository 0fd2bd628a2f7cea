"""Stopping the folder watcher: repeated cancellation, a scan stuck in a large file.

Real library file, real folder; the only stand-in is a FolderSync whose scan takes a
while to notice a cancel (a reader busy in one big file), which is what made the GUI
suite crash: the watcher's task ended while its thread went on posting to the loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentmaker.library import Library
from agentmaker.rag.folders.sync import FolderSync
from agentmaker.rag.folders.watch import FolderWatcher
from agentmaker.testing import FakeEmbedder


class SlowToCancelSync(FolderSync):
    """A real FolderSync whose scan needs ``linger`` seconds to stop once cancelled."""

    linger = 0.3

    def __init__(self, target: Any) -> None:
        super().__init__(target)
        self.scanning = threading.Event()

    def scan(self, *args: Any, **kwargs: Any) -> Any:
        cancel = kwargs["cancel"]
        self.scanning.set()
        while not cancel.cancelled:
            time.sleep(0.01)
        time.sleep(self.linger)  # finishing the file being read
        return super().scan(*args, **kwargs)


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    yield library
    library.close()


@pytest.fixture
def thread_errors(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    errors: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    return errors


def _watcher(lib: Library, tmp_path: Path, reports: list[Any], linger: float) -> FolderWatcher:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome words about zebras.\n")
    sync = SlowToCancelSync(lib)
    sync.linger = linger
    sync.link(folder)
    return FolderWatcher(sync, live=False, rescan_interval=None, on_report=reports.append)


def test_cancelled_twice_the_watcher_has_stopped_when_its_task_ends(
    lib: Library, tmp_path: Path, thread_errors: list[BaseException]
) -> None:
    reports: list[Any] = []
    watcher = _watcher(lib, tmp_path, reports, linger=0.3)
    after_end: list[Any] = []

    async def main() -> None:
        task = asyncio.ensure_future(watcher.arun())
        await asyncio.to_thread(watcher.sync.scanning.wait, 10)  # type: ignore[attr-defined]
        task.cancel()
        await asyncio.sleep(0.05)  # the task is now inside its stop
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert task.cancelled()
        assert not watcher.running, "the task ended while the watch thread still ran"
        after_end.extend(reports)
        await asyncio.sleep(0.5)  # a late report would land here

    asyncio.run(main())
    assert reports == after_end == []  # the cancelled scan's report never reached the loop
    assert thread_errors == []
    watcher.stop()  # idempotent
    watcher.stop()
    assert not watcher.running


def test_a_scan_stuck_past_the_stop_timeout_never_posts_to_the_closed_loop(
    lib: Library, tmp_path: Path, thread_errors: list[BaseException]
) -> None:
    reports: list[Any] = []
    watcher = _watcher(lib, tmp_path, reports, linger=1.0)

    async def main() -> None:
        task = asyncio.ensure_future(watcher.arun(stop_timeout=0.1))
        await asyncio.to_thread(watcher.sync.scanning.wait, 10)  # type: ignore[attr-defined]
        for _ in range(3):
            task.cancel()
            await asyncio.sleep(0)
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(main())  # the loop is closed now; the scan is still busy
    assert watcher.running
    deadline = time.monotonic() + 10
    while watcher.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not watcher.running  # it ended on its own, once the file was read
    assert reports == []
    assert thread_errors == []
