"""Part of the bridge: progress reports from a worker thread, delivered in batches.

The engine reports progress from the worker thread doing the work, often several
reports per file (queued, reading, one per embedding batch, done). Posting each one to
the GUI thread costs the GUI thread several trips into Python (the queued call, the
loop's timer for it, the slot), and while the worker runs Python every trip first waits
for the GIL: up to the interpreter's switch interval (5 ms) each. A burst of reports
then freezes the window for tens of milliseconds although each slot is quick.

A :class:`ProgressRelay` lets the worker only store its report (under a lock: no Qt
call, no wake-up of the GUI thread). While it runs, a timer on the GUI thread delivers
what came in every ``interval_ms``: for each key the newest report, the key updated
most recently last, so the last report delivered is always the newest one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

from PySide6.QtCore import QObject, QTimer

#: How often reports are delivered while work runs: 10 updates a second look live.
INTERVAL_MS = 100


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
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)

    def push(self, report: Any) -> None:
        """Store ``report`` for the next delivery (safe from any thread)."""
        key = self._key(report)
        with self._lock:
            self._pending.pop(key, None)  # re-inserted last: delivered after older keys
            self._pending[key] = report

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
