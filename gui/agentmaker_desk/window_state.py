"""Remembering the window's size, position and splitter positions between runs.

Stored with the other settings (``window/geometry``, ``window/splitter-<name>``), as
Qt's own opaque state blobs: restoring them adapts to a screen that has changed.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QMainWindow, QSplitter


def capture_window_state(
    window: QMainWindow, splitters: dict[str, QSplitter]
) -> dict[str, QByteArray]:
    """The window geometry and each splitter's state, by name."""
    state = {"geometry": window.saveGeometry()}
    for name, splitter in splitters.items():
        state[f"splitter-{name}"] = splitter.saveState()
    return state


def restore_window_state(
    window: QMainWindow, splitters: dict[str, QSplitter], state: dict[str, QByteArray]
) -> bool:
    """Apply a state from :func:`capture_window_state`; True when the geometry was restored."""
    for name, splitter in splitters.items():
        saved = state.get(f"splitter-{name}")
        if saved is not None:
            splitter.restoreState(saved)
    geometry = state.get("geometry")
    return geometry is not None and window.restoreGeometry(geometry)
