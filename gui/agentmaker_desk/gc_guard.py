"""Python's garbage collector, run on the GUI thread only.

CPython collects cyclic garbage in whichever thread happens to allocate when a
generation's threshold is crossed: often an engine worker thread (ingestion, OCR,
re-embedding, the folder watcher). When that garbage holds Qt objects (a closed
dialog, a model, a timer, a signal connection), their C++ destructors then run on the
worker thread while the GUI thread is inside Qt's event processing: the intermittent
segfault of issue 21 (main thread in Qt, worker threads alive). So automatic
collection is turned off and a timer on the GUI thread collects instead, at the same
thresholds.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: How often the GUI thread looks at the collector's counts.
CHECK_MS = 500


class GuiThreadCollector(QObject):
    """Turns off automatic collection; collects on the GUI thread when it is due."""

    def __init__(self, parent: QObject | None = None, *, interval_ms: int = CHECK_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        self.collections = 0

    def start(self) -> None:
        """From now on only the GUI thread collects (idempotent)."""
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Give collection back to Python (and collect once, here)."""
        self._timer.stop()
        gc.enable()
        gc.collect()

    def check(self) -> None:
        """Collect the generations whose count crossed Python's own threshold."""
        counts = gc.get_count()
        generation = -1
        for number, (count, threshold) in enumerate(zip(counts, self._thresholds, strict=True)):
            if threshold and count > threshold:
                generation = number
        if generation >= 0:
            gc.collect(generation)
            self.collections += 1
