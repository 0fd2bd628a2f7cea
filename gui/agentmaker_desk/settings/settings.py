"""The app's settings (QSettings, INI format) and API keys (system keyring only).

API keys never go into the settings file or the log. When the system has no usable
keyring (e.g. a headless Linux box) a key typed in the settings is kept in memory
for this session only, and the settings dialog says so.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from agentmaker_desk.settings.library_choice import LIBRARY_KINDS, LibraryChoice, strip_password

#: Environment variable that points the settings file elsewhere (tests, portable installs).
SETTINGS_ENV = "AGENTMAKER_DESK_SETTINGS"
KEYRING_SERVICE = "agentmaker-desk"
#: Keyring account of the Cohere API key used by the optional re-ranker.
COHERE_ACCOUNT = "cohere|rerank"

LLM_KINDS = ("none", "ollama", "lmstudio", "openai", "custom")
#: The built-in embedding models (``embedder.model`` when ``embedder.kind`` is "builtin"):
#: multilingual (the default of new libraries) and English only, fastest. "" (settings
#: from before the choice existed) means the default; a library keeps the built-in
#: model it was made with until the choice is changed here.
MULTILINGUAL_MODEL = "multilingual-e5-small"
ENGLISH_MODEL = "all-MiniLM-L6-v2"
BUILTIN_MODELS = (MULTILINGUAL_MODEL, ENGLISH_MODEL)


def builtin_model(model: str) -> str:
    """The built-in model a saved ``embedder.model`` stands for ("" = the default)."""
    return model if model in BUILTIN_MODELS else MULTILINGUAL_MODEL


DEFAULT_URLS = {
    "ollama": "http://127.0.0.1:11434/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
    "openai": "https://api.openai.com/v1",
}


def settings_path() -> Path:
    """Where the settings file lives: ``$AGENTMAKER_DESK_SETTINGS`` or the user config dir."""
    override = os.environ.get(SETTINGS_ENV)
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir("agentmaker Desk", appauthor=False)) / "settings.ini"


def default_library_path() -> Path:
    """The library file used when none is given: user data dir / Library.agentmaker.sqlite."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("agentmaker Desk", appauthor=False)) / "Library.agentmaker.sqlite"


@dataclass
class ModelChoice:
    """Which OpenAI-compatible server and model to use (``kind`` "none" = no model)."""

    kind: str = "none"
    base_url: str = ""
    model: str = ""

    @property
    def key_account(self) -> str:
        """The keyring account its API key is stored under."""
        return f"{self.kind}|{self.base_url}"


@dataclass
class RetrievalOptions:
    """Retrieval knobs shown in Settings."""

    top_k: int = 5
    reranker: bool = False
    multi_query: bool = False
    hyde: bool = False
    neighbor_window: int = 0
    heading_context: bool = True


@dataclass
class DeskSettings:
    """Everything the app remembers between runs (API keys excluded)."""

    llm: ModelChoice = field(default_factory=ModelChoice)
    embedder: ModelChoice = field(default_factory=lambda: ModelChoice(kind="builtin"))
    retrieval: RetrievalOptions = field(default_factory=RetrievalOptions)
    language: str = "system"
    last_library: str = ""
    last_folder: str = ""  # where "Add files…" last picked from (file dialogs open there)
    ocr: bool = True  # read scanned pages and pictures
    theme: str = "system"  # "system", "light" or "dark"
    library: LibraryChoice = field(default_factory=LibraryChoice)  # this computer or a team's


