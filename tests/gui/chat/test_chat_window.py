"""The chat-first window: a chat remembers, chats switch, old citations open, export."""

from __future__ import annotations

from pathlib import Path

from agentmaker.testing import ScriptedLLM
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtTest import QTest

from ..helpers import anchor_point

POLICY = (
    "# Expense Policy\n\n"
    "## Meals\nThe daily meal allowance is 80 euros, and no receipt is needed for meals.\n\n"
    "## Lodging\nHotels are capped at 500 per night; a receipt is required for every hotel.\n\n"
    "## Travel\nTrain tickets are refunded in second class only.\n"
)


def _library(desk, qloop, tmp_path: Path) -> Path:
    path = tmp_path / "policy.md"
    path.write_text(POLICY, encoding="utf-8")
    qloop.run(desk.bridge.aingest([str(path)]))
    return path


def _type_and_send(desk, qloop, question: str) -> None:
    desk.ask_bar.edit.setPlainText(question)
    desk.ask_bar.edit.moveCursor(QTextCursor.MoveOperation.End)
    desk.ask_bar.edit.setFocus()
    qloop.call(lambda: QTest.keyClick(desk.ask_bar.edit, Qt.Key.Key_Return))
    qloop.until(lambda: not desk.bridge.answering and not desk.bridge.tasks)


def test_two_questions_in_one_chat(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    llm = ScriptedLLM(
        [
            "The daily meal allowance is 80 euros [1].",
            "hotel cost cap per night",
            "Hotels are capped at 500 per night [1].",
        ],
        delay=0.005,
    )
    desk.bridge.library.set_llm(llm)
    _type_and_send(desk, qloop, "What is the daily meal allowance?")
    _type_and_send(desk, qloop, "And for hotels?")

    view = desk.transcript
    questions = [t.question for t in view.turns]
    assert questions == ["What is the daily meal allowance?", "And for hotels?"]
    assert view.answer_text(0) == "The daily meal allowance is 80 euros [1]."
    assert view.answer_text(1) == "Hotels are capped at 500 per night [1]."
    text = view.browser.toPlainText()
    assert "Searched: hotel cost cap per night" in text  # the rewrite, shown under it
    assert text.index("80 euros") < text.index("And for hotels?") < text.index("500 per night")
    assert "cite:0-1" in view.anchors() and "cite:1-1" in view.anchors()
    # One chat in the sidebar, titled by its first question, selected.
    assert desk.conversation_list.titles() == ["What is the daily meal allowance?"]
    assert desk.conversation_list.selected_id() == desk.bridge.chats.current_id
    # The second answer's prompt carried the first turn.
    assert [m.role for m in llm.calls[2]] == ["system", "user", "assistant", "user"]


def test_switching_chats_restores_the_transcript(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "daily meal allowance")
    first_id = desk.bridge.chats.current_id
    first_answer = desk.transcript.answer_text(0)
    assert "80 euros" in first_answer

    qloop.call(lambda: QTest.keyClick(desk, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier))
    assert desk.transcript.turns == [] and desk.bridge.chats.current_id is None
    _type_and_send(desk, qloop, "train tickets refunded")
    second_id = desk.bridge.chats.current_id
    assert second_id != first_id
    assert desk.conversation_list.ids() == [second_id, first_id]  # newest first

    row = desk.conversation_list.list.item(1)
    qloop.call(lambda: desk.conversation_list.list.itemClicked.emit(row))
    qloop.until(lambda: desk.bridge.chats.current_id == first_id and not desk.bridge.tasks)
    assert [t.question for t in desk.transcript.turns] == ["daily meal allowance"]
    assert desk.transcript.answer_text(0) == first_answer
    assert "second class" not in desk.transcript.browser.toPlainText()

    # Asking now continues the first chat.
    _type_and_send(desk, qloop, "is a receipt needed for it?")
    assert len(desk.bridge.library.conversations.get(first_id).turns) == 2
    assert desk.conversation_list.ids() == [first_id, second_id]


def test_clicking_2_in_the_first_answer_opens_its_passage(
    desk, qloop, qtbot, tmp_path: Path
) -> None:
    _library(desk, qloop, tmp_path)
    desk.bridge.library.set_llm(
        ScriptedLLM(["Meals are 80 euros [1]; hotels need a receipt [2].", "q", "Trains [1]."])
    )
    _type_and_send(desk, qloop, "meal allowance and hotel receipt")
    _type_and_send(desk, qloop, "and trains?")
    view = desk.transcript
    wanted = view.source(0, 2)
    assert wanted is not None and wanted.heading_path

    point = anchor_point(view.browser, "cite:0-2")
    qloop.call(
        lambda: qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    )
    qloop.until(lambda: desk.source_view.highlighted_text() != "" and not desk.bridge.tasks)
    chunk = desk.bridge.library.source_store.get_chunk(wanted.chunk_id)
    assert desk.source_view.highlighted_text() == chunk.content
    assert wanted.heading_path in desk.source_view.location_label.text()


def test_an_old_passage_after_its_document_changed(desk, qloop, tmp_path: Path) -> None:
    path = _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "daily meal allowance")
    meal = desk.transcript.source(0, 1)
    assert "80 euros" in meal.content
    path.write_text(POLICY.replace("80 euros", "95 euros"), encoding="utf-8")
    qloop.run(desk.bridge.aingest([str(path)]))

    qloop.run(desk.bridge.chats.open(desk.bridge.chats.current_id))
    assert "this passage has changed since" in desk.transcript.browser.toPlainText()
    qloop.call(lambda: desk.show_source(1, 0))
    qloop.until(lambda: not desk.bridge.tasks)
    assert "80 euros" in desk.source_view.highlighted_text()  # what the answer used
    assert "changed since" in desk.source_view.note_label.text()


