"""GUI test fixtures: an explicit qasync loop, and a window over a real library file."""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

import pytest
import qasync
from agentmaker.testing import FakeEmbedder
from agentmaker_desk.bridge.bridge import EngineBridge
from agentmaker_desk.gc_guard import GuiThreadCollector
from agentmaker_desk.main_window import MainWindow
from agentmaker_desk.settings.settings import ApiKeyStore, SettingsStore
from PySide6.QtWidgets import QApplication

from tests.gui.helpers import StubOcrEngine


class TestEventLoop(qasync.QEventLoop):
    """qasync's loop without the extra Qt event pass after ``run_until_complete``.

    qasync runs Qt's events once more after the loop stopped, with no running asyncio
    loop set, so a task stepped then fails ("no running event loop") in ``to_thread``.
    The app runs one ``run_until_complete`` for its whole life and never meets this; a
    test starts and stops the loop hundreds of times, so here pending events simply
    wait for the next run.
    """

    def run_until_complete(self, future: Any) -> Any:
        if self.is_running():
            raise RuntimeError("Event loop already running")
        future = asyncio.ensure_future(future, loop=self)

        def stop(_future: Any) -> None:
            self.stop()

        future.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            future.remove_done_callback(stop)
        if not future.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return future.result()


class Loop:
    """A qasync loop with helpers to drive coroutines and wait for conditions."""

    def __init__(self, loop: qasync.QEventLoop) -> None:
        self.loop = loop

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 20.0) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def until(self, predicate: Callable[[], Any], timeout: float = 20.0) -> None:
        async def wait() -> None:
            deadline = time.monotonic() + timeout
            while not predicate():
                if time.monotonic() > deadline:
                    raise AssertionError("condition not met in time")
                await asyncio.sleep(0.01)

        self.loop.run_until_complete(wait())

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` (e.g. a simulated click) while the loop runs, so the tasks it starts
        (and any events Qt processes meanwhile) see a running asyncio loop."""

        async def inside() -> Any:
            return fn()

        return self.loop.run_until_complete(inside())

    def settle(self, seconds: float = 0.05) -> None:
        self.loop.run_until_complete(asyncio.sleep(seconds))


@pytest.fixture(scope="session", autouse=True)
def gui_thread_collector(qapp: QApplication) -> Iterator[GuiThreadCollector]:
    """As in the app: garbage (Qt objects among it) is collected on the GUI thread only."""
    collector = GuiThreadCollector(qapp)
    collector.start()
    yield collector
    collector.stop()


@pytest.fixture(scope="session", autouse=True)
def english_interface(qapp: QApplication) -> None:
    """As the app does at start: English, with its plural forms ("1 passage")."""
    from agentmaker_desk.i18n import install_language

    install_language("en")


@pytest.fixture(autouse=True)
def collect_after_each_test(gui_thread_collector: GuiThreadCollector) -> Iterator[None]:
    """A test's widgets, loops and bridges are collected here, on the GUI thread."""
    yield
    gc.collect()


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[Loop]:
    loop = TestEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    try:
        yield Loop(loop)
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "settings.ini"
    monkeypatch.setenv("AGENTMAKER_DESK_SETTINGS", str(path))
    return path


def make_desk(
    qloop: Loop,
    qtbot: Any,
    library: Path,
    settings_file: Path,
    ocr: Any = None,
    embedder: Any = None,
) -> MainWindow:
    """A shown MainWindow over ``library`` with a fake embedder and a stub OCR engine."""
    store = SettingsStore(settings_file)
    bridge = EngineBridge(
        embedder=embedder or FakeEmbedder(),
        keys=ApiKeyStore(),
        ocr_engine=ocr or StubOcrEngine(),
        folder_debounce=0.2,
    )
    window = MainWindow(bridge, store, bridge._keys)
    qtbot.addWidget(window)
    window.show()
    assert qloop.run(bridge.open_library(library))
    # The linked-folder watcher's first scan reports on the loop: let it land now, so
    # synchronous widget code in a test never runs its callbacks outside the loop.
    assert qloop.run(bridge.folders.wait_idle())
    return window


@pytest.fixture
def desk(qloop: Loop, qtbot: Any, tmp_path: Path, settings_file: Path) -> Iterator[MainWindow]:
    """A shown MainWindow over a fresh library file, with the fake embedder."""
    window = make_desk(qloop, qtbot, tmp_path / "Library.agentmaker.sqlite", settings_file)
    yield window
    qloop.run(window.bridge.close_library())
