"""The settings dialog: models, retrieval, scanned documents, linked folders, language.

Opened with ``open()`` (never ``exec()`` inside an async slot). On Save it emits
``applied(settings, keys_changed)``; the window applies it through the bridge. The
Linked folders page is the exception: its changes apply at once.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.i18n import LANGUAGES
from agentmaker_desk.library.linked_folders_page import LinkedFoldersPage
from agentmaker_desk.settings.library_page import LibraryPage, TeamCheck
from agentmaker_desk.settings.local_models import LocalModelsPanel
from agentmaker_desk.settings.settings import (
    COHERE_ACCOUNT,
    DEFAULT_URLS,
    ENGLISH_MODEL,
    MULTILINGUAL_MODEL,
    ApiKeyStore,
    DeskSettings,
    ModelChoice,
    RetrievalOptions,
    builtin_model,
    default_library_path,
)

#: Looks for local model servers; returns objects with ``kind``, ``base_url``, ``models``.
Discover = Callable[[], Awaitable[list[Any]]]


class SettingsDialog(QDialog):
    """Tabs; Save writes nothing itself — it hands the result to the window."""

    applied = Signal(object, bool)  # DeskSettings, whether an API key changed

    def __init__(
        self,
        settings: DeskSettings,
        keys: ApiKeyStore,
        *,
        discover: Discover | None = None,
        passage_count: int = 0,
        links: Any = None,
        ocr: Any = None,
        downloads: Any = None,
        check_team: TeamCheck | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``links`` (FolderLinks) adds the Linked folders page; ``ocr`` (OcrRunner) shows
        the scanned documents waiting to be read; ``downloads`` (ModelDownloads) lists,
        downloads and deletes the models on this computer; ``check_team`` tests a team
        library."""
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle(self.tr("Settings"))
        self._original = copy.deepcopy(settings)
        self._keys = keys
        self._discover = discover
        self._downloads = downloads
        self._passage_count = passage_count
        self._servers: dict[str, Any] = {}
        self._tasks: set[asyncio.Future[Any]] = set()

        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._model_tab(), self.tr("Language model"))
        self.tabs.addTab(self._embedder_tab(), self.tr("Embeddings"))
        self.tabs.addTab(self._retrieval_tab(), self.tr("Retrieval"))
        self.tabs.addTab(self._ocr_tab(ocr), self.tr("Scanned documents"))
        self.linked_page: LinkedFoldersPage | None = None
        if links is not None:
            self.linked_page = LinkedFoldersPage(links, self)
            self.tabs.addTab(self.linked_page, self.tr("Linked folders"))
        self.library_page = LibraryPage(
            settings.library,
            keys,
            local_path=settings.last_library or str(default_library_path()),
            check=check_team,
            parent=self,
        )
        self.tabs.addTab(self.library_page, self.tr("Library"))
        self.tabs.addTab(self._interface_tab(), self.tr("Interface"))

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setText(self.tr("Save"))
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        self.resize(760, 560)
        self._load(settings)

    # --- tabs ---------------------------------------------------------------------

    def _model_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        self.llm_kind = QComboBox(page)
        self.llm_kind.setObjectName("llmKind")
        for kind, label in (
            ("none", self.tr("None — extractive answers from your documents")),
            ("local", self.tr("A model on this computer (a .gguf file)")),
            ("ollama", self.tr("Ollama (on this computer)")),
            ("lmstudio", self.tr("LM Studio (on this computer)")),
            ("openai", self.tr("OpenAI")),
            ("custom", self.tr("Other OpenAI-compatible server")),
        ):
            self.llm_kind.addItem(label, kind)
        self.llm_kind.currentIndexChanged.connect(self._llm_kind_changed)
        self.detect_button = QPushButton(self.tr("Look for Ollama / LM Studio"), page)
        self.detect_button.clicked.connect(self._detect)
        self.detect_button.setEnabled(self._discover is not None)
        self.detect_label = QLabel(page)
        self.detect_label.setTextFormat(Qt.TextFormat.PlainText)
        self.detect_label.setWordWrap(True)
        self.llm_url = QLineEdit(page)
        self.llm_url.setObjectName("llmUrl")
        self.llm_url.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.llm_url.textChanged.connect(self._update_key_status)
        self.llm_model = QComboBox(page)
        self.llm_model.setObjectName("llmModel")
        self.llm_model.setEditable(True)
        self.llm_key = QLineEdit(page)
        self.llm_key.setObjectName("llmKey")
        self.llm_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.llm_key.setAccessibleName(self.tr("API key"))
        self.key_status = QLabel(page)
        self.key_status.setObjectName("keyStatus")
        self.key_status.setWordWrap(True)
        self.key_status.setTextFormat(Qt.TextFormat.PlainText)
        detect_row = QHBoxLayout()
        detect_row.addWidget(self.detect_button)
        detect_row.addWidget(self.detect_label, 1)
        form.addRow(self.tr("Answers written by"), self.llm_kind)
        form.addRow("", detect_row)
        form.addRow(self.tr("Server address"), self.llm_url)
        form.addRow(self.tr("Model"), self.llm_model)
        self.local_models: LocalModelsPanel | None = None
        if self._downloads is not None:
            self.local_models = LocalModelsPanel(self._downloads, page)
            self.local_models.chosen.connect(self._local_model_chosen)
            form.addRow(self.tr("On this computer"), self.local_models)
        form.addRow(self.tr("API key"), self.llm_key)
        form.addRow("", self.key_status)
        return page

    def _local_model_chosen(self, path: str) -> None:
        if path:
            self._select(self.llm_kind, "local")
            self.llm_model.setEditText(path)
        elif self.llm_kind.currentData() == "local":  # the chosen model was deleted
            self.llm_model.setEditText("")
            self._select(self.llm_kind, "none")

    def _embedder_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        self.embed_kind = QComboBox(page)
        self.embed_kind.setObjectName("embedKind")
        self.embed_kind.addItem(
            self.tr("Built-in, multilingual (offline, no setup)"), MULTILINGUAL_MODEL
        )
        self.embed_kind.addItem(
            self.tr("Built-in, English only, fastest (offline, no setup)"), ENGLISH_MODEL
        )
        self.embed_kind.addItem(self.tr("A server (OpenAI-compatible)"), "server")
        self.embed_kind.currentIndexChanged.connect(self._embedder_changed)
        self.embed_url = QLineEdit(page)
        self.embed_url.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.embed_url.textChanged.connect(self._embedder_changed)
        self.embed_model = QLineEdit(page)
        self.embed_model.setPlaceholderText("nomic-embed-text")
        self.embed_model.textChanged.connect(self._embedder_changed)
        self.embed_note = QLabel(page)
        self.embed_note.setObjectName("embedNote")
        self.embed_note.setWordWrap(True)
        self.embed_note.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow(self.tr("Embedding model"), self.embed_kind)
        form.addRow(self.tr("Server address"), self.embed_url)
        form.addRow(self.tr("Model"), self.embed_model)
        form.addRow(self.embed_note)
        return page

    def _retrieval_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        self.top_k = QSpinBox(page)
        self.top_k.setObjectName("topK")
        self.top_k.setRange(1, 50)
        self.reranker = QCheckBox(self.tr("Re-rank passages (more precise, slower)"), page)
        self.multi_query = QCheckBox(
            self.tr("Search with several phrasings of the question (uses the language model)"),
            page,
        )
        self.hyde = QCheckBox(
            self.tr("Search with a drafted answer (HyDE; uses the language model)"), page
        )
        self.neighbors = QSpinBox(page)
        self.neighbors.setRange(0, 5)
        self.neighbors.setSuffix(self.tr(" passages on each side"))
        self.heading_context = QCheckBox(
            self.tr("Index each passage with its headings (applies to files added later)"), page
        )
        self.cohere_key = QLineEdit(page)
        self.cohere_key.setObjectName("cohereKey")
        self.cohere_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.cohere_key.setAccessibleName(self.tr("Cohere API key"))
        self.cohere_key.setPlaceholderText(
            self.tr("Saved in the system keyring")
            if self._keys.get(COHERE_ACCOUNT)
            else self.tr("Needed for re-ranking (sends passages to Cohere)")
        )
        form.addRow(self.tr("Passages per answer"), self.top_k)
        form.addRow(self.tr("Show neighbouring text"), self.neighbors)
        form.addRow(self.reranker)
        form.addRow(self.tr("Cohere API key"), self.cohere_key)
        form.addRow(self.multi_query)
        form.addRow(self.hyde)
        form.addRow(self.heading_context)
        return page

    def _ocr_tab(self, ocr: Any) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        self.ocr_check = QCheckBox(self.tr("Read scanned pages (OCR)"), page)
        self.ocr_check.setObjectName("ocrEnabled")
        note = QLabel(
            self.tr(
                "Pictures (PNG, JPEG, TIFF) and PDF pages without text are read on this "
                "computer; nothing is sent anywhere. Reading takes a few seconds per page and "
                "runs in the background. When this is off, scanned PDFs are remembered and "
                "read once it is turned on again."
            ),
            page,
        )
        note.setWordWrap(True)
        self.ocr_status = QLabel(page)
        self.ocr_status.setObjectName("ocrStatus")
        self.ocr_status.setTextFormat(Qt.TextFormat.PlainText)
        self.ocr_status.setWordWrap(True)
        self.ocr_retry = QPushButton(self.tr("Try the failed ones again"), page)
        self.ocr_retry.setVisible(False)
        form.addRow(self.ocr_check)
        form.addRow(note)
        form.addRow(self.ocr_status)
        form.addRow("", self.ocr_retry)
        if ocr is not None and not ocr.available:
            self.ocr_check.setEnabled(False)
            self.ocr_status.setText(
                self.tr("This installation of the app does not include OCR, so scans stay unread.")
            )
        elif ocr is not None:
            ocr.countsChanged.connect(self._show_ocr_counts)
            self.ocr_retry.clicked.connect(ocr.request_retry)
            ocr.request_counts()
        return page

    def _show_ocr_counts(self, counts: dict[str, int]) -> None:
        pending, failed = counts.get("pending", 0), counts.get("failed", 0)
        parts = []
        if pending:
            parts.append(self.tr("%n scanned document(s) are waiting to be read.", "", pending))
        if failed:
            parts.append(self.tr("{n} could not be read.").format(n=failed))
        done = counts.get("done", 0)
        if not parts:
            parts.append(self.tr("%n scanned document(s) were read.", "", done))
        self.ocr_status.setText(" ".join(parts))
        self.ocr_retry.setVisible(failed > 0)

    def _interface_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        self.language = QComboBox(page)
        self.language.setObjectName("language")
        self.language.addItem(self.tr("Same as the system"), "system")
        for code, name in LANGUAGES:
            self.language.addItem(name, code)
        form.addRow(self.tr("Language"), self.language)
        self.theme = QComboBox(page)
        self.theme.setObjectName("theme")
        for code, label in (
            ("system", self.tr("Same as the system")),
            ("light", self.tr("Light")),
            ("dark", self.tr("Dark")),
        ):
            self.theme.addItem(label, code)
        form.addRow(self.tr("Theme"), self.theme)
        return page

    # --- loading and saving ---------------------------------------------------------

    def _load(self, settings: DeskSettings) -> None:
        self._select(self.llm_kind, settings.llm.kind)
        self.llm_url.setText(settings.llm.base_url)
        self.llm_model.setEditText(settings.llm.model)
        if self.local_models is not None and settings.llm.kind == "local":
            self.local_models.select_path(settings.llm.model)
        if settings.embedder.kind == "server":
            self._select(self.embed_kind, "server")
        else:
            self._select(self.embed_kind, builtin_model(settings.embedder.model))
        self.embed_url.setText(settings.embedder.base_url)
        self.embed_model.setText(settings.embedder.model)
        r = settings.retrieval
        self.top_k.setValue(r.top_k)
        self.reranker.setChecked(r.reranker)
        self.multi_query.setChecked(r.multi_query)
        self.hyde.setChecked(r.hyde)
        self.neighbors.setValue(r.neighbor_window)
        self.heading_context.setChecked(r.heading_context)
        self.ocr_check.setChecked(settings.ocr)
        self._select(self.language, settings.language)
        self._select(self.theme, settings.theme)
        self._llm_kind_changed()
        self._embedder_changed()

    def result_settings(self) -> DeskSettings:
        """The settings as currently entered."""
        kind = self.llm_kind.currentData()
        return DeskSettings(
            llm=ModelChoice(
                kind=kind,
                base_url=self.llm_url.text().strip() if kind not in ("none", "local") else "",
                model=self.llm_model.currentText().strip() if kind != "none" else "",
            ),
            embedder=self._embedder_choice(),
            retrieval=RetrievalOptions(
                top_k=self.top_k.value(),
                reranker=self.reranker.isChecked(),
                multi_query=self.multi_query.isChecked(),
                hyde=self.hyde.isChecked(),
                neighbor_window=self.neighbors.value(),
                heading_context=self.heading_context.isChecked(),
            ),
            language=self.language.currentData(),
            last_library=self._original.last_library,
            last_folder=self._original.last_folder,
            ocr=self.ocr_check.isChecked(),
            theme=self.theme.currentData(),
            library=self.library_page.choice(),
        )

    def _embedder_choice(self) -> ModelChoice:
        selected = self.embed_kind.currentData()
        if selected == "server":
            return ModelChoice(
                "server", self.embed_url.text().strip(), self.embed_model.text().strip()
            )
        old = self._original.embedder
        if old.kind == "builtin" and builtin_model(old.model) == selected:
            return ModelChoice("builtin", old.base_url, old.model)  # unchanged, as saved
        return ModelChoice("builtin", "", selected)

    def embedder_changed(self) -> bool:
        """True when Save would switch to another embedding model."""
        new = self.result_settings().embedder
        old = self._original.embedder
        if new.kind == "builtin" and old.kind == "builtin":
            return builtin_model(new.model) != builtin_model(old.model)
        return (new.kind, new.base_url, new.model) != (old.kind, old.base_url, old.model)

    def _save(self) -> None:
        settings = self.result_settings()
        key = self.llm_key.text()
        key_changed = bool(key) and settings.llm.kind != "none"
        if key_changed:
            self._keys.set(settings.llm.key_account, key)
        if self.cohere_key.text():
            self._keys.set(COHERE_ACCOUNT, self.cohere_key.text())
            key_changed = True
        if self.library_page.store_password():
            key_changed = True
        self.llm_key.clear()
        self.cohere_key.clear()
        self.applied.emit(settings, key_changed)
        self.accept()

    # --- reactions --------------------------------------------------------------

    @staticmethod
    def _select(combo: QComboBox, data: str) -> None:
        index = combo.findData(data)
        combo.setCurrentIndex(max(0, index))

    def _llm_kind_changed(self, *_args: Any) -> None:
        kind = self.llm_kind.currentData()
        uses_server = kind not in ("none", "local")
        for widget in (self.llm_url, self.llm_key):
            widget.setEnabled(uses_server)
        self.llm_model.setEnabled(kind != "none")  # for "local": the model file's path
        if self.local_models is not None:
            self.local_models.setVisible(kind == "local")
        if kind in DEFAULT_URLS and (
            not self.llm_url.text() or self.llm_url.text() in DEFAULT_URLS.values()
        ):
            server = self._servers.get(kind)
            self.llm_url.setText(getattr(server, "base_url", None) or DEFAULT_URLS[kind])
        server = self._servers.get(kind)
        if server is not None:
            current = self.llm_model.currentText()
            self.llm_model.clear()
            self.llm_model.addItems(list(getattr(server, "models", []) or []))
            self.llm_model.setEditText(current or (self.llm_model.itemText(0)))
        self._update_key_status()

    def _update_key_status(self) -> None:
        kind = self.llm_kind.currentData()
        if kind == "none":
            self.key_status.setText(
                self.tr("Without a language model, answers quote the best passages.")
            )
            return
        if kind == "local":
            self.key_status.setText(
                self.tr("The model runs on this computer: nothing is sent anywhere.")
            )
            return
        account = ModelChoice(kind, self.llm_url.text().strip()).key_account
        stored = self._keys.get(account) is not None
        if self._keys.available():
            text = (
                self.tr("A key is saved in the system keyring. Type a new one to replace it.")
                if stored
                else self.tr("The key is stored in the system keyring, never in a file.")
            )
        else:
            text = self.tr(
                "No system keyring was found on this computer, so the key cannot be saved. "
                "It is kept in memory until you close the app, and never written to a file."
            )
        if kind in ("ollama", "lmstudio"):
            text = self.tr("Local servers usually need no key.") + " " + text
        self.key_status.setText(text)

    def _embedder_changed(self, *_args: Any) -> None:
        server = self.embed_kind.currentData() == "server"
        self.embed_url.setEnabled(server)
        self.embed_model.setEnabled(server)
        if self.embedder_changed():
            self.embed_note.setText(
                self.tr(
                    "Changing the embedding model re-computes the search vectors of all "
                    "%Ln passage(s) in your library. This runs in the background after you "
                    "save; you can keep reading meanwhile, and searching uses the new model "
                    "when it is done.",
                    "",
                    self._passage_count,
                )
            )
        else:
            self.embed_note.setText(
                self.tr(
                    "The embedding model turns passages into vectors for searching by "
                    "meaning. The built-in one works offline."
                )
            )

    def _detect(self) -> None:
        if self._discover is None:
            return
        self.detect_button.setEnabled(False)
        self.detect_label.setText(self.tr("Looking…"))
        task = asyncio.ensure_future(self._run_detect())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_detect(self) -> None:
        assert self._discover is not None
        try:
            servers = await self._discover()
        except Exception as error:  # a failed probe is a message, not a crash
            self.detect_label.setText(str(error))
            return
        finally:
            self.detect_button.setEnabled(True)
        self.set_servers(servers)

    def set_servers(self, servers: list[Any]) -> None:
        """Show the local servers that were found (and their models)."""
        self._servers = {getattr(s, "kind", ""): s for s in servers}
        if not servers:
            self.detect_label.setText(self.tr("No Ollama or LM Studio is running."))
            return
        names = []
        for server in servers:
            count = len(getattr(server, "models", []) or [])
            names.append(
                self.tr("{kind} at {url} (%n model(s))", "", count).format(
                    kind=server.kind, url=server.base_url
                )
            )
        self.detect_label.setText("; ".join(names))
        self._choose_found(servers)

    def _choose_found(self, servers: list[Any]) -> None:
        """Select what was found, unless a found server is already the choice: a person
        who asked to look for a server wants to use it."""
        kind = self.llm_kind.currentData()
        server = self._servers.get(kind)
        if server is None:
            server = servers[0]
            self.llm_url.clear()  # the found address replaces the old default
            self.llm_model.setEditText("")
            self._select(self.llm_kind, server.kind)  # runs _llm_kind_changed
        else:
            self._llm_kind_changed()
        # Embedding models (nomic-embed-text, …) cannot write answers.
        models = list(getattr(server, "models", []) or [])
        chat = [m for m in models if "embed" not in m.lower()] or models
        if chat and self.llm_model.currentText() not in chat:
            self.llm_model.setEditText(chat[0])
