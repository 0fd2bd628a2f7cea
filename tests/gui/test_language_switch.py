"""Switching the language keeps what the window shows: the chat and its answer, the
passage, the draft question, the import panel's failures and the folder sync offer."""

from __future__ import annotations

from pathlib import Path

from agentmaker.testing import FakeEmbedder
from agentmaker_desk.app import DeskApp
from agentmaker_desk.i18n import install_language
from agentmaker_desk.settings.settings import ApiKeyStore, SettingsStore

from tests.gui.helpers import save_shot


def test_the_answer_and_the_failures_survive_a_language_switch(
    qloop, qtbot, tmp_path: Path, settings_file: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rent.md").write_text(
        "# Rent\nThe rent is 950 EUR per month, paid on the first working day.\n",
        encoding="utf-8",
    )
    (docs / "blank.txt").write_text("", encoding="utf-8")  # cannot be indexed
    desk = DeskApp(
        tmp_path / "Library.agentmaker.sqlite",
        SettingsStore(settings_file),
        ApiKeyStore(),
        embedder=FakeEmbedder(),
    )
    old = desk.window
    old.resize(1280, 800)
    old.show()
    try:
        assert qloop.run(desk.bridge.open_library(tmp_path / "Library.agentmaker.sqlite"))
        qloop.run(desk.bridge.folders.wait_idle())
        old.add_paths([str(docs)])
        qloop.until(lambda: not desk.bridge.tasks)
        assert old.ingest_panel.state_of(str(docs / "blank.txt")) == "failed"
        assert old.link_offer.isVisible()
        qloop.run(old.ask("How much is the rent?"))
        qloop.until(lambda: not desk.bridge.busy)
        answer = old.transcript.answer_text()
        assert "950 EUR" in answer
        qloop.run(old.show_source(1))
        assert "950 EUR" in old.source_view.highlighted_text()
        old.ask_bar.edit.setPlainText("And the deposit?")
        chat_id = desk.bridge.chats.current_id
        assert chat_id is not None

        reopened = qloop.call(lambda: desk.switch_language("zh_CN"))
        new = desk.window
        assert new is not old
        qloop.run(reopened)
        qloop.settle()

        # Labels are Chinese now …
        assert new.sidebar.tabText(0) == "对话"
        assert new.ingest_panel.label_of(str(docs / "blank.txt")) == "无法读取"
        assert "无法读取" in new.ingest_panel.batch_headings()[0]
        # … and nothing the person was looking at is gone.
        assert new.transcript.answer_text() == answer
        assert new.bridge.chats.current_id == chat_id
        assert new.conversation_list.list.count() == 1  # the chats list is there too
        assert "950 EUR" in new.source_view.highlighted_text()
        assert new.ask_bar.edit.toPlainText() == "And the deposit?"
        assert new.ingest_panel.isVisible()
        assert new.ingest_panel.failed_paths() == [str(docs / "blank.txt")]
        assert new.link_offer.isVisible() and new.link_offer.folders == [str(docs)]
        assert new.browser.failures_button.text() == "无法添加的文件（1）"
        save_shot(new, "15-language-switched-zh.png")

        back = qloop.call(lambda: desk.switch_language("en"))
        qloop.run(back)
        assert desk.window.sidebar.tabText(0) == "Chats"
        assert desk.window.transcript.answer_text() == answer
        assert desk.window.ingest_panel.label_of(str(docs / "blank.txt")) == "Could not be read"
    finally:
        install_language("en")
        qloop.run(desk.bridge.close_library())
        desk.window.close()
