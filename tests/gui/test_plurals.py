"""Counts read naturally in both languages: "1 passage", "2 passages", "1 个段落"."""

from __future__ import annotations

from agentmaker.rag.ingest.batch import BatchReport, FileOutcome
from agentmaker_desk.i18n import install_language
from agentmaker_desk.library.ingest_panel import IngestPanel
from PySide6.QtCore import QCoreApplication

from tests.gui.helpers import save_shot


def _tr(context: str, text: str, n: int) -> str:
    return QCoreApplication.translate(context, text, "", n)


def test_english_uses_singular_and_plural() -> None:
    install_language("en")
    assert _tr("IngestPanel", "%n passage(s)", 1) == "1 passage"
    assert _tr("IngestPanel", "%n passage(s)", 2) == "2 passages"
    assert _tr("SettingsDialog", "%n scanned document(s) were read.", 1) == (
        "1 scanned document was read."
    )
    assert _tr("SettingsDialog", "{kind} at {url} (%n model(s))", 1).endswith("(1 model)")
    assert _tr("MainWindow", "%Ln passage(s)", 12345) == "12,345 passages"


def test_chinese_has_one_form() -> None:
    try:
        install_language("zh_CN")
        assert _tr("IngestPanel", "%n passage(s)", 1) == "1 个段落"
        assert _tr("IngestPanel", "%n passage(s)", 7) == "7 个段落"
        assert _tr("MainWindow", "%n document(s)", 1) == "1 个文档"
    finally:
        install_language("en")


def test_the_import_panel_and_the_status_bar_say_one_passage(desk, qloop, tmp_path) -> None:
    install_language("en")
    note = tmp_path / "note.txt"
    note.write_text("One short note about the deposit.", encoding="utf-8")
    report = qloop.run(desk.bridge.aingest([str(note)]))
    desk.ingest_panel.finish(report)
    assert desk.ingest_panel.detail_of(str(note)) == "1 passage"
    assert desk.status_label.text() == "1 document, 1 passage"
    assert desk.ingest_panel.progress.text() == "1 of 1 file"

    panel = IngestPanel()
    panel.begin([])
    panel.finish(BatchReport(files=[FileOutcome("/x/a.md", "indexed", chunks=3)]))
    assert panel.detail_of("/x/a.md") == "3 passages"
    save_shot(desk, "13-plurals-en.png")
