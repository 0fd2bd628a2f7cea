"""Questions answered from a slide, a spreadsheet row and an e-mail, end to end.

Real files, the real ingestion pipeline into a real library file, RagRetriever with the
deterministic FakeEmbedder and a scripted model; each citation's location is checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

import pytest
from agentmaker import RagConfig
from agentmaker.errors import UnknownFilterFieldError
from agentmaker.library import Library
from agentmaker.retrieval.types import MetadataFilter
from agentmaker.testing import FakeEmbedder, ScriptedLLM

from ..readers.office_files import make_mbox, make_pptx, make_xlsx


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    files = tmp_path / "files"
    files.mkdir()
    make_pptx(files / "review.pptx")
    make_xlsx(files / "budget.xlsx")
    workbook = (files / "budget.xlsx").read_bytes()
    make_mbox(files / "inbox.mbox", attachment=workbook)
    return files


@pytest.fixture
def library(tmp_path: Path, folder: Path):
    lib = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    report = lib.pipeline.ingest_paths([folder])
    assert sorted(f.status for f in report.files) == ["indexed"] * 3
    yield lib
    lib.close()


def _ask(library: Library, question: str, **kwargs):
    library.set_llm(ScriptedLLM(["From the documents [1]."]))
    return asyncio.run(library.rag.ask(question, top_k=3, **kwargs))


def test_answer_from_a_slide(library: Library) -> None:
    result = _ask(library, "When is the lift out of order?")
    top = result.sources[0]
    assert "lift is out of order until June" in top.content
    assert top.title == "Quarterly review"
    assert top.location == "slide 1"
    assert top.heading_path == "Office move"
    prompt = library.llm.calls[0][1].content  # type: ignore[union-attr]
    assert "<<<PASSAGE 1 | Quarterly review — slide 1>>>" in prompt


def test_answer_from_a_spreadsheet_row(library: Library) -> None:
    result = _ask(library, "How much is the Electricity amount?")
    top = result.sources[0]
    assert "[row 3] Item: Electricity; Amount: 80.5" in top.content
    # the chunk holds rows 2-5; the citation names the row that answers
    assert top.location == "Sheet 'Budget', row 3"
    assert top.metadata["record"] == "rows 2–5"
    assert Path(top.source).name in ("budget.xlsx", "inbox.mbox")


def test_answer_from_an_email(library: Library) -> None:
    result = _ask(library, "Where do we meet for the team lunch?")
    top = result.sources[0]
    assert "Blue Whale pier restaurant" in top.content
    assert top.location == "“Team lunch” — 2026-03-03"
    assert top.metadata["mail_from"] == "bob@example.org"
    assert Path(top.source).name == "inbox.mbox"


def test_mail_fields_filter_messages_and_attachments(library: Library) -> None:
    hits = library.rag.retrieve(
        "Rent amount", top_k=10, filters=[MetadataFilter("mail_from", "ana@example.org")]
    )
    titles = {h.metadata["title"] for h in hits}
    assert titles == {"inbox", "budget.xlsx (attached to “Budget for March” — 2026-03-02)"}
    attached = next(h for h in hits if h.metadata["title"] != "inbox")
    assert attached.metadata["location"].startswith("Sheet '")
    by_day = library.rag.retrieve(
        "lunch", top_k=10, filters=[MetadataFilter("mail_date", "2026-03-03")]
    )
    assert by_day and {h.metadata["location"] for h in by_day} == {"“Team lunch” — 2026-03-03"}


def test_attachments_follow_their_message(library: Library, folder: Path) -> None:
    store = library.source_store
    mbox = next(d for d in store.list_documents() if d.title == "inbox")
    (child,) = mbox.metadata["attachment_ids"]
    assert store.get_document(child).metadata["parent_doc_id"] == mbox.doc_id
    # the same mailbox without the attachment: the attached document goes
    make_mbox(folder / "inbox.mbox", attachment=None)
    library.pipeline.ingest_paths([folder / "inbox.mbox"])
    assert store.get_document(child) is None
    # and deleting a message file deletes its attachments
    make_mbox(folder / "inbox.mbox", attachment=(folder / "budget.xlsx").read_bytes())
    library.pipeline.ingest_paths([folder / "inbox.mbox"])
    assert store.get_document(child) is not None
    assert library.pipeline.delete_document(mbox.doc_id)
    assert store.get_document(child) is None
    assert library.pipeline.verify().ok


def test_library_from_before_mail_columns_gets_them(tmp_path: Path, folder: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = Library.open(
        path, embedder=FakeEmbedder(), config=RagConfig(metadata_columns=("doc_id", "format"))
    )
    old.pipeline.ingest_paths([folder / "inbox.mbox"])
    with pytest.raises(UnknownFilterFieldError):
        old.rag.retrieve("lunch", filters=[MetadataFilter("mail_from", "bob@example.org")])
    old.close()

    reopened = Library.open(path, embedder=FakeEmbedder())  # today's default columns
    try:
        hits = reopened.rag.retrieve(
            "lunch", top_k=5, filters=[MetadataFilter("mail_from", "bob@example.org")]
        )
        assert hits and all(h.metadata["mail_from"] == "bob@example.org" for h in hits)
    finally:
        reopened.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(items)")}
    assert {"m_mail_from", "m_mail_to", "m_mail_date"} <= columns
