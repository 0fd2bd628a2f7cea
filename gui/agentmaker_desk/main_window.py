"""The main window, chat first: chats and the library on the left, the transcript and
the question box in the centre, the passage in its document on the right."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.bridge import team_library
from agentmaker_desk.bridge.bridge import EngineBridge
from agentmaker_desk.bridge.model_downloads import ModelDownloads
from agentmaker_desk.chat.ask_box import AskBar, local_paths
from agentmaker_desk.chat.conversation_list import ConversationList
from agentmaker_desk.chat.model_offer import add_model_offer
from agentmaker_desk.chat.source_view import SourceView
from agentmaker_desk.chat.transcript import TranscriptView
from agentmaker_desk.engine_messages import engine_text
from agentmaker_desk.library.chunk_browser import ChunkBrowser
from agentmaker_desk.library.chunk_tree_model import document_title
from agentmaker_desk.library.ingest_panel import IngestPanel
from agentmaker_desk.library.link_offer import LinkOffer
from agentmaker_desk.settings.dialog import SettingsDialog
from agentmaker_desk.settings.library_choice import LibraryChoice, is_team_address
from agentmaker_desk.settings.password_flow import PasswordFlow
from agentmaker_desk.settings.settings import (
    ApiKeyStore,
    DeskSettings,
    SettingsStore,
    default_library_path,
)
from agentmaker_desk.theme import apply_theme
from agentmaker_desk.widgets.activity_bar import ActivityBar
from agentmaker_desk.widgets.drop_overlay import DropOverlay
from agentmaker_desk.widgets.empty_state import EmptyLibraryView
from agentmaker_desk.widgets.icons import icon
from agentmaker_desk.window_actions import build_actions
from agentmaker_desk.window_chat import WindowChat
from agentmaker_desk.window_state import (
    capture_window_state,
    default_size,
    restore_window_state,
)


class MainWindow(WindowChat, QMainWindow):
    """The whole app window; every engine call goes through ``bridge``."""

    languageChangeRequested = Signal(str)

    def __init__(
        self,
        bridge: EngineBridge,
        store: SettingsStore,
        keys: ApiKeyStore,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.store = store
        self.keys = keys
        self.settings: DeskSettings = store.load()
        self._regenerating = False
        self._shown_chunk_id: str | None = None
        self._dialogs: set[QWidget] = set()
        self.passwords = PasswordFlow(bridge, self)
        self.setObjectName("mainWindow")
        self.setWindowTitle(self.tr("agentmaker Desk"))
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        screen = self.screen()
        if screen is not None:
            self.resize(default_size(screen.availableGeometry()))

        self._build_widgets()
        build_actions(self)
        self._connect_bridge()
        self.browser.set_source(bridge.source_store, bridge.loader)
        self._show_documents(bridge.documents)
        self.ingest_panel.set_ocr_enabled(self.settings.ocr)
        restore_window_state(self, self._splitters(), store.window_state())

    # --- construction -------------------------------------------------------------

    def _build_widgets(self) -> None:
        self.browser = ChunkBrowser(self)
        self.conversation_list = ConversationList(self)
        self.transcript = TranscriptView(self)
        self.ask_bar = AskBar(self)
        self.source_view = SourceView(self)
        self.ingest_panel = IngestPanel(self)
        self.ingest_panel.setVisible(False)
        self.empty_view = EmptyLibraryView(self)
        self.link_offer = LinkOffer(self)

        self.sidebar = QTabWidget(self)
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setDocumentMode(True)
        self.sidebar.addTab(self.conversation_list, icon("chat"), self.tr("Chats"))
        self.sidebar.addTab(self.browser, icon("folder"), self.tr("Library"))

        chat_area = QWidget(self)
        chat_layout = QVBoxLayout(chat_area)
        chat_layout.setContentsMargins(0, 0, 0, 0)
        chat_layout.addWidget(self.transcript, 1)
        chat_layout.addWidget(self.ask_bar)

        self.main_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_splitter.addWidget(self.sidebar)
        self.main_splitter.addWidget(chat_area)
        self.main_splitter.addWidget(self.source_view)
        self.main_splitter.setStretchFactor(1, 1)
        self.main_splitter.setSizes([290, 600, 380])

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty_view)
        self.stack.addWidget(self.main_splitter)

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.link_offer)
        #: Models on this computer and the one download in progress (the first-run offer
        #: and Settings both follow it, so a download survives closing the dialog).
        self.model_downloads = ModelDownloads(parent=self)
        self.model_offer = add_model_offer(self, layout)  # first run only: a local model
        self.outer_splitter = QSplitter(Qt.Orientation.Vertical, central)
        self.outer_splitter.addWidget(self.stack)
        self.outer_splitter.addWidget(self.ingest_panel)
        self.outer_splitter.setSizes([600, 220])
        self.outer_splitter.setChildrenCollapsible(False)
        # The import panel grows by dragging this handle: wide enough to find and grab.
        self.outer_splitter.setHandleWidth(8)
        self.outer_splitter.handle(1).setToolTip(self.tr("Drag to resize the list of files"))
        layout.addWidget(self.outer_splitter)
        self.setCentralWidget(central)

        self.status_label = QLabel(self)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addWidget(self.status_label, 1)
        self.activity = ActivityBar(self)
        self.activity.watch(self.bridge)
        self.activity.message.connect(self._notice)
        self.statusBar().addPermanentWidget(self.activity)

        self.ask_bar.askRequested.connect(self.ask)
        self.ask_bar.stopRequested.connect(self.bridge.stop_answer)
        self.ask_bar.filesDropped.connect(self.add_paths)
        self.transcript.citationClicked.connect(self._citation_clicked)
        self.transcript.regenerateRequested.connect(self.regenerate)
        self.transcript.copied.connect(lambda _t: self._notice(self.tr("Answer copied.")))
        chats = self.bridge.chats
        convs = self.conversation_list
        convs.newRequested.connect(self.new_chat)
        convs.openRequested.connect(self.open_chat)
        convs.renameRequested.connect(lambda cid, t: self.bridge.spawn(chats.rename(cid, t)))
        convs.deleteRequested.connect(lambda cid: self.bridge.spawn(chats.delete(cid)))
        convs.undoRequested.connect(lambda: self.bridge.spawn(chats.undo()))
        convs.searchRequested.connect(lambda text: self.bridge.spawn(chats.search(text)))
        self.browser.chunkSelected.connect(self._chunk_selected)
        self.browser.removeRequested.connect(self.confirm_remove)
        self.browser.reindexRequested.connect(self.reindex)
        self.empty_view.addRequested.connect(self.add_files)
        self.empty_view.addFolderRequested.connect(self.add_folder)
        self.ingest_panel.cancelRequested.connect(self.bridge.cancel_ingest)
        self.ingest_panel.ocrCancelRequested.connect(self.bridge.ocr.cancel)
        self.ingest_panel.retryRequested.connect(self.add_paths)
        self.ingest_panel.passwordRequested.connect(self.passwords.ask_for)
        self.ingest_panel.closeRequested.connect(lambda: self.ingest_panel.setVisible(False))
        for button in (self.browser.failures_button, self.empty_view.failures_button):
            self.ingest_panel.failuresChanged.connect(button.set_count)
            button.clicked.connect(self.show_failures)
        self.link_offer.accepted.connect(self.link_folders)
        # Keyboard order follows the reading order: chats, the conversation, the question,
        # then the passage.
        convs = self.conversation_list
        order = [
            convs.new_button,
            convs.search_edit,
            convs.list,
            self.transcript.browser,
            self.ask_bar.edit,
            self.ask_bar.ask_button,
            self.ask_bar.stop_button,
            self.source_view.text,
        ]
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

    def _connect_bridge(self) -> None:
        # Bound methods only: Qt disconnects them when this window is destroyed.
        b = self.bridge
        b.documentsListed.connect(self._show_documents)
        b.libraryOpened.connect(self._library_opened)
        b.libraryFailed.connect(self._library_failed)
        b.ingestStarted.connect(self._ingest_started)
        b.ingestProgress.connect(self.ingest_panel.update_progress)
        b.ingestFinished.connect(self._ingest_finished)
        b.ingestFailed.connect(self.ingest_panel.fail)
        c = b.chats
        c.listed.connect(self.conversation_list.set_conversations)
        c.searched.connect(self.conversation_list.set_search_results)
        c.opened.connect(self._chat_opened)
        c.deleted.connect(self.conversation_list.offer_undo)
        c.turnStarted.connect(self._turn_started)
        c.turnQuery.connect(self.transcript.set_query)
        c.turnSources.connect(self.transcript.set_sources)
        c.turnPiece.connect(self.transcript.append)
        c.turnFinished.connect(self._turn_finished)
        c.turnFailed.connect(self._turn_failed)
        c.exported.connect(
            lambda path: self._notice(self.tr("Conversation exported to {path}.").format(path=path))
        )
        c.failed.connect(self._notice)
        b.notice.connect(self._notice)
        b.ocr.started.connect(self._ocr_started)
        b.ocr.progress.connect(self.ingest_panel.update_ocr)
        b.ocr.finished.connect(self.ingest_panel.ocr_finished)
        b.ocr.failed.connect(self._notice)
        b.folders.passwordNeeded.connect(self.passwords.announce)
        b.folders.linkFailed.connect(self._notice)

    def _splitters(self) -> dict[str, QSplitter]:
        return {
            "outer": self.outer_splitter,
            "chat": self.main_splitter,
            "browser": self.browser.splitter,
        }

    def save_window_state(self) -> None:
        """Remember the size, position and splitters for the next start."""
        self.store.save_window_state(capture_window_state(self, self._splitters()))

    # --- files in ------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_paths(event.mimeData()):
            event.acceptProposedAction()
            self.drop_overlay.show_over_parent()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        if local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dragLeaveEvent(self, event: Any) -> None:
        self.drop_overlay.hide()

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_overlay.hide()
        paths = local_paths(event.mimeData())
        if paths:
            event.acceptProposedAction()
            self.add_paths(paths)

    @property
    def drop_overlay(self) -> DropOverlay:
        """The highlight over the window while files are dragged over it."""
        overlay = getattr(self, "_drop_overlay", None)
        if overlay is None:
            overlay = self._drop_overlay = DropOverlay(self.centralWidget() or self)
        return overlay

    def _start_folder(self) -> str:
        """Where file dialogs open: the last folder files were added from, else home."""
        last = self.settings.last_folder
        return last if last and Path(last).is_dir() else str(Path.home())

    def _remember_folder(self, paths: list[str]) -> None:
        if paths:
            first = Path(paths[0])
            folder = str(first if first.is_dir() else first.parent)
            if folder != self.settings.last_folder:
                self.settings.last_folder = folder
                self.store.save(self.settings)

    def add_paths(self, paths: list[str], passwords: dict[str, str] | None = None) -> Any:
        """Add files and folders to the library (in the background); for folders not
        followed yet, offer to keep them in sync."""
        if self.bridge.library is None:
            self._notice(self.tr("No library is open."))
            return None
        folders = [
            p for p in paths if Path(p).is_dir() and self.bridge.folders.folder_of(p) is None
        ]
        if folders and self.bridge.folders.attached:
            self.link_offer.offer(folders)
        return self.bridge.ingest(paths, passwords)

    def link_folders(self, folders: list[str]) -> None:
        """Keep ``folders`` in sync with the library (they are scanned at once)."""
        for folder in folders:
            self.bridge.folders.link(folder)
        self._notice(self.tr("The library now follows the folder; see Settings › Linked folders."))

    def add_files(self) -> None:
        """Pick files to add (non-modal dialog)."""
        dialog = QFileDialog(self, self.tr("Add files to the library"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters(
            [
                self.tr(
                    "Documents (*.pdf *.docx *.md *.markdown *.txt *.html *.htm *.csv *.json "
                    "*.jsonl *.epub *.png *.jpg *.jpeg *.tif *.tiff)"
                ),
                self.tr("All files (*)"),
            ]
        )
        dialog.setDirectory(self._start_folder())
        dialog.filesSelected.connect(self._remember_folder)
        dialog.filesSelected.connect(self.add_paths)
        self._open_dialog(dialog)

    def add_folder(self) -> None:
        """Pick a folder to add (non-modal dialog)."""
        dialog = QFileDialog(self, self.tr("Add a folder to the library"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setDirectory(self._start_folder())
        dialog.fileSelected.connect(lambda path: self._remember_folder([str(Path(path).parent)]))
        dialog.fileSelected.connect(lambda path: self.add_paths([path]))
        self._open_dialog(dialog)

    def choose_library(self) -> None:
        """Open or create another library file."""
        dialog = QFileDialog(self, self.tr("Open or create a library"))
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setNameFilters([self.tr("Libraries (*.agentmaker.sqlite *.sqlite)")])
        dialog.setDefaultSuffix("agentmaker.sqlite")
        dialog.setDirectory(self._start_folder())
        dialog.fileSelected.connect(self.open_library)
        self._open_dialog(dialog)

    def open_library(self, path: str) -> Any:
        """Switch to the library at ``path``."""
        self.transcript.clear()
        self.source_view.clear()
        return self.bridge.spawn(self.bridge.open_library(path, settings=self.settings))

    def _open_dialog(self, dialog: QWidget) -> None:
        self._dialogs.add(dialog)
        dialog.finished.connect(lambda _r: self._dialogs.discard(dialog))
        dialog.open()

    # --- bridge reactions: library and ingestion --------------------------------------

    def _library_opened(self, path: str) -> None:
        self.browser.set_source(self.bridge.source_store, self.bridge.loader)
        self.link_offer.dismiss()
        self.ingest_panel.set_ocr_enabled(self.bridge.ocr.enabled)
        if is_team_address(path):  # the team library is remembered by Settings › Library
            name = LibraryChoice("team", path).display_name
            self.setWindowTitle(self.tr("{name} — agentmaker Desk").format(name=name))
            return
        self.setWindowTitle(self.tr("{name} — agentmaker Desk").format(name=Path(path).name))
        if self.settings.library.kind == "team":  # a file opened by hand: back to files
            self.settings.library.kind = "local"
            self.store.save(self.settings)
        if self.settings.last_library != path:
            self.settings.last_library = path
            self.store.save(self.settings)

    def _library_failed(self, message: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("The library could not be opened"),
            message,
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        self._open_dialog(box)

    def _show_documents(self, documents: list[Any]) -> None:
        self.browser.set_documents(documents)
        self.stack.setCurrentWidget(self.main_splitter if documents else self.empty_view)
        passages = sum(int(getattr(d, "chunk_count", 0) or 0) for d in documents)
        self.status_label.setText(
            self.tr("{documents}, {passages}").format(
                documents=self.tr("%n document(s)", "", len(documents)),
                passages=self.tr("%Ln passage(s)", "", passages),
            )
        )

    def _ingest_started(self, paths: list[str]) -> None:
        self.ingest_panel.begin([])
        self.ingest_panel.setVisible(True)

    def _ingest_finished(self, report: Any) -> None:
        self.ingest_panel.finish(report)
        self.passwords.ingest_finished(report)

    def show_failures(self) -> None:
        """Show the import panel again with the files that could not be added selected."""
        self.ingest_panel.setVisible(True)
        self.ingest_panel.reveal_failures()

    def _ocr_started(self) -> None:
        self.ingest_panel.ocr_started()
        self.ingest_panel.setVisible(True)

    def confirm_remove(self, doc_id: str) -> None:
        """Ask before removing a document (non-modal)."""
        info = self.bridge.document(doc_id)
        name = document_title(info) if info is not None else doc_id
        text = self.tr("Remove “{name}” from the library? The file itself is not deleted.")
        folder = self.bridge.folders.folder_of(getattr(info, "source", "") or "") if info else None
        if folder:
            text += " " + self.tr(
                "It is in a linked folder, so it comes back at the next sync unless you add it "
                "to the folder's list of files to skip."
            )
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Remove document"),
            text.format(name=name),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        box.buttonClicked.connect(
            lambda button: self.remove_document(doc_id) if button is remove else None
        )
        self._open_dialog(box)

    def remove_document(self, doc_id: str) -> Any:
        self.source_view.clear()
        return self.bridge.spawn(self.bridge.remove_document(doc_id), "remove")

    def reindex(self, doc_id: str) -> Any:
        return self.bridge.spawn(self.bridge.reindex_document(doc_id), "reindex")

    def focus_question(self) -> None:
        self.ask_bar.edit.setFocus()
        self.ask_bar.edit.selectAll()

    def _chunk_selected(self, chunk: Any, info: Any) -> None:
        if chunk.chunk_id == self._shown_chunk_id or info is None:
            return
        self.bridge.spawn(
            self._show_chunk(chunk, info.doc_id, info.title, info.source), "show-chunk"
        )

    async def _show_chunk(
        self, chunk: Any, doc_id: str, title: str, source: str, quotes: Any = ()
    ) -> None:
        text = await self.bridge.document_text(doc_id)
        self._shown_chunk_id = getattr(chunk, "chunk_id", None)
        self.source_view.show_passage(
            title=title,
            source_path=source,
            document_text=text,
            chunk=chunk,
            doc_id=doc_id,
            quotes=quotes,
        )

    # --- settings -----------------------------------------------------------------

    def open_settings(self, page: str | None = None) -> SettingsDialog:
        """Open the settings dialog (non-modal); ``page`` "linked" shows Linked folders."""
        passages = sum(int(getattr(d, "chunk_count", 0) or 0) for d in self.bridge.documents)
        dialog = SettingsDialog(
            self.settings,
            self.keys,
            discover=self.bridge.discover_servers,
            passage_count=passages,
            links=self.bridge.folders,
            ocr=self.bridge.ocr,
            downloads=self.model_downloads,
            check_team=team_library.check_team_library,
            parent=self,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # drops its signal links
        dialog.applied.connect(self.apply_settings)
        if dialog.linked_page is not None:
            dialog.linked_page.passwordRequested.connect(self.passwords.ask_for)
            if page == "linked":
                dialog.tabs.setCurrentWidget(dialog.linked_page)
        self._open_dialog(dialog)
        return dialog

    def apply_settings(self, settings: DeskSettings, _key_changed: bool = False) -> None:
        """Save and apply new settings; re-embed in the background when the embedder changed."""
        old = self.settings
        self.settings = settings
        self.store.save(settings)
        self.bridge.apply_settings(settings)
        self.transcript.set_model_available(self.bridge.has_model)
        self.ingest_panel.set_ocr_enabled(self.bridge.ocr.enabled)
        embedder_changed = (
            settings.embedder.kind,
            settings.embedder.base_url,
            settings.embedder.model,
        ) != (old.embedder.kind, old.embedder.base_url, old.embedder.model)
        if embedder_changed and self.bridge.library is not None:
            self.bridge.spawn(self._reembed(settings), "reembed")
        if settings.theme != old.theme:
            apply_theme(settings.theme)  # every window repaints at once
        if settings.language != old.language:
            self.languageChangeRequested.emit(settings.language)
        self._reopen_if_library_changed(old, settings, _key_changed)

    def _reopen_if_library_changed(
        self, old: DeskSettings, new: DeskSettings, key_changed: bool
    ) -> None:
        """Open the library chosen in Settings › Library when the choice changed (or the
        team library was not open, e.g. after a wrong password)."""
        changed = new.library != old.library
        if new.library.is_team and (changed or key_changed or self.bridge.library is None):
            self.open_chosen_library()
        elif changed and old.library.is_team:
            self.open_library(new.last_library or str(default_library_path()))

    def open_chosen_library(self) -> Any:
        """Open the library Settings › Library names: the team library, else the file."""
        if not self.settings.library.is_team:
            return self.open_library(self.settings.last_library or str(default_library_path()))
        self.transcript.clear()
        self.source_view.clear()
        return self.bridge.spawn(
            team_library.open_team_library(
                self.bridge, self.settings.library, self.keys, self.settings
            ),
            "open-team-library",
        )

    async def _reembed(self, settings: DeskSettings) -> None:
        try:
            embedder = self.bridge.make_embedder(settings.embedder)
        except Exception as error:  # a bad address is a message, not a crash
            self._notice(engine_text(error))
            return
        self._notice(self.tr("Re-computing search vectors with the new embedding model…"))
        await self.bridge.reembed(embedder)

    def _notice(self, message: str) -> None:
        self.statusBar().showMessage(message, 10_000)

    # --- closing --------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        """Remember the layout and stop the answer and the batch in progress.

        OCR and linked folders stop when the app closes the library (``close_library``),
        not here: a window rebuilt for another language keeps them running.
        """
        self.save_window_state()
        self.bridge.stop_answer()
        self.bridge.cancel_ingest()
        super().closeEvent(event)
