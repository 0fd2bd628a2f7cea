"""Part of the bridge: local language models for the window (installed, download, import).

Wraps the engine's model store, catalog and resumable download in Qt signals. A
download runs on a Python thread; its progress reaches the GUI thread as queued signals
(the receiver lives there), so widgets are only touched on the GUI thread.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal

from agentmaker_desk.engine_messages import engine_text


class ModelDownloads(QObject):
    """The models on this computer and the one download in progress."""

    progress = Signal(float, float, float, float)  # done bytes, total (0: unknown), B/s, eta s
    finished = Signal(str)  # the model file's path
    failed = Signal(str)  # a message for people
    cancelled = Signal()

    def __init__(self, folder: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from agentmaker.models.model_store import ModelStore

        self.store = ModelStore(folder)
        self._job: Any = None
        self._thread: threading.Thread | None = None

    # --- what there is ------------------------------------------------------------------

    def recommended(self) -> Any:
        """The catalog model to offer on this computer (by its memory)."""
        from agentmaker.models.model_catalog import recommend

        return recommend()

    def catalog(self) -> list[Any]:
        from agentmaker.models.model_catalog import load_catalog

        return load_catalog()

    def installed(self) -> list[Any]:
        """Installed models (name, path, size_bytes, display_name, linked)."""
        return self.store.list()

    def remove(self, name: str) -> str:
        """Delete (or, for an imported file, forget) an installed model; "" when done,
        else a message for people."""
        from agentmaker.errors import AgentmakerError

        try:
            self.store.remove(name)
        except AgentmakerError as error:
            return str(error)
        return ""

    def use_file(self, path: str) -> tuple[str, str]:
        """Check a ``.gguf`` picked by the person and remember it.

        ``(model path, "")`` when usable, else ``("", a message for people)``.
        """
        from agentmaker.errors import AgentmakerError

        try:
            model, _info = self.store.link(path)
        except AgentmakerError as error:
            return "", engine_text(error)
        return str(model.path), ""

    @property
    def downloading(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # --- downloading --------------------------------------------------------------------

    def start(self, entry: Any, url: str | None = None) -> None:
        """Download catalog ``entry`` in the background (``url`` overrides, for tests)."""
        from agentmaker.models.model_download import ModelDownload

        if self.downloading:
            return
        job = ModelDownload.for_catalog(entry, self.store.folder, progress=self._relay)
        if url is not None:
            job.url = url
        self._job = job
        self._thread = threading.Thread(target=self._run, args=(job,), daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        """Stop the download; nothing is left on disk."""
        if self._job is not None:
            self._job.cancel()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the download thread ends (for tests and shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _relay(self, p: Any) -> None:
        self.progress.emit(float(p.done), float(p.total or 0), float(p.speed), float(p.eta_s or 0))

    def _run(self, job: Any) -> None:
        from agentmaker.errors import AgentmakerError, OperationCancelledError

        try:
            path = job.run()
        except OperationCancelledError:
            self.cancelled.emit()
        except (AgentmakerError, OSError) as error:
            self.failed.emit(engine_text(error))
        else:
            self.finished.emit(str(path))