def test_export_writes_the_answer_and_numbered_sources(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "daily meal allowance")
    answer = desk.transcript.answer_text(0)
    target = tmp_path / "out" / "chat.md"
    target.parent.mkdir()
    qloop.run(desk.export_conversation_to(str(target)))
    text = target.read_text(encoding="utf-8")
    assert answer.strip() in text
    for src in desk.transcript.turns[0].sources:
        section = src.heading_path.removeprefix("Expense Policy > ")
        assert f"{src.n}. Expense Policy — {section} ({tmp_path / 'policy.md'})" in text
    page = tmp_path / "out" / "chat.html"
    qloop.run(desk.export_conversation_to(str(page)))
    assert '<a href="#t1-s1">[1]</a>' in page.read_text(encoding="utf-8")
    assert desk.export_action.text() == "Export conversation…"


def test_rename_delete_undo_and_search(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "daily meal allowance")
    meals = desk.bridge.chats.current_id
    desk.new_chat()
    _type_and_send(desk, qloop, "train tickets refunded")
    chats = desk.conversation_list

    item = chats.list.item(1)
    item.setText("Meals")  # what editing the row in place does
    qloop.until(lambda: not desk.bridge.tasks)
    assert chats.titles() == ["train tickets refunded", "Meals"]

    chats.search_edit.setText("allowance")
    qloop.until(lambda: chats.ids() == [meals])
    chats.search_edit.clear()
    qloop.until(lambda: len(chats.ids()) == 2)

    chats.list.setCurrentRow(1)
    qloop.call(chats.delete_button.click)
    qloop.until(lambda: not desk.bridge.tasks)
    assert chats.titles() == ["train tickets refunded"]
    assert chats.undo_bar.isVisibleTo(desk) and "Meals" in chats.undo_label.text()
    qloop.call(chats.undo_button.click)
    qloop.until(lambda: not desk.bridge.tasks)
    assert chats.titles() == ["train tickets refunded", "Meals"]
    assert len(desk.bridge.library.conversations.get(meals).turns) == 1


def test_copy_and_regenerate(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "daily meal allowance")
    copied = desk.transcript.copy_answer(0)
    assert QGuiApplication.clipboard().text() == copied
    assert "80 euros" in copied
    assert "Sources:\n[1] policy.md — Expense Policy > Meals\n" in copied

    desk.bridge.library.set_llm(ScriptedLLM(["It is 80 euros [1]."]))  # no history: no rewrite
    assert "regen:0" in desk.transcript.anchors()
    qloop.call(desk.regenerate)
    qloop.until(lambda: not desk.bridge.answering and not desk.bridge.tasks)
    assert len(desk.transcript.turns) == 1
    assert desk.transcript.answer_text(0) == "It is 80 euros [1]."
    [turn] = desk.bridge.library.conversations.get(desk.bridge.chats.current_id).turns
    assert turn.answer == "It is 80 euros [1]." and turn.model == "scripted"


def test_icon_buttons_have_accessible_names(desk) -> None:
    chats = desk.conversation_list
    for button in (chats.rename_button, chats.delete_button, desk.ask_bar.stop_button):
        assert button.accessibleName()
    assert desk.sidebar.tabText(0) == "Chats" and desk.sidebar.tabText(1) == "Library"
    assert desk.new_chat_action.shortcut().toString() == "Ctrl+N"


def test_an_extractive_answer_can_be_written_with_a_model(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "daily meal allowance")
    assert "write:0" not in desk.transcript.anchors()  # no model set up
    desk.bridge.library.set_llm(ScriptedLLM(["Meals: 80 euros a day [1]."]))
    desk.transcript.set_model_available(desk.bridge.has_model)
    assert "write:0" in desk.transcript.anchors()
    assert "Write with a model" in desk.transcript.browser.toPlainText()
    qloop.call(lambda: desk.transcript.browser.anchorClicked.emit(QUrl("write:0")))
    qloop.until(lambda: not desk.bridge.answering and not desk.bridge.tasks)
    assert desk.transcript.answer_text(0) == "Meals: 80 euros a day [1]."
    assert "write:0" not in desk.transcript.anchors()  # no longer extractive


def test_the_quoted_sentence_is_marked_in_the_passage(desk, qloop, tmp_path: Path) -> None:
    _library(desk, qloop, tmp_path)
    _type_and_send(desk, qloop, "Are train tickets refunded in second class?")
    view = desk.transcript
    n = next(s.n for s in view.turns[0].sources if "Train tickets" in s.content)
    assert f"[{n}]" in view.answer_text(0)  # extractive: it quotes the passage
    qloop.call(lambda: desk.show_source(n))
    qloop.until(lambda: desk.source_view.quoted_texts() != [] and not desk.bridge.tasks)
    assert desk.source_view.quoted_texts() == ["Train tickets are refunded in second class only."]


def test_a_failing_model_shows_its_message_in_the_chat(desk, qloop, tmp_path: Path) -> None:
    from agentmaker.errors import ModelConnectionError

    _library(desk, qloop, tmp_path)
    desk.bridge.library.set_llm(
        ScriptedLLM([ModelConnectionError("The model server at 127.0.0.1:9 did not answer.")])
    )
    _type_and_send(desk, qloop, "daily meal allowance")
    text = desk.transcript.browser.toPlainText()
    assert "daily meal allowance" in text
    assert "⚠ The model server at 127.0.0.1:9 did not answer." in text
    assert not desk.transcript.is_streaming and not desk.ask_bar.stop_button.isEnabled()
