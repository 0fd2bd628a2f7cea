"""Slides, sheet rows and messages shown where the app names a passage's place."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder
from agentmaker_desk.chat.source_labels import place_text, where_text
from agentmaker_desk.chat.source_view import SourceView
from agentmaker_desk.chat.transcript import TranscriptView
from agentmaker_desk.i18n import install_language
from agentmaker_desk.library.chunk_tree_model import ChunkTreeModel
from PySide6.QtCore import QModelIndex, Qt

from tests.engine.rag.readers.office_files import make_mbox, make_pptx, make_xlsx


@pytest.fixture
def library(tmp_path: Path):
    make_pptx(tmp_path / "review.pptx")
    make_xlsx(tmp_path / "budget.xlsx")
    make_mbox(tmp_path / "inbox.mbox")
    lib = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    lib.pipeline.ingest_paths([tmp_path / n for n in ("review.pptx", "budget.xlsx", "inbox.mbox")])
    yield lib
    lib.close()


def _chunk(library: Library, text: str):
    for info in library.source_store.list_documents():
        for chunk in library.source_store.chunks_of(info.doc_id):
            if text in chunk.content:
                return info, chunk
    raise AssertionError(text)


def test_source_view_names_slide_sheet_row_and_message(qtbot, library: Library) -> None:
    view = SourceView()
    qtbot.addWidget(view)
    expected = {
        "lift is out of order": "slide 1 · Office move",
        "Removal van": "slide 2 · Costs",
        "Electricity": "Sheet 'Budget', rows 2–5",
        "Blue Whale": "“Team lunch” — 2026-03-03 · Team lunch > Lunch",
    }
    for text, where in expected.items():
        info, chunk = _chunk(library, text)
        view.show_passage(
            title=info.title,
            source_path=info.source,
            document_text=library.source_store.document_text(info.doc_id),
            chunk=chunk,
        )
        assert view.location_label.text().startswith(where + " · "), text
        assert text in view.highlighted_text()


def test_sources_list_cites_the_answering_row(qtbot, library: Library) -> None:
    result = asyncio.run(library.rag.ask("Electricity amount in March", top_k=2))
    assert where_text(result.sources[0]) == "Sheet 'Budget', row 3"
    view = TranscriptView()  # the sources under an answer
    qtbot.addWidget(view)
    view.start_turn("Electricity amount in March")
    view.set_sources(result.sources, extractive=True)
    view.append(result.answer)
    view.finish(None, stopped=False)
    assert "· Sheet 'Budget', row 3" in view.browser.toPlainText()


def test_chunk_tree_groups_slides_and_sheets(qtbot, library: Library) -> None:
    model = ChunkTreeModel(library.source_store)
    model.set_documents(library.source_store.list_documents())
    labels: dict[str, list[str]] = {}
    for row in range(model.rowCount()):
        doc = model.index(row, 0)
        while model.canFetchMore(doc):
            model.fetchMore(doc)
        for h in range(model.rowCount(doc)):
            heading = model.index(h, 0, doc)
            while model.canFetchMore(heading):
                model.fetchMore(heading)
            children = [
                model.index(c, 0, heading).data(Qt.ItemDataRole.DisplayRole)
                for c in range(model.rowCount(heading))
            ]
            labels[heading.data(Qt.ItemDataRole.DisplayRole)] = children
    assert labels["Office move  (1)"][0].startswith("#1 · slide 1  Office move")
    assert labels["Sheet 'Budget'  (1)"][0].startswith("#1 · rows 2–5  [row 2] Item: Rent")
    assert labels["Sheet 'Staff'  (1)"][0].startswith("#2 · rows 3–4")
    assert model.rowCount(QModelIndex()) == 3


def test_places_are_translated(qtbot) -> None:
    try:
        install_language("zh_CN")
        assert place_text({"slide": 7, "page": 7}) == "第 7 张幻灯片"
        assert place_text({"sheet": "Budget", "row": 42}) == "工作表“Budget”，第 42 行"
        assert place_text({"sheet": "Budget", "records": [2, 9]}) == "工作表“Budget”，第 2–9 行"
    finally:
        install_language("en")
    assert place_text({"sheet": "Budget", "records": [4, 4]}) == "Sheet 'Budget', row 4"
    assert place_text({"page": 3}) == "p. 3"
    assert place_text({"location": "“Hi” — 2026-01-02"}) == "“Hi” — 2026-01-02"
