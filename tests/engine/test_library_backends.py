"""The main library flows on both backends: a library file and a team library on a real
PostgreSQL with pgvector (one database a test). Everything above ``HybridRetriever`` is
the same code; these tests show it behaves the same."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.config import RagConfig
from agentmaker.retrieval import Scope
from agentmaker.testing import FakeEmbedder

from tests.paths import CORPUS

POLICY = (
    "# Expense Policy\n\n## Meals\nThe daily meal allowance is 80, no receipt needed.\n\n"
    "## Lodging\nHotels are capped at 500 per night, receipt required.\n\n"
    "## Travel\nTrain tickets are refunded in second class only.\n"
)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a library lives: a file, or a fresh database on the test server."""
    if request.param == "sqlite":
        return str(tmp_path / "lib.sqlite")
    return str(request.getfixturevalue("pg_dsn"))


def _open(target: str, scope: Scope | None = None) -> Library:
    config = RagConfig(scope=scope) if scope else None
    return Library.open(target, embedder=FakeEmbedder(), config=config)


def test_ingest_and_ask_with_page_citations(target: str, tmp_path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is absent")
    files = tmp_path / "files"
    files.mkdir()
    for name in ("Seige_of_Vicksburg_Sample_OCR.pdf", "cli.md", "docx-tables.docx"):
        shutil.copy(CORPUS / "good" / name, files / name)
    with _open(target) as lib:
        report = lib.pipeline.ingest_paths([files])
        assert len(report.by_status("indexed")) == 3
        result = asyncio.run(lib.rag.ask("How many yoke of oxen did it take to haul each gun?"))
        assert result.extractive and "[1]" in result.answer
        pdf = [s for s in result.sources if s.source.endswith(".pdf")]
        assert pdf and pdf[0].page == 4 and "yoke of oxen" in pdf[0].content
        stats = lib.pipeline.stats()
        assert stats["documents"] == 3 and stats["indexed"] == stats["chunks"] > 3
        assert lib.pipeline.verify().ok


def test_reingest_skips_unchanged_and_replaces_changed(target: str, tmp_path: Path) -> None:
    path = tmp_path / "policy.md"
    path.write_text(POLICY)
    with _open(target) as lib:
        first = lib.pipeline.ingest_file(path)
        assert not first.skipped
        assert lib.pipeline.ingest_file(path).skipped
        path.write_text(POLICY.replace("80", "95").split("## Travel")[0])
        changed = lib.pipeline.ingest_file(path)
        assert not changed.skipped and changed.chunks < first.chunks
        hits = lib.rag.retrieve("daily meal allowance", top_k=5)
        assert "95" in hits[0].content and all("Train" not in h.content for h in hits)
        assert lib.pipeline.verify().ok
        assert lib.retriever.count(scope=lib.pipeline.scope) == lib.source_store.count_chunks()


def test_delete_removes_a_document_everywhere(target: str) -> None:
    with _open(target) as lib:
        lib.pipeline.ingest_text(POLICY, source="policy.md")
        lib.pipeline.ingest_text("# Other\nThe laptop is handed out on day one.", source="o.md")
        doc = lib.source_store.find_by_source("policy.md")
        assert doc is not None
        assert lib.pipeline.delete_document(doc.doc_id)
        assert all(h.source != "policy.md" for h in lib.rag.retrieve("hotel receipt", top_k=5))
        assert lib.pipeline.stats()["documents"] == 1 and lib.pipeline.verify().ok


def test_an_interrupted_write_is_healed_on_open(target: str) -> None:
    with _open(target) as lib:
        report = lib.pipeline.ingest_text(POLICY, source="policy.md")
        # A write that died after it started: the bookkeeping says pending, the index
        # lost the document's chunks.
        lib.pipeline.index_sync.bookkeeping.mark_pending(report.doc_id)
        lib.retriever.delete(lib.source_store.chunk_ids_of(report.doc_id))
        assert not lib.pipeline.verify().ok
    with _open(target) as lib:
        assert lib.pipeline.verify().ok
        assert lib.rag.retrieve("hotel per night", top_k=1)[0].source == "policy.md"


def test_people_in_one_library_are_kept_apart(target: str) -> None:
    alice, bob = Scope(base="rag", user="alice"), Scope(base="rag", user="bob")
    with _open(target, alice) as lib:
        lib.pipeline.ingest_text("# Alice\nThe secret launch code is tangerine.", source="a.md")
    with _open(target, bob) as lib:
        lib.pipeline.ingest_text("# Bob\nBob's budget for the launch is 300.", source="b.md")
        assert [h.source for h in lib.rag.retrieve("launch code tangerine", top_k=5)] == ["b.md"]
    with _open(target, alice) as lib:
        assert [h.source for h in lib.rag.retrieve("launch budget", top_k=5)] == ["a.md"]


def test_conversations_are_stored_and_searchable(target: str) -> None:
    with _open(target) as lib:
        lib.pipeline.ingest_text(POLICY, source="policy.md")
        chats = lib.conversations
        chat = chats.create()
        turn = asyncio.run(chats.ask(chat.conversation_id, "What is the daily meal allowance?"))
        assert "80" in turn.answer
        found = chats.search("meal allowance")
        assert [h.conversation_id for h in found] == [chat.conversation_id]
        assert chats.search("zebra") == []
        assert chats.get(chat.conversation_id).turns[0].question.startswith("What is")
        assert chats.delete(chat.conversation_id) and chats.count() == 0


def test_reembed_rebuilds_the_index_with_another_model(target: str) -> None:
    with _open(target) as lib:
        lib.pipeline.ingest_text(POLICY, source="policy.md")
        chunks = lib.source_store.count_chunks()
        assert lib.reembed(FakeEmbedder(32, name="other")) == chunks
        assert lib.retriever.count(scope=lib.pipeline.scope) == chunks
        assert lib.rag.retrieve("hotel per night", top_k=1)[0].source == "policy.md"
    with Library.open(target, embedder=FakeEmbedder(32, name="other")) as lib:
        assert lib.pipeline.verify().ok
