"""The window's main flows behave the same on a library file and on a team library.

Add files (dropped on the window), ask (a scripted model), follow a citation to its
passage, remove a document — once over a SQLite file, once over a real PostgreSQL with
pgvector opened the way the app opens it (Settings › Library, password from the keyring).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from agentmaker.testing import FakeEmbedder, ScriptedLLM
from agentmaker_desk.bridge.bridge import EngineBridge
from agentmaker_desk.main_window import MainWindow
from agentmaker_desk.settings.library_choice import LibraryChoice
from agentmaker_desk.settings.settings import ApiKeyStore, SettingsStore
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from tests.gui.conftest import make_desk
from tests.gui.helpers import StubOcrEngine, anchor_point, drop_files
from tests.gui.settings.test_settings import MemoryKeyring
from tests.pg_roles import database_of, password_role

PASSWORD = "team pass: 7#x"


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def _team_desk(qloop: Any, qtbot: Any, settings_file: Path, dsn: str, user: str) -> MainWindow:
    """A window that opened the team library at ``dsn`` as the app does on start."""
    store = SettingsStore(settings_file)
    settings = store.load()
    settings.library = LibraryChoice("team", dsn.replace("postgres:@", "", 1), user)
    store.save(settings)
    bridge = EngineBridge(
        embedder=FakeEmbedder(), keys=ApiKeyStore(), ocr_engine=StubOcrEngine(), folder_debounce=0.2
    )
    bridge._keys.set(settings.library.password_account, PASSWORD)
    window = MainWindow(bridge, store, bridge._keys)
    qtbot.addWidget(window)
    window.show()
    assert qloop.run(window.open_chosen_library(), timeout=60)
    assert bridge.library is not None
    assert qloop.run(bridge.folders.wait_idle())
    return window


@pytest.fixture(params=["file", "team"])
def any_desk(request, qloop, qtbot, tmp_path: Path, settings_file: Path, memory_keyring):  # type: ignore[no-untyped-def]
    if request.param == "file":
        window = make_desk(qloop, qtbot, tmp_path / "Library.agentmaker.sqlite", settings_file)
        yield window
        qloop.run(window.bridge.close_library())
        return
    server, dsn = request.getfixturevalue("pg_server"), request.getfixturevalue("pg_dsn")
    with password_role(server, dsn, PASSWORD) as role:
        window = _team_desk(qloop, qtbot, settings_file, dsn, role)
        yield window
        qloop.run(window.bridge.close_library())


def _titles(desk: MainWindow) -> set[str]:
    model = desk.browser.model
    return {model.index(r, 0).data() for r in range(model.rowCount())}


def test_add_ask_follow_a_citation_and_remove(any_desk, qloop, qtbot, good_dir: Path) -> None:
    desk = any_desk
    assert drop_files(desk, [good_dir / "cli.md", good_dir / "faq.md"])
    qloop.until(lambda: not desk.bridge.tasks, timeout=60)
    assert desk.ingest_panel.state_of(str(good_dir / "cli.md")) == "indexed"
    assert _titles(desk) == {"cli.md", "faq.md"}

    desk.bridge.library.set_llm(ScriptedLLM(["Use the add command [1]."], delay=0.01))
    desk.ask_bar.edit.setPlainText("How do I add a dependency?")
    desk.ask_bar.edit.moveCursor(QTextCursor.MoveOperation.End)
    qloop.call(lambda: QTest.keyClick(desk.ask_bar.edit, Qt.Key.Key_Return))
    qloop.until(lambda: not desk.bridge.answering and not desk.bridge.tasks, timeout=60)
    view = desk.transcript
    assert view.answer_text() == "Use the add command [1]."
    assert [a for a in view.anchors() if a.startswith("cite:")] == ["cite:0-1"]

    source = desk._sources[1]
    chunk = desk.bridge.library.source_store.get_chunk(source.chunk_id)
    point = anchor_point(view.browser, "cite:0-1")
    qloop.call(
        lambda: qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    )
    qloop.until(lambda: desk.browser.current_chunk() is not None)
    qloop.until(lambda: not desk.bridge.tasks)
    assert desk.source_view.highlighted_text() == chunk.content
    assert desk.browser.current_chunk().chunk_id == source.chunk_id

    cli = next(d for d in desk.bridge.documents if Path(d.source).name == "cli.md")
    qloop.run(desk.remove_document(cli.doc_id))
    qloop.until(lambda: not desk.bridge.tasks)
    qloop.until(lambda: _titles(desk) == {"faq.md"})
    stats = desk.bridge.library.pipeline.stats()
    assert (stats["documents"], stats["chunks"]) == (1, stats["indexed"])
    report = desk.bridge.library.pipeline.verify()  # both indexes match the documents
    assert not (report.missing_from_index or report.orphaned_in_index or report.pending)


def test_a_linked_folder_is_followed(any_desk, qloop, good_dir: Path, tmp_path: Path) -> None:
    desk = any_desk
    folder = tmp_path / "handbook"
    folder.mkdir()
    shutil.copy(good_dir / "faq.md", folder / "faq.md")
    qloop.run(desk.bridge.folders.alink(str(folder), []), timeout=60)
    qloop.run(desk.bridge.folders.wait_idle(), timeout=60)
    qloop.until(lambda: _titles(desk) == {"faq.md"}, timeout=30)
    qloop.run(desk.bridge.folders.refresh())
    [linked] = desk.bridge.folders.folders
    assert (linked.path, linked.files, linked.failed) == (str(folder), 1, 0)
    assert desk.bridge.folders.folder_of(str(folder / "faq.md")) == str(folder)


def test_the_app_starts_on_the_chosen_team_library(
    qloop, qtbot, tmp_path: Path, settings_file: Path, pg_server, pg_dsn: str, memory_keyring
) -> None:
    from agentmaker_desk.app import DeskApp

    with password_role(pg_server, pg_dsn, PASSWORD) as role:
        store = SettingsStore(settings_file)
        settings = store.load()
        settings.library = LibraryChoice("team", pg_dsn.replace("postgres:@", "", 1), role)
        store.save(settings)
        keys = ApiKeyStore()
        keys.set(settings.library.password_account, PASSWORD)
        unused = tmp_path / "Library.agentmaker.sqlite"
        desk_app = DeskApp(unused, store, keys, embedder=FakeEmbedder(), team=True)
        qtbot.addWidget(desk_app.window)

        async def start() -> Any:
            running = asyncio.ensure_future(desk_app.run())
            while desk_app.bridge.library is None:
                await asyncio.sleep(0.05)
            library = desk_app.bridge.library
            login, title = library.db.login, desk_app.window.windowTitle()
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            await desk_app.bridge.close_library()
            return login, title

        login, title = qloop.run(start(), timeout=60)
    assert login == role  # the person's own login: their documents are theirs
    assert title.startswith(database_of(pg_dsn) + " @ ")
    assert not unused.exists()  # no library file was made
