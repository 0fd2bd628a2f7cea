"""What the bridge's parts (folder links, OCR runner) need of the bridge: :class:`BridgeHost`.

They take this protocol instead of importing :class:`~agentmaker_desk.bridge.bridge.EngineBridge`,
which creates them, so the modules do not import each other in a circle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtCore import SignalInstance


class BridgeHost(Protocol):
    """The bridge as its parts see it."""

    libraryChanged: SignalInstance
    notice: SignalInstance
    ocr: Any  # the OcrRunner (folder links start it after a scan)

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> asyncio.Task[Any]:
        """Run ``coro`` on the loop, keeping a reference until it ends."""

    def post(self, fn: Callable[..., None], *args: Any) -> None:
        """Call ``fn(*args)`` on the GUI thread (safe from any thread)."""

    async def refresh_documents(self) -> list[Any]:
        """Re-list the library's documents and emit ``documentsListed``."""
