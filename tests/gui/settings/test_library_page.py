"""Settings › Library: a team library's address is saved without its password, the password
goes to the keyring, and "Test connection" says what it found on a real server."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import keyring
import pytest
from agentmaker_desk.bridge import team_library
from agentmaker_desk.i18n import install_language
from agentmaker_desk.settings.library_choice import LibraryChoice, strip_password
from agentmaker_desk.settings.library_page import LibraryPage
from agentmaker_desk.settings.settings import KEYRING_SERVICE, ApiKeyStore, SettingsStore
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from tests.gui.settings.test_settings import MemoryKeyring
from tests.pg_roles import password_role

SECRET = "team-Secret:with@odd/chars"


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _page(qtbot: Any, choice: LibraryChoice | None = None) -> LibraryPage:
    page = LibraryPage(
        choice or LibraryChoice(),
        ApiKeyStore(),
        local_path="/home/me/Library.agentmaker.sqlite",
        check=team_library.check_team_library,
    )
    qtbot.addWidget(page)
    page.team_choice.setChecked(True)
    return page


def _test_connection(qloop: Any, page: LibraryPage) -> Any:
    outcomes: list[Any] = []
    page.checkFinished.connect(outcomes.append)
    qloop.call(lambda: page.test_button.click())
    qloop.until(lambda: outcomes, timeout=30)
    return outcomes[0]


def test_a_team_library_is_saved_without_its_password(
    desk, qloop, settings_file: Path, memory_keyring: MemoryKeyring
) -> None:
    dialog = desk.open_settings()
    page = dialog.library_page
    assert page.local_choice.isChecked() and not page.team_form.isEnabled()
    page.team_choice.setChecked(True)
    assert page.team_form.isEnabled()
    assert "stored in the system keyring" in page.password_status.text()
    address = f"postgresql://127.0.0.1:{_closed_port()}/library"
    # Someone pastes an address with the password inside: it moves to the password field.
    page.url.setText(address.replace("://", f"://alice:{quote(SECRET, safe='')}@"))
    page.url.editingFinished.emit()
    assert page.url.text() == address.replace("://", "://alice@")
    assert page.password.text() == SECRET
    page.user.setText("alice")
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    qloop.call(save.click)
    qloop.run(desk.bridge.wait_idle())

    saved = SettingsStore(settings_file).load().library  # what a restarted app reads
    assert saved == LibraryChoice("team", address.replace("://", "://alice@"), "alice")
    text = settings_file.read_text(encoding="utf-8")
    assert SECRET not in text and "Secret" not in text
    assert memory_keyring.secrets == {(KEYRING_SERVICE, saved.password_account): SECRET}
    assert ApiKeyStore().get(saved.password_account) == SECRET
    # Applying tried to open it: the server is down, and the message says so (without
    # the password).
    boxes = [b for b in desk.findChildren(QMessageBox) if b.isVisible()]
    assert boxes, "the failure to open the team library was not shown"
    message = boxes[-1].text()
    assert message.startswith("No PostgreSQL server answers at 127.0.0.1:")
    assert SECRET not in message
    # The page shows the saved password's status the next time.
    again = desk.open_settings().library_page
    assert again.team_choice.isChecked()
    assert "A password is saved in the system keyring" in again.password_status.text()


def test_a_stored_url_never_keeps_a_password(settings_file: Path) -> None:
    store = SettingsStore(settings_file)
    settings = store.load()
    settings.library = LibraryChoice("team", "postgresql://bob:hunter2@db:5432/lib", "bob")
    store.save(settings)
    assert "hunter2" not in settings_file.read_text(encoding="utf-8")
    assert store.load().library.url == "postgresql://bob@db:5432/lib"
    assert strip_password("postgresql://db/lib") == ("postgresql://db/lib", None)


def test_test_connection_says_the_server_is_down(qloop, qtbot, memory_keyring) -> None:
    page = _page(qtbot)
    port = _closed_port()
    page.url.setText(f"postgresql://127.0.0.1:{port}/library")
    page.user.setText("alice")
    outcome = _test_connection(qloop, page)
    assert outcome.kind == "unreachable"
    assert page.result.text().startswith("The server cannot be reached.")
    assert f"127.0.0.1:{port}" in page.result.text()
    assert page.test_button.isEnabled()


def test_test_connection_succeeds_on_the_real_server(qloop, qtbot, pg_dsn: str) -> None:
    page = _page(qtbot)
    page.url.setText(pg_dsn)
    page.user.setText("postgres")
    outcome = _test_connection(qloop, page)
    assert outcome.ok, page.result.text()
    assert page.result.text() == (
        f"Connected: PostgreSQL {outcome.server_version} with pgvector "
        f"{outcome.pgvector_version}. The team library can be used."
    )
    assert outcome.server_version.startswith("16.")


def test_test_connection_uses_the_password_in_the_keyring(
    qloop, qtbot, pg_server, pg_dsn: str, memory_keyring: MemoryKeyring
) -> None:
    with password_role(pg_server, pg_dsn, SECRET) as role:
        page = _page(qtbot)
        page.url.setText(pg_dsn)
        page.user.setText(role)
        page.password.setText("not it")
        wrong = _test_connection(qloop, page)
        assert wrong.kind == "login"
        assert page.result.text().startswith("The user name or the password is wrong.")
        page.password.setText(SECRET)
        assert page.store_password()  # what Save does
        assert page.password.text() == ""
        right = _test_connection(qloop, page)  # the field is empty: the keyring's is used
        assert right.ok, page.result.text()


def test_the_page_speaks_chinese(qloop, qtbot, memory_keyring) -> None:
    try:
        install_language("zh_CN")
        page = _page(qtbot)
        page.url.setText(f"postgresql://127.0.0.1:{_closed_port()}/library")
        _test_connection(qloop, page)
        assert page.team_choice.text() == "团队资料库（PostgreSQL 服务器）"
        assert page.result.text().startswith("无法连接到服务器。")
    finally:
        install_language("en")


def test_choosing_this_computer_again_reopens_the_file(
    desk, qloop, settings_file: Path, memory_keyring: MemoryKeyring
) -> None:
    library_file = Path(desk.bridge.library.path)
    # The opening scan's report must land while the loop runs, not while a dialog opens.
    qloop.run(desk.bridge.folders.wait_idle())
    dialog = desk.open_settings()
    dialog.library_page.team_choice.setChecked(True)
    dialog.library_page.url.setText(f"postgresql://127.0.0.1:{_closed_port()}/library")
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    qloop.call(save.click)
    qloop.run(desk.bridge.wait_idle())
    assert desk.bridge.library is None  # the team library could not be opened
    dialog = desk.open_settings()
    assert dialog.library_page.team_choice.isChecked()
    dialog.library_page.local_choice.setChecked(True)
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    qloop.call(save.click)
    qloop.run(desk.bridge.wait_idle())
    qloop.run(desk.bridge.folders.wait_idle())  # the reopened library's scan, likewise
    assert desk.bridge.library is not None
    assert Path(desk.bridge.library.path) == library_file
    assert SettingsStore(settings_file).load().library.kind == "local"
    assert "Library.agentmaker.sqlite" in desk.windowTitle()
