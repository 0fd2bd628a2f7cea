"""Asking: streamed answers, citation links, source view highlighting, Stop, escaping."""

from __future__ import annotations

from pathlib import Path

from agentmaker.testing import ScriptedLLM
from agentmaker_desk.library.chunk_tree_model import NodeKind, Roles
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from tests.gui.helpers import anchor_point


def _ask(desk, qloop, question: str) -> None:
    desk.ask_bar.edit.setPlainText(question)
    desk.ask_bar.edit.moveCursor(QTextCursor.MoveOperation.End)
    desk.ask_bar.edit.setFocus()
    qloop.call(lambda: QTest.keyClick(desk.ask_bar.edit, Qt.Key.Key_Return))  # Enter sends
    qloop.until(lambda: not desk.bridge.answering)
    qloop.until(lambda: not desk.bridge.tasks)


def _ask_a_checking_model(
    desk, qloop, doc: Path, text: str, reply: str, question: str
) -> ScriptedLLM:
    """``question`` asked of ``doc`` (holding ``text``) with a model whose answers are
    checked, as the built-in model's are, that replies ``reply``."""
    doc.write_text(text, encoding="utf-8")
    qloop.run(desk.bridge.aingest([str(doc)]))
    llm = ScriptedLLM([reply], delay=0.01)
    llm.checks_answers = True  # as the built-in model does
    desk.bridge.library.set_llm(llm)
    _ask(desk, qloop, question)
    return llm


def test_streamed_answer_links_citations_and_clicking_one_shows_the_passage(
    desk, qloop, qtbot, good_dir: Path
) -> None:
    qloop.run(desk.bridge.aingest([str(good_dir / "cli.md"), str(good_dir / "faq.md")]))
    reply = "Use the add command [1]; options are listed too [2]. Unknown [9]."
    desk.bridge.library.set_llm(ScriptedLLM([reply], delay=0.01))
    _ask(desk, qloop, "How do I add a dependency?")

    view = desk.transcript
    # [9] points to no passage the model was given: the engine removes it.
    assert view.answer_text() == reply.replace(" [9]", "")
    assert desk.ask_bar.question() == ""  # the box is cleared for the next question
    cites = [a for a in view.anchors() if a.startswith("cite:")]
    assert cites == ["cite:0-1", "cite:0-2"]
    assert "Unknown." in view.browser.toPlainText()
    sources = [a for a in view.anchors() if a.startswith("src:")]
    assert sources == [f"src:0-{n}" for n in sorted(desk._sources)] and len(sources) >= 2

    source = desk._sources[2]
    chunk = desk.bridge.library.source_store.get_chunk(source.chunk_id)
    point = anchor_point(view.browser, "cite:0-2")
    clicked: list[tuple[int, int]] = []
    view.citationClicked.connect(lambda t, n: clicked.append((t, n)))
    qloop.call(
        lambda: qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    )
    assert clicked == [(0, 2)]
    qloop.until(lambda: desk.browser.current_chunk() is not None)
    qloop.until(lambda: not desk.bridge.tasks)

    selected = desk.browser.tree.currentIndex()
    assert selected.data(Roles.KIND) == NodeKind.CHUNK
    assert selected.data(Roles.CHUNK_ID) == source.chunk_id
    assert desk.browser.tree.isExpanded(selected.parent())
    assert desk.source_view.highlighted_text() == chunk.content
    assert desk.source_view.title_label.text() == source.title
    assert desk.browser.chunk_text.toPlainText() == chunk.content


def test_stop_ends_the_answer(desk, qloop, good_dir: Path) -> None:
    qloop.run(desk.bridge.aingest([str(good_dir / "faq.md")]))
    words = " ".join(f"word{i}" for i in range(400)) + " [1]"
    llm = ScriptedLLM([words], delay=0.01)
    desk.bridge.library.set_llm(llm)
    desk.ask("What is this about?")
    qloop.until(lambda: len(desk.transcript.answer_text()) > 40)
    assert desk.ask_bar.stop_button.isEnabled()
    qloop.call(desk.ask_bar.stop_button.click)
    qloop.until(lambda: not desk.bridge.tasks)
    assert not desk.transcript.is_streaming
    assert not desk.ask_bar.stop_button.isEnabled()
    assert "Stopped." in desk.transcript.browser.toPlainText()
    assert len(desk.transcript.answer_text()) < len(words)
    assert llm.closed_streams == 1
    # What was written before Stop is kept in the chat.
    [turn] = desk.bridge.library.conversations.get(desk.bridge.chats.current_id).turns
    assert turn.stopped and turn.answer == desk.transcript.answer_text()


def test_extractive_answer_is_labelled(desk, qloop, good_dir: Path) -> None:
    qloop.run(desk.bridge.aingest([str(good_dir / "faq.md")]))
    desk.ask("How do I install it?")
    qloop.until(lambda: not desk.bridge.tasks)
    text = desk.transcript.browser.toPlainText()
    assert "Extractive answer (no model)" in text
    cites = [a for a in desk.transcript.anchors() if a.startswith("cite:")]
    assert cites and all(a.startswith("cite:0-") for a in cites)


