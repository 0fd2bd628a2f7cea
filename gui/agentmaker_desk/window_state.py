"""Remembering the window's size, position and splitter positions between runs.

Stored with the other settings (``window/geometry``, ``window/splitter-<name>``), as
Qt's own opaque state blobs: restoring them adapts to a screen that has changed.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtWidgets import QMainWindow, QSplitter

#: The size the window would like; smaller when the screen is (a 1366×768 laptop).
PREFERRED_SIZE = QSize(1280, 820)
#: Share of the screen's free area a new window may take at most.
SCREEN_SHARE = 0.92


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
    restored = geometry is not None and window.restoreGeometry(geometry)
    fit_to_screen(window)
    return restored


def default_size(available: QRect) -> QSize:
    """The first-run size: the preferred size, shrunk to fit the screen's free area."""
    return QSize(
        min(PREFERRED_SIZE.width(), int(available.width() * SCREEN_SHARE)),
        min(PREFERRED_SIZE.height(), int(available.height() * SCREEN_SHARE)),
    )


def fit_to_screen(window: QMainWindow) -> None:
    """Keep the window inside its screen's free area (a size saved on a bigger screen,
    or at another scale factor, no longer fits)."""
    screen = window.screen()
    if screen is None or window.isMaximized() or window.isFullScreen():
        return
    available = screen.availableGeometry()
    frame = window.frameGeometry()
    extra = frame.size() - window.geometry().size()  # title bar and borders
    width = min(window.width(), available.width() - extra.width())
    height = min(window.height(), available.height() - extra.height())
    if (width, height) != (window.width(), window.height()):
        window.resize(width, height)
        frame = window.frameGeometry()
    x = min(max(frame.x(), available.left()), available.right() - frame.width() + 1)
    y = min(max(frame.y(), available.top()), available.bottom() - frame.height() + 1)
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)