def _bool(value: object, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("1", "true", "yes", "on")


def _int(value: object, default: int, lo: int, hi: int) -> int:
    try:
        return max(lo, min(hi, int(value)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _library_choice(s: QSettings) -> LibraryChoice:
    kind = str(s.value("library/kind", "local"))
    return LibraryChoice(
        kind=kind if kind in LIBRARY_KINDS else "local",
        url=strip_password(str(s.value("library/team-url", "")))[0],
        user=str(s.value("library/team-user", "")),
    )


class SettingsStore:
    """Reads and writes :class:`DeskSettings` in an INI file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else settings_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._qsettings = QSettings(str(self.path), QSettings.Format.IniFormat)

    def load(self) -> DeskSettings:
        """The saved settings, with defaults for anything missing or invalid."""
        s = self._qsettings
        defaults = RetrievalOptions()
        kind = str(s.value("llm/kind", "none"))
        embed_kind = str(s.value("embedder/kind", "builtin"))
        return DeskSettings(
            llm=ModelChoice(
                kind=kind if kind in LLM_KINDS else "none",
                base_url=str(s.value("llm/base_url", "")),
                model=str(s.value("llm/model", "")),
            ),
            embedder=ModelChoice(
                kind=embed_kind if embed_kind in ("builtin", "server") else "builtin",
                base_url=str(s.value("embedder/base_url", "")),
                model=str(s.value("embedder/model", "")),
            ),
            retrieval=RetrievalOptions(
                top_k=_int(s.value("retrieval/top_k"), defaults.top_k, 1, 50),
                reranker=_bool(s.value("retrieval/reranker"), defaults.reranker),
                multi_query=_bool(s.value("retrieval/multi_query"), defaults.multi_query),
                hyde=_bool(s.value("retrieval/hyde"), defaults.hyde),
                neighbor_window=_int(s.value("retrieval/neighbor_window"), 0, 0, 5),
                heading_context=_bool(s.value("retrieval/heading_context"), True),
            ),
            language=str(s.value("ui/language", "system")),
            last_library=str(s.value("library/last", "")),
            last_folder=str(s.value("library/last-folder", "")),
            ocr=_bool(s.value("documents/ocr"), True),
            theme=str(s.value("ui/theme", "system")),
            library=_library_choice(s),
        )

    def save(self, settings: DeskSettings) -> None:
        """Write ``settings`` (never any API key) and flush to disk."""
        s = self._qsettings
        s.setValue("llm/kind", settings.llm.kind)
        s.setValue("llm/base_url", settings.llm.base_url)
        s.setValue("llm/model", settings.llm.model)
        s.setValue("embedder/kind", settings.embedder.kind)
        s.setValue("embedder/base_url", settings.embedder.base_url)
        s.setValue("embedder/model", settings.embedder.model)
        r = settings.retrieval
        s.setValue("retrieval/top_k", r.top_k)
        s.setValue("retrieval/reranker", r.reranker)
        s.setValue("retrieval/multi_query", r.multi_query)
        s.setValue("retrieval/hyde", r.hyde)
        s.setValue("retrieval/neighbor_window", r.neighbor_window)
        s.setValue("retrieval/heading_context", r.heading_context)
        s.setValue("ui/language", settings.language)
        s.setValue("library/last", settings.last_library)
        s.setValue("library/last-folder", settings.last_folder)
        s.setValue("documents/ocr", settings.ocr)
        s.setValue("ui/theme", settings.theme)
        team = settings.library
        s.setValue("library/kind", team.kind)
        s.setValue("library/team-url", strip_password(team.url)[0])  # never a password
        s.setValue("library/team-user", team.user)
        s.sync()

    def window_state(self) -> dict[str, QByteArray]:
        """The saved window geometry and splitter states (``window/<name>``)."""
        s = self._qsettings
        s.beginGroup("window")
        try:
            state = {key: s.value(key) for key in s.childKeys()}
        finally:
            s.endGroup()
        return {k: v for k, v in state.items() if isinstance(v, QByteArray) and not v.isEmpty()}

    def save_window_state(self, state: dict[str, QByteArray]) -> None:
        """Remember the window geometry and splitter states until the next start."""
        s = self._qsettings
        for key, value in state.items():
            s.setValue(f"window/{key}", value)
        s.sync()


class ApiKeyStore:
    """API keys in the system keyring; nowhere else.

    Without a usable keyring backend, :meth:`set` keeps the key in this process's
    memory only (gone when the app quits) and returns False.
    """

    def __init__(self, service: str = KEYRING_SERVICE) -> None:
        self.service = service
        self._session: dict[str, str] = {}

    def available(self) -> bool:
        """True when a real keyring backend can store secrets."""
        try:
            import keyring
            from keyring.backends import fail
        except ImportError:
            return False
        backend = keyring.get_keyring()
        if isinstance(backend, fail.Keyring):
            return False
        if getattr(backend, "backends", None) == []:  # a chainer with nothing in it
            return False
        return getattr(backend, "priority", 1) > 0

    def get(self, account: str) -> str | None:
        """The stored key for ``account``, or None."""
        if account in self._session:
            return self._session[account]
        if not self.available():
            return None
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(self.service, account)
        except KeyringError:
            return None

    def set(self, account: str, key: str) -> bool:
        """Store ``key``; True when it went to the keyring, False when kept for this session."""
        if self.available():
            import keyring
            from keyring.errors import KeyringError

            try:
                keyring.set_password(self.service, account, key)
                self._session.pop(account, None)
                return True
            except KeyringError:
                pass
        self._session[account] = key
        return False

    def delete(self, account: str) -> None:
        """Forget the key for ``account`` everywhere."""
        self._session.pop(account, None)
        if self.available():
            import keyring
            from keyring.errors import KeyringError

            with contextlib.suppress(KeyringError):
                keyring.delete_password(self.service, account)
