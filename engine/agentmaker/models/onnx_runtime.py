"""The one way the engine gets ``onnxruntime``: with its telemetry off before it loads.

What the PyPI wheel does (onnxruntime 1.32, Linux, measured under a fresh ``HOME``):

- ``import onnxruntime`` alone, before any session, writes
  ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid`` and an event queue
  ``onnxruntime.db`` there (1DS telemetry, uploaded to ``mobile.events.data.microsoft.com``);
- ``onnxruntime.disable_telemetry_events()``, even called before the first session,
  does not stop those files: the telemetry system already started at import;
- ``ORT_DISABLE_TELEMETRY=1`` in the environment before the import does: no file, no
  event queue, and so nothing for the uploader to send.

So :func:`disable_telemetry` sets the variable (``import agentmaker`` calls it, so
third-party code that imports onnxruntime later, such as RapidOCR, is covered), and
:func:`ort` imports onnxruntime after it and also turns the events off, for builds
that would ignore the variable. ``tests/engine/models/test_onnx_runtime.py`` checks
that no other engine module imports onnxruntime.
"""

from __future__ import annotations

import os
import threading
from types import ModuleType

#: Read by onnxruntime when it loads; "1" keeps its telemetry system from starting.
TELEMETRY_VARIABLE = "ORT_DISABLE_TELEMETRY"
_lock = threading.Lock()
_module: ModuleType | None = None


def disable_telemetry() -> None:
    """Keep onnxruntime's telemetry off in this process (cheap; call before it loads)."""
    os.environ[TELEMETRY_VARIABLE] = "1"


def ort() -> ModuleType:
    """The ``onnxruntime`` module, imported with telemetry off (once per process)."""
    global _module
    with _lock:
        if _module is None:
            disable_telemetry()
            import onnxruntime

            if hasattr(onnxruntime, "disable_telemetry_events"):
                onnxruntime.disable_telemetry_events()
            _module = onnxruntime
        return _module
