"""Garbage holding Qt objects is destroyed on the GUI thread, never on a worker thread.

Issue 21's intermittent segfault: a collection triggered by a worker thread's
allocations ran Qt destructors there while the GUI thread was in Qt's event loop.
"""

from __future__ import annotations

import gc
import threading
import weakref

from agentmaker_desk.gc_guard import GuiThreadCollector
from PySide6.QtCore import QObject


def test_qt_garbage_made_on_a_worker_thread_is_collected_on_the_gui_thread(
    gui_thread_collector: GuiThreadCollector,
) -> None:
    destroyed_on: list[str] = []

    def worker() -> None:
        for _ in range(300):
            obj = QObject()
            cycle: list[object] = [obj]
            cycle.append(cycle)  # only the cycle collector can free it
            weakref.finalize(obj, lambda: destroyed_on.append(threading.current_thread().name))
        # Enough allocations to cross every generation's threshold in this thread.
        keep = [[object()] for _ in range(50_000)]
        del keep

    thread = threading.Thread(target=worker, name="engine-worker")
    thread.start()
    thread.join()
    assert not gc.isenabled()
    assert destroyed_on == []  # nothing was collected on the worker thread
    gui_thread_collector.check()
    gc.collect()
    assert destroyed_on and set(destroyed_on) == {threading.main_thread().name}
