"""One window per library: a second launch brings the first window forward instead.

The first app to open a library listens on a local socket named after the library's
real path (``QLocalServer``: a Unix socket, a named pipe on Windows). A later launch for
the same library connects, asks it to show its window, and exits. A socket left behind
by a crashed app answers nobody, so it is removed and taken over.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

_MESSAGE = b"show\n"
_TIMEOUT_MS = 1000


def server_name(library: Path) -> str:
    """The socket name for a library (per user, so two people on one machine are apart)."""
    real = os.path.normcase(os.path.realpath(os.fspath(library)))
    user = os.environ.get("USER") or os.environ.get("USERNAME") or ""
    digest = hashlib.sha256(f"{user}\0{real}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"agentmaker-desk-{digest[:20]}"


def ask_running_instance(library: Path) -> bool:
    """True when another app has this library open (it was asked to show its window)."""
    socket = QLocalSocket()
    try:
        socket.connectToServer(server_name(library))
        if not socket.waitForConnected(_TIMEOUT_MS):
            return False
        socket.write(_MESSAGE)
        socket.flush()
        socket.waitForBytesWritten(_TIMEOUT_MS)
        return True
    finally:
        socket.abort()


class SingleInstance(QObject):
    """Listens for later launches on the same library; ``activationRequested`` says so."""

    activationRequested = Signal()

    def __init__(self, library: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = server_name(library)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_connection)
        self._sockets: list[QLocalSocket] = []  # Python owns them until they are read

    def listen(self) -> bool:
        """Start listening; a stale socket of a crashed app is removed first if needed."""
        if self._server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self._server.listen(self.name)

    def close(self) -> None:
        """Stop listening (the app is quitting)."""
        self._server.close()
        for socket in self._sockets:
            socket.abort()
        self._sockets.clear()

    def _on_connection(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            self._sockets.append(socket)
            socket.readyRead.connect(self._read)

    def _read(self) -> None:
        for socket in list(self._sockets):
            if socket.bytesAvailable() <= 0:
                continue
            message = bytes(socket.readAll().data())
            self._sockets.remove(socket)
            socket.abort()
            if message.startswith(_MESSAGE.strip()):
                self.activationRequested.emit()
