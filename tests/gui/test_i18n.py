"""The Chinese translation is complete and loads."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from agentmaker_desk.i18n import install_language, resolve_language, translations_dir
from agentmaker_desk.widgets.empty_state import EmptyLibraryView
from PySide6.QtCore import QCoreApplication


def test_every_string_is_translated() -> None:
    root = ET.parse(translations_dir() / "agentmaker_desk_zh_CN.ts").getroot()
    messages = root.findall("./context/message")
    assert len(messages) > 150

    def text(m: ET.Element) -> str:
        # Plural messages ("%n file(s)") keep their text in <numerusform> children.
        return "".join(m.find("translation").itertext()).strip()

    unfinished = [
        m.findtext("source")
        for m in messages
        if m.find("translation").get("type") in ("unfinished", "obsolete", "vanished")
        or not text(m)
    ]
    assert unfinished == []


def test_chinese_is_installed_and_switched_back(qtbot) -> None:
    try:
        assert install_language("zh_CN") == "zh_CN"
        view = EmptyLibraryView()
        qtbot.addWidget(view)
        assert view.message.text() == "把文件或文件夹拖到这里，或点击“添加文件…”或“添加文件夹…”"
        translated = QCoreApplication.translate("SourcesView", "p. {page}")
        assert translated.format(page=3) == "第 3 页"
    finally:
        install_language("en")
    assert (
        EmptyLibraryView().message.text()
        == "Drop files or folders here, or click Add files… or Add folder…"
    )
    assert resolve_language("fr") == "en"


def test_the_engines_fixed_answers_are_shown_in_the_windows_language() -> None:
    from agentmaker.rag.answer.checked import NOT_FOUND_ANSWER, NOT_FOUND_ANSWER_ZH
    from agentmaker.rag.answer.prompting import NO_HITS_ANSWER, NO_SENTENCE_ANSWER
    from agentmaker_desk.chat.transcript import CANNED_ANSWERS

    # the same text as the engine's
    assert CANNED_ANSWERS == (NO_HITS_ANSWER, NO_SENTENCE_ANSWER, NOT_FOUND_ANSWER)
    try:
        install_language("zh_CN")
        shown = [QCoreApplication.translate("TranscriptView", text) for text in CANNED_ANSWERS]
    finally:
        install_language("en")
    assert shown[0].startswith("在您的文档中没有找到") and shown[1].startswith("为这个问题找到了")
    assert shown[2] == NOT_FOUND_ANSWER_ZH  # as the engine answers a question in Chinese
