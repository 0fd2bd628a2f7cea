"""EngineBridge: the only place the app calls the ``agentmaker`` engine.

Engine work is awaited on the qasync loop; the engine runs it in worker threads.
Results come back as Qt signals. Progress callbacks arrive on worker threads and are
handed to the GUI thread before any signal is emitted, so slots (and widgets) only ever
run on the GUI thread: ingestion and re-embedding reports, which come in bursts, through
a :class:`~agentmaker_desk.bridge.progress_relay.ProgressRelay` (delivered in batches, the
newest report per file), the rest with ``loop.call_soon_threadsafe``.

The bridge has four helpers that belong to it (and also call the engine):
``bridge_models`` (settings → engine objects), ``ocr_runner`` (``bridge.ocr``: scanned
pages read in the background), ``folder_links`` (``bridge.folders``: linked folders
followed by a watcher) and ``conversations`` (``bridge.chats``: chat threads).
Widgets never call the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from agentmaker_desk.bridge import models as bridge_models
from agentmaker_desk.bridge.conversations import ConversationLinks
from agentmaker_desk.bridge.folder_links import FolderLinks
from agentmaker_desk.bridge.ocr_runner import OcrRunner
from agentmaker_desk.bridge.progress_relay import ProgressRelay
from agentmaker_desk.engine_messages import engine_text
from agentmaker_desk.settings.library_choice import is_team_address, strip_password
from agentmaker_desk.settings.settings import ApiKeyStore, DeskSettings, ModelChoice

log = logging.getLogger(__name__)
#: While a batch runs, finished documents are listed again at most this often.
DOCUMENT_REFRESH_SECONDS = 1.5


class EngineBridge(QObject):
    """Opens a library, ingests, browses, answers; reports through signals."""

    libraryOpened = Signal(str)  # path
    libraryFailed = Signal(str)  # plain-language message
    libraryChanged = Signal()  # documents were added, changed or removed
    documentsListed = Signal(list)  # list[DocumentInfo]
    ingestStarted = Signal(list)  # paths of the batch
    ingestProgress = Signal(object)  # IngestProgress
    ingestFinished = Signal(object)  # BatchReport
    ingestFailed = Signal(str)
    reembedProgress = Signal(int, int)  # done, total
    reembedFinished = Signal(bool)  # True when cancelled
    reembedFailed = Signal(str)
    busyChanged = Signal(bool)
    notice = Signal(str)  # a one-line status message

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        embedder: Any = None,
        keys: ApiKeyStore | None = None,
        ocr_engine: Any = None,
        folder_debounce: float = 1.5,
        read_in_process: bool = False,
    ) -> None:
        """``ocr_engine`` replaces the real OCR engine (tests: an object with
        ``read_image(image) -> OcrPage``); ``folder_debounce`` is how long linked folders
        must be quiet before changed files are indexed; ``read_in_process`` reads files
        in a child process (the app: C parsers then cannot stall the event loop)."""
        super().__init__(parent)
        self._read_in_process = read_in_process
        self._embedder = embedder  # None → the engine's built-in local embedder
        self._keys = keys or ApiKeyStore()
        self._lib: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ingest_lock = asyncio.Lock()
        self._ingest_token: Any = None
        self._answer_task: asyncio.Task[Any] | None = None
        self._reembed_token: Any = None
        self._top_k: int | None = None
        self._busy = 0
        self.documents: list[Any] = []
        # Worker-thread progress, delivered on the GUI thread in batches (newest per file).
        self._ingest_relay = ProgressRelay(
            self.ingestProgress.emit, lambda p: str(getattr(p, "path", "")), parent=self
        )
        self._reembed_relay = ProgressRelay(
            lambda counts: self.reembedProgress.emit(*counts), parent=self
        )
        self._listing_soon = False
        self._listed_at = 0.0
        self.ingestProgress.connect(self._list_new_documents)
        self.ocr = OcrRunner(self, ocr_engine)
        self.folders = FolderLinks(self, debounce=folder_debounce)
        self.chats = ConversationLinks(self, self)

    # --- background tasks ------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> asyncio.Task[Any]:
        """Run ``coro`` on the loop, keeping a reference until it ends.

        An unexpected exception goes to ``sys.excepthook`` (logged and shown); the
        engine's own typed errors are turned into failure signals by each operation.
        """
        task = asyncio.ensure_future(coro)
        if name:
            task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            sys.excepthook(type(error), error, error.__traceback__)

    @property
    def tasks(self) -> set[asyncio.Task[Any]]:
        """Background tasks still running."""
        return set(self._tasks)

    async def wait_idle(self) -> None:
        """Wait until every background task has ended (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _set_busy(self, delta: int) -> None:
        before = self._busy > 0
        self._busy += delta
        if (self._busy > 0) != before:
            self.busyChanged.emit(self._busy > 0)

    def mark_busy(self, delta: int) -> None:
        """One more (+1) or one less (-1) piece of work that makes the app busy."""
        self._set_busy(delta)

    @property
    def busy(self) -> bool:
        """True while an ingestion, answer or re-embedding runs."""
        return self._busy > 0

    def post(self, fn: Callable[..., None], *args: Any) -> None:
        """Call ``fn(*args)`` on the GUI thread (safe from any thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (app quitting)
            loop.call_soon_threadsafe(fn, *args)

    # --- the library --------------------------------------------------------------

    @property
    def library(self) -> Any:
        """The open :class:`agentmaker.library.Library`, or None."""
        return self._lib

    @property
    def source_store(self) -> Any:
        """The open library's SourceStore (the chunk browser reads it), or None."""
        return self._lib.source_store if self._lib is not None else None

    def loader(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """Run a SourceStore read on a worker thread; ``done`` gets the result on the GUI thread."""
        loop = asyncio.get_event_loop()
        future = loop.run_in_executor(None, work)

        def finished(f: asyncio.Future[Any]) -> None:
            if f.cancelled():
                return
            if f.exception() is not None:
                error = f.exception()
                self.notice.emit(engine_text(error))
                log.warning("library read failed: %s", error)
                return
            done(f.result())

        future.add_done_callback(finished)

    def warm_up(self) -> None:
        """Build what the first ingestion would otherwise build on its worker thread while
        holding the GIL (the tokenizer: ~50-90 ms, a visible stall of the window). Call it
        before the window shows.
        """
        from agentmaker.rag.chunking.tokens import get_encoding

        get_encoding()

    async def open_library(
        self,
        path: str | Path,
        *,
        llm: Any = None,
        settings: DeskSettings | None = None,
        password: str | None = None,
    ) -> bool:
        """Open (or create) the library file at ``path``, or the team library at a
        ``postgresql://`` address (``password`` from the keyring); False (and a signal)
        on failure. ``libraryOpened`` never carries the password."""
        from agentmaker.errors import AgentmakerError
        from agentmaker.library import Library

        self._loop = asyncio.get_running_loop()
        await self.close_library()
        team = is_team_address(str(path))
        shown = strip_password(str(path))[0] if team else str(Path(path))
        target: str | Path = str(path) if team else Path(path)
        if team and password:
            from agentmaker.retrieval.postgres.check import with_credentials

            target = with_credentials(str(path), password=password)
        try:
            if isinstance(target, Path):
                target.parent.mkdir(parents=True, exist_ok=True)
            config = self._rag_config(settings) if settings is not None else None
            embedder = self._embedder
            if embedder is None and settings is not None and settings.embedder.kind == "server":
                embedder = self.make_embedder(settings.embedder)
            lib = await asyncio.to_thread(
                Library.open,
                target,
                embedder=embedder,
                llm=llm,
                config=config,
                reader_process=self._read_in_process,
            )
        except (AgentmakerError, OSError) as error:
            message = engine_text(error)
            if password:  # a driver message might quote the address it was given
                message = message.replace(password, "********")
            self.libraryFailed.emit(message)
            return False
        try:
            await asyncio.to_thread(self.ocr.attach, lib, settings.ocr if settings else True)
            await self.folders.aattach(lib)
        except (AgentmakerError, OSError) as error:
            await self.folders.adetach()
            await asyncio.to_thread(lib.close)
            self.libraryFailed.emit(engine_text(error))
            return False
        self._lib = lib
        if settings is not None:
            self._top_k = settings.retrieval.top_k
            if llm is None:
                self.apply_model(settings.llm)
        self.libraryOpened.emit(shown)
        await self.refresh_documents()
        await self.chats.refresh()
        if getattr(self._lib, "needs_rebuild", False):
            # A change of embedder was interrupted last time: finish it in the background.
            self.spawn(self.reembed(self._lib.embedder), "reembed")
        self.ocr.start()  # scanned pages left from last time
        return True

    async def close_library(self) -> None:
        """Stop running work and close the library file."""
        self.stop_answer()
        self.cancel_ingest()
        if self._reembed_token is not None:
            self._reembed_token.cancel()
        self.ocr.close()
        await self.folders.adetach()
        current = asyncio.current_task()
        others = [t for t in self._tasks if t is not current]
        if others:
            await asyncio.gather(*others, return_exceptions=True)
        await self.ocr.adetach()
        if self._lib is not None:
            lib, self._lib = self._lib, None
            await asyncio.to_thread(lib.close)
        self.documents = []
        self.chats.forget()

    async def refresh_documents(self) -> list[Any]:
        """Re-list the library's documents (off the GUI thread) and emit ``documentsListed``."""
        self._listed_at = time.monotonic()
        if self._lib is None:
            return []
        store = self._lib.source_store
        self.documents = await asyncio.to_thread(store.list_documents)
        self.documentsListed.emit(list(self.documents))
        return self.documents

    async def get_chunk(self, chunk_id: str) -> Any:
        """The stored chunk ``chunk_id`` (off the GUI thread), or None."""
        if self._lib is None:
            return None
        return await asyncio.to_thread(self._lib.source_store.get_chunk, chunk_id)

    async def document_text(self, doc_id: str) -> str | None:
        """The document's full text (off the GUI thread), or None."""
        if self._lib is None:
            return None
        return await asyncio.to_thread(self._lib.source_store.document_text, doc_id)

    def document(self, doc_id: str) -> Any:
        """The listed DocumentInfo of ``doc_id``, or None."""
        return next((d for d in self.documents if d.doc_id == doc_id), None)

    # --- ingestion --------------------------------------------------------------------

    def ingest(
        self, paths: Sequence[str | Path], passwords: dict[str, str] | None = None
    ) -> asyncio.Task[Any]:
        """Add files and folders in the background (batches run one after another)."""
        return self.spawn(self.aingest(paths, passwords), "ingest")

    async def aingest(
        self, paths: Sequence[str | Path], passwords: dict[str, str] | None = None
    ) -> Any:
        """Ingest ``paths``; emits ingestStarted/Progress/Finished. Returns the BatchReport."""
        from agentmaker.errors import AgentmakerError
        from agentmaker.rag.ingest.pipeline import CancelToken

        if self._lib is None:
            self.ingestFailed.emit(self.tr("No library is open."))
            return None
        self._loop = asyncio.get_running_loop()
        async with self._ingest_lock:
            token = CancelToken()
            self._ingest_token = token
            names = [str(p) for p in paths]
            self.ingestStarted.emit(names)
            self._set_busy(+1)
            try:
                self._ingest_relay.start()
                try:
                    report = await self._lib.pipeline.aingest_paths(
                        names, progress=self._on_progress, cancel=token, passwords=passwords or {}
                    )
                finally:
                    self._ingest_relay.stop()  # progress not delivered yet comes first
            except asyncio.CancelledError:
                token.cancel()
                raise
            except AgentmakerError as error:
                report = getattr(error, "report", None)  # e.g. the disk filled mid-batch
                if report is not None:  # the files committed before it stay listed
                    self.ingestFinished.emit(report)
                self.ingestFailed.emit(engine_text(error))
                if report is not None:
                    await self.refresh_documents()
                    self.libraryChanged.emit()
                return None
            finally:
                self._ingest_token = None
                self._set_busy(-1)
            self.ingestFinished.emit(report)
            if report.by_status("ocr_queued"):
                self.ocr.start()
            await self.refresh_documents()
            self.libraryChanged.emit()
            return report

    def _list_new_documents(self, progress: Any) -> None:
        """A file of a running batch was indexed: list the documents again (at most every
        ``DOCUMENT_REFRESH_SECONDS``), so it can be browsed and asked about at once."""
        if getattr(progress, "stage", None) != "indexed" or self._listing_soon:
            return
        self._listing_soon = True

        async def list_soon() -> None:
            try:
                wait = DOCUMENT_REFRESH_SECONDS - (time.monotonic() - self._listed_at)
                if wait > 0:
                    await asyncio.sleep(wait)
                if self._lib is not None:
                    await self.refresh_documents()
            finally:
                self._listing_soon = False

        self.spawn(list_soon(), "list-documents")

    def _on_progress(self, progress: Any) -> None:
        # Called on the engine's worker thread: only stored; the relay's timer emits
        # ingestProgress on the GUI thread (a few times a second, newest per file).
        self._ingest_relay.push(progress)

    def cancel_ingest(self) -> None:
        """Ask the running ingestion to stop after the current step."""
        if self._ingest_token is not None:
            self._ingest_token.cancel()

    async def remove_document(self, doc_id: str) -> None:
        """Remove a document from the library."""
        if self._lib is None:
            return
        await self.ocr.forget(doc_id)
        await self._lib.pipeline.adelete_document(doc_id)
        await self.refresh_documents()
        self.libraryChanged.emit()

    async def reindex_document(self, doc_id: str) -> Any:
        """Re-read the document's file; if it is unchanged, re-push its stored chunks."""
        info = self.document(doc_id)
        if self._lib is None or info is None:
            return None
        source = getattr(info, "source", "")
        if source and Path(source).is_file():
            report = await self.aingest([source])
            if report is None or any(f.status != "unchanged" for f in report.files):
                return report
        await asyncio.to_thread(self._lib.pipeline.reindex_document, doc_id)
        self.notice.emit(self.tr("Re-indexed “{name}”.").format(name=info.title or source))
        return None

    # --- asking ----------------------------------------------------------------------

    def run_answer(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as *the* answer (one at a time): Stop and Esc cancel it."""
        self.stop_answer()
        task = self.spawn(coro, "answer")
        self._answer_task = task
        return task

    async def wait_answer(self) -> None:
        """Wait until the answer task (stopped or not) has ended."""
        task = self._answer_task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    @property
    def top_k(self) -> int | None:
        """Passages per answer from the settings (None: the library's default)."""
        return self._top_k

    async def close_stream(self, stream: Any) -> None:
        """Close an answer stream, best effort (its answer already ended)."""
        await self._close_stream(stream)

    @staticmethod
    async def _close_stream(stream: Any) -> None:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:  # closing is best effort; the answer already ended
                log.debug("closing the answer stream failed", exc_info=True)

    def stop_answer(self) -> None:
        """Stop the answer being written (its text so far stays)."""
        task = self._answer_task
        if task is not None and not task.done():
            task.cancel()

    @property
    def has_model(self) -> bool:
        """True when answers are written by a language model (not extractive)."""
        return self._lib is not None and self._lib.llm is not None

    @property
    def answering(self) -> bool:
        """True while an answer is being written."""
        return self._answer_task is not None and not self._answer_task.done()

    # --- models and settings -----------------------------------------------------------

    async def discover_servers(self) -> list[Any]:
        """Ollama / LM Studio servers running on this computer."""
        return await bridge_models.discover_servers()

    def make_llm(self, choice: ModelChoice) -> Any:
        """An LLM client for ``choice`` (None for "none"); the key comes from the keyring."""
        return bridge_models.make_llm(choice, self._keys)

    def apply_model(self, choice: ModelChoice) -> None:
        """Use this language model from the next question on."""
        if self._lib is None:
            return
        previous = self._lib.rag.llm
        if choice.kind == "local" and str(getattr(previous, "path", "")) == choice.model:
            return  # the same model file: keep it loaded
        try:
            llm = self.make_llm(choice)
        except Exception as error:  # a bad URL or missing package is a message, not a crash
            self.notice.emit(engine_text(error))
            llm = None
        self._lib.set_llm(llm)
        release = getattr(previous, "release", None)  # a local model gives its memory back
        if callable(release):
            release()

    def apply_settings(self, settings: DeskSettings) -> None:
        """Language model and retrieval options (embedder changes go through reembed)."""
        self._top_k = settings.retrieval.top_k
        self.ocr.set_enabled(settings.ocr)
        lib = self._lib
        if lib is None:
            return
        try:
            config = self._rag_config(settings)
        except Exception as error:  # e.g. an invalid option: keep the old config
            self.notice.emit(engine_text(error))
            return
        lib.configure(config)
        self.apply_model(settings.llm)  # also rebuilds the query transformer for the model

    def _rag_config(self, settings: DeskSettings) -> Any:
        """The engine's RagConfig for these settings."""
        return bridge_models.rag_config(settings, self._keys, self.notice.emit)

    def make_embedder(self, choice: ModelChoice) -> Any:
        """The embedder for ``choice`` (the built-in local one for "builtin")."""
        return bridge_models.make_embedder(choice, self._keys)

    async def reembed(self, embedder: Any) -> bool:
        """Re-compute every vector with ``embedder``; True when it completed."""
        from agentmaker.errors import AgentmakerError, OperationCancelledError
        from agentmaker.rag.ingest.pipeline import CancelToken

        if self._lib is None:
            return False
        token = CancelToken()
        self._reembed_token = token
        self._set_busy(+1)
        self.reembedProgress.emit(0, 0)  # started; the total comes with the first document

        def progress(done: int, total: int) -> None:
            # On the worker thread: the relay emits reembedProgress on the GUI thread.
            self._reembed_relay.push((int(done), int(total)))

        try:
            self._reembed_relay.start()
            try:
                await self._lib.areembed(embedder, progress=progress, cancel=token)
            finally:
                self._reembed_relay.stop()  # progress not delivered yet comes first
        except OperationCancelledError:
            self.reembedFinished.emit(True)
            return False
        except AgentmakerError as error:
            self.reembedFailed.emit(engine_text(error))
            return False
        finally:
            self._reembed_token = None
            self._set_busy(-1)
        self.reembedFinished.emit(False)
        return True

    def cancel_reembed(self) -> None:
        """Stop re-embedding (the library keeps working with the old vectors)."""
        if self._reembed_token is not None:
            self._reembed_token.cancel()
