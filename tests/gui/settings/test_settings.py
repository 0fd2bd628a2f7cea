"""Settings persist across restarts; API keys live only in the system keyring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from agentmaker_desk.main_window import MainWindow
from agentmaker_desk.settings.dialog import SettingsDialog
from agentmaker_desk.settings.settings import (
    ENGLISH_MODEL,
    MULTILINGUAL_MODEL,
    ApiKeyStore,
    ModelChoice,
    SettingsStore,
)
from keyring.backend import KeyringBackend
from keyring.backends import fail
from PySide6.QtWidgets import QDialogButtonBox

from tests.gui.helpers import GatedEmbedder

SECRET = "sk-test-7f3a9c-SECRET"


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps secrets in a dict (a stand-in OS keyring)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.secrets.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def _fill_and_save(dialog: SettingsDialog) -> None:
    dialog.llm_kind.setCurrentIndex(dialog.llm_kind.findData("openai"))
    dialog.llm_model.setEditText("gpt-4o-mini")
    dialog.llm_key.setText(SECRET)
    dialog.top_k.setValue(7)
    dialog.neighbors.setValue(1)
    dialog.multi_query.setChecked(True)
    dialog.language.setCurrentIndex(dialog.language.findData("en"))
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()


def test_settings_persist_and_the_key_goes_to_the_keyring(
    desk, qloop, settings_file: Path, memory_keyring: MemoryKeyring
) -> None:
    dialog = desk.open_settings()
    dialog.llm_kind.setCurrentIndex(dialog.llm_kind.findData("openai"))
    assert "stored in the system keyring" in dialog.key_status.text()
    qloop.call(lambda: _fill_and_save(dialog))

    restarted = SettingsStore(settings_file).load()  # a new process reads the file
    assert restarted.llm.kind == "openai"
    assert restarted.llm.model == "gpt-4o-mini"
    assert restarted.llm.base_url == "https://api.openai.com/v1"
    assert restarted.retrieval.top_k == 7
    assert restarted.retrieval.neighbor_window == 1
    assert restarted.retrieval.multi_query is True
    assert restarted.language == "en"
    assert SECRET not in settings_file.read_text(encoding="utf-8")
    assert list(memory_keyring.secrets.values()) == [SECRET]
    assert ApiKeyStore().get(restarted.llm.key_account) == SECRET
    # The window applied them: the library now answers with that model.
    assert desk.bridge.library.llm.model == "gpt-4o-mini"
    assert desk.bridge.library.rag.expander is not None


def test_without_a_keyring_the_key_is_never_written(
    desk, qloop, settings_file: Path, no_keyring: None
) -> None:
    dialog = desk.open_settings()
    dialog.llm_kind.setCurrentIndex(dialog.llm_kind.findData("openai"))
    assert "No system keyring" in dialog.key_status.text()
    qloop.call(lambda: _fill_and_save(dialog))
    assert SECRET not in settings_file.read_text(encoding="utf-8")
    assert desk.keys.get(desk.settings.llm.key_account) == SECRET  # this session only
    assert ApiKeyStore().get(desk.settings.llm.key_account) is None  # gone after restart


def test_changing_the_embedder_explains_the_reembedding(desk) -> None:
    dialog = desk.open_settings()
    assert not dialog.embedder_changed()
    dialog.embed_kind.setCurrentIndex(dialog.embed_kind.findData("server"))
    dialog.embed_url.setText("http://127.0.0.1:11434/v1")
    dialog.embed_model.setText("nomic-embed-text")
    assert dialog.embedder_changed()
    assert "re-computes" in dialog.embed_note.text()
    dialog.reject()


def test_ocr_switch_and_window_layout_persist(
    desk, qloop, qtbot, settings_file: Path, tmp_path: Path
) -> None:
    assert desk.settings.ocr is True  # on by default
    dialog = desk.open_settings()
    assert dialog.ocr_check.isChecked()
    dialog.ocr_check.setChecked(False)
    qloop.call(
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click
    )
    assert SettingsStore(settings_file).load().ocr is False
    assert desk.bridge.ocr.queue.enabled is False

    desk.resize(760, 560)
    desk.move(12, 18)
    desk.stack.setCurrentWidget(desk.main_splitter)
    qloop.settle()
    desk.main_splitter.setSizes([250, 480])
    sizes = desk.main_splitter.sizes()
    desk.close()  # remembered on close

    window = MainWindow(desk.bridge, SettingsStore(settings_file), desk.keys)
    qtbot.addWidget(window)
    window.show()
    window.stack.setCurrentWidget(window.main_splitter)
    qloop.settle()
    assert (window.width(), window.height()) == (760, 560)
    assert window.main_splitter.sizes() == sizes
    assert window.settings.ocr is False
    assert window.open_settings().ocr_check.isChecked() is False


def test_reembedding_can_be_cancelled_from_the_status_bar(desk, qloop, good_dir: Path) -> None:
    qloop.run(desk.bridge.aingest([str(good_dir / "faq.md"), str(good_dir / "cli.md")]))
    desk.activity.show_delay_ms = 0
    embedder = GatedEmbedder()
    embedder.hold()
    qloop.call(lambda: desk.bridge.spawn(desk.bridge.reembed(embedder), "reembed"))
    qloop.until(lambda: embedder.waiting == 1)
    assert desk.activity.current() == "reembed"
    assert desk.activity.isVisible() and desk.activity.cancel_button.isVisible()
    assert "Re-computing search vectors" in desk.activity.label.text()
    qloop.call(desk.activity.cancel_button.click)
    embedder.release(50)
    qloop.until(lambda: not desk.bridge.tasks)
    assert not desk.activity.isVisible()
    assert "cancelled" in desk.statusBar().currentMessage()
    assert desk.bridge.library.needs_rebuild  # finished at the next start


def test_the_builtin_model_choice(desk, settings_file: Path) -> None:
    dialog = desk.open_settings()
    # Settings from before the choice ("" = the default) show the multilingual model.
    assert dialog.embed_kind.currentData() == MULTILINGUAL_MODEL
    assert not dialog.embedder_changed()
    dialog.embed_kind.setCurrentIndex(dialog.embed_kind.findData(ENGLISH_MODEL))
    assert dialog.embedder_changed()
    assert "re-computes" in dialog.embed_note.text()
    assert dialog.result_settings().embedder == ModelChoice("builtin", "", ENGLISH_MODEL)
    assert not dialog.embed_url.isEnabled()
    dialog.embed_kind.setCurrentIndex(dialog.embed_kind.findData(MULTILINGUAL_MODEL))
    assert not dialog.embedder_changed()
    dialog.reject()
    store = SettingsStore(settings_file)
    saved = store.load()
    saved.embedder = ModelChoice("builtin", "", ENGLISH_MODEL)
    store.save(saved)
    assert SettingsStore(settings_file).load().embedder.model == ENGLISH_MODEL


def test_the_builtin_choice_picks_the_local_model() -> None:
    from agentmaker_desk.bridge.models import make_embedder

    english = make_embedder(ModelChoice("builtin", "", ENGLISH_MODEL), ApiKeyStore())
    default = make_embedder(ModelChoice("builtin"), ApiKeyStore())
    assert (english.model, default.model) == ("all-MiniLM-L6-v2", "multilingual-e5-small")