def test_document_html_is_shown_as_text_and_only_cite_links_act(
    desk, qloop, tmp_path: Path
) -> None:
    evil = tmp_path / "evil.md"
    payload_img = "<img src=x onerror=alert(1)>"
    payload_link = '<a href="file:///etc/passwd">x</a>'
    evil.write_text(
        f"# Strange notes\n\nThe gateway password note says {payload_img} and then "
        f"{payload_link} about the gateway password.\n",
        encoding="utf-8",
    )
    qloop.run(desk.bridge.aingest([str(evil)]))
    desk.ask("gateway password note")
    qloop.until(lambda: not desk.bridge.tasks)

    view = desk.transcript
    plain = view.browser.toPlainText()
    assert payload_img in plain
    assert payload_link in plain
    rendered = view.browser.toHtml()
    assert "<img" not in rendered and "&lt;img src=x onerror=alert(1)&gt;" in rendered
    assert 'href="file:' not in rendered
    own = ("cite:", "src:", "toggle:", "copy:", "regen:")
    assert view.anchors() and all(a.startswith(own) for a in view.anchors())
    # The source view shows the same characters as plain text.
    qloop.call(lambda: desk.show_source(1))
    qloop.until(lambda: not desk.bridge.tasks)
    assert payload_img in desk.source_view.text.toPlainText()
    assert payload_link in desk.source_view.highlighted_text()


def test_an_unsupported_answer_is_not_shown_as_one_and_its_draft_is_noted(
    desk, qloop, tmp_path: Path
) -> None:
    _ask_a_checking_model(
        desk,
        qloop,
        tmp_path / "siege.md",
        "# Siege\n\nThe large siege guns, of nine-inch calibre, were hauled by ten yoke of oxen.\n",
        "The guns were hauled by 40 horses [1].",
        "How many horses hauled the large siege guns?",
    )
    view = desk.transcript
    text = view.browser.toPlainText()
    # The documents do not say it: that is the answer; the model's text is a noted draft.
    assert view.answer_text().startswith("Your documents do not seem to answer this")
    assert "not shown as the answer. Its unchecked draft: The guns were hauled by 40" in text
    assert [a for a in view.anchors() if a.startswith("src:")]  # the passages looked at


def test_an_answer_from_the_second_look_is_linked_and_noted(desk, qloop, tmp_path: Path) -> None:
    for name, text in (
        ("siege.md", "The large siege guns, of nine-inch calibre, were hauled by oxen."),
        ("pickets.md", "The rear of the division was guarded by pickets at night."),
    ):
        (tmp_path / name).write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    qloop.run(desk.bridge.aingest([str(tmp_path / "siege.md"), str(tmp_path / "pickets.md")]))
    # "I don't know" from both passages; from the first alone, the answer (confirmed).
    llm = ScriptedLLM(["I don't know.", "They were of nine-inch calibre. [1]", "Yes."], delay=0.01)
    llm.checks_answers = True  # as the built-in model does
    desk.bridge.library.set_llm(llm)
    _ask(desk, qloop, "What calibre were the large siege guns?")
    view = desk.transcript
    assert view.answer_text() == "They were of nine-inch calibre. [1]"
    assert "cite:0-1" in view.anchors() and len(llm.calls) == 3
    assert "this one is from its second reading, of passage [1] alone" in (
        view.browser.toPlainText()
    )


def test_an_answer_the_model_went_on_to_is_linked_and_noted(desk, qloop, tmp_path: Path) -> None:
    doc = tmp_path / "siege.md"
    doc.write_text("# Siege\n\nThe large siege guns were of nine-inch calibre.\n", encoding="utf-8")
    qloop.run(desk.bridge.aingest([str(doc)]))
    # It only points ("… were of [1]."); asked to go on from there, it writes the value.
    llm = ScriptedLLM(["The large siege guns were of [1].", " nine-inch calibre. [1]"], delay=0.01)
    llm.checks_answers = llm.continues_answers = True  # as the built-in model does
    desk.bridge.library.set_llm(llm)
    _ask(desk, qloop, "What calibre were the large siege guns?")
    view = desk.transcript
    assert view.answer_text() == "The large siege guns were of nine-inch calibre. [1]"
    assert "cite:0-1" in view.anchors() and len(llm.calls) == 2
    assert "this is its own sentence, finished when it was asked to go on" in (
        view.browser.toPlainText()
    )


def test_a_question_for_a_column_the_row_lacks_is_noted_with_its_columns(
    desk, qloop, tmp_path: Path
) -> None:
    llm = _ask_a_checking_model(
        desk,
        qloop,
        tmp_path / "weather.csv",
        "date,precipitation,temp_max,wind\n2014/06/20,0.0,25.0,3.1\n2014/06/21,0.0,27.8,2.6\n",
        "Seattle got 2.6 hours of sunshine. [1]",
        "How many hours of sunshine were recorded on 2014/06/21?",
    )
    view = desk.transcript
    assert view.answer_text().startswith("Your documents do not seem to answer this")
    assert llm.calls == []  # the row has no such column: the model was not asked
    assert "none of its columns (date, precipitation, temp_max, wind)" in (
        view.browser.toPlainText()
    )
