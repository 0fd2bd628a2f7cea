"""Part of the bridge: progress reports from a worker thread, delivered in batches.

The engine reports progress from the worker thread doing the work, often several
reports per file (queued, reading, one per embedding batch, done). Posting each one to
the GUI thread costs the GUI thread several trips into Python (the queued call, the
loop's timer for it, the slot), and each trip first has to win the GIL from the busy
worker.

A :class:`ProgressRelay` lets the worker only store its report (under a lock: no Qt
call, no wake-up of the GUI thread). While it runs, a timer on the GUI thread delivers
what came in every ``interval_ms``: for each key the newest report, the key updated
most recently last, so the last report delivered is always the newest one.

The worker's report is also where it hands the GIL over. CPython's GIL is not fair to
a thread that waits for it: the waiting thread asks the running one to let go only when
the GIL has not changed hands for a whole switch interval (5 ms), and a worker that
releases it for a moment and takes it straight back, again and again (NumPy on small
arrays, one SQLite statement after another, a tokenizer called per piece), "changes
hands" with itself each time, before the woken GUI thread can take it. The GUI thread
then waits for as long as that loop runs: measured 0.3-1.3 s while the 3 MB book of
the benchmark corpus is embedded (``benchmarks/gui_latency.py --profile-stalls``). So
a report pauses the worker for ``HANDOVER_PAUSE_S`` at most once every
``HANDOVER_EVERY_S`` (1 ms in 15 at worst): long enough for a waiting GUI thread to
wake up, take the GIL and run what it has queued.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

from PySide6.QtCore import QObject, QTimer

#: How often reports are delivered while work runs: 10 updates a second look live.
INTERVAL_MS = 100
#: A worker reporting progress lets the GUI thread run at least this often…
HANDOVER_EVERY_S: float | None = 0.015
#: …by sleeping (without the GIL) this long.
HANDOVER_PAUSE_S = 0.001


def _one_key(_report: Any) -> Hashable:
    return None


class ProgressRelay(QObject):
    """Collects reports from any thread; ``deliver`` gets them on the GUI thread."""

    def __init__(
        self,
        deliver: Callable[[Any], None],
        key: Callable[[Any], Hashable] = _one_key,
        *,
        interval_ms: int = INTERVAL_MS,
        parent: QObject | None = None,
    ) -> None:
        """``key(report)`` says which reports replace each other (default: all do)."""
        super().__init__(parent)
        self._deliver = deliver
        self._key = key
        self._lock = threading.Lock()
        self._pending: dict[Hashable, Any] = {}
        self._users = 0
        self._handed_over = 0.0  # when a worker last paused for the GUI thread
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)

    def push(self, report: Any) -> None:
        """Store ``report`` for the next delivery (safe from any thread).

        On a worker thread this may pause for a millisecond: see the module's notes.
        """
        key = self._key(report)
        with self._lock:
            self._pending.pop(key, None)  # re-inserted last: delivered after older keys
            self._pending[key] = report
        every = HANDOVER_EVERY_S
        if every is None or threading.current_thread() is threading.main_thread():
            return
        now = time.monotonic()
        if now - self._handed_over >= every:
            self._handed_over = now
            time.sleep(HANDOVER_PAUSE_S)  # the GIL is free meanwhile

    def start(self) -> None:
        """Deliver periodically until the matching :meth:`stop` (GUI thread).

        Reports left from work that was abandoned (a cancelled task whose thread still
        ran on) are dropped: they belong to no running work.
        """
        self._users += 1
        if not self._timer.isActive():
            with self._lock:
                self._pending.clear()
            self._timer.start()

    def stop(self) -> None:
        """Deliver what is left now; stop delivering once the last user stopped."""
        self._users = max(0, self._users - 1)
        if self._users == 0:
            self._timer.stop()
        self.flush()

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def flush(self) -> None:
        """Deliver the stored reports now (GUI thread)."""
        with self._lock:
            if not self._pending:
                return
            reports = list(self._pending.values())
            self._pending.clear()
        for report in reports:
            self._deliver(report)
