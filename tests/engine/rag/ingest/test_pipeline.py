"""IngestionPipeline on real SQLite files: skips, atomic replacement, maintenance."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentmaker import IngestionPipeline, SourceStore
from agentmaker.errors import EmptyDocumentError
from agentmaker.library import Library
from agentmaker.rag.ingest.batch import CancelToken
from agentmaker.rag.ingest.pipeline import doc_id_for_path
from agentmaker.retrieval import build_sqlite_hybrid
from agentmaker.testing import FakeEmbedder

POLICY = (
    "# Expense Policy\n\n## Meals\nThe daily meal allowance is 80, no receipt needed.\n\n"
    "## Lodging\nHotels are capped at 500 per night, receipt required.\n\n"
    "## Travel\nTrain tickets are refunded in second class only.\n"
)


@pytest.fixture
def library(tmp_path: Path):
    lib = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    yield lib
    lib.close()


def test_unchanged_file_embeds_nothing(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "policy.md"
    path.write_text(POLICY, encoding="utf-8")
    first = library.pipeline.ingest_file(path)
    assert not first.skipped and first.chunks == 3
    assert first.doc_id == doc_id_for_path(path)
    embedded = library.embedder.texts_embedded
    again = library.pipeline.ingest_file(str(path))
    assert again.skipped and again.chunks == 3 and again.doc_id == first.doc_id
    assert library.embedder.texts_embedded == embedded


def test_changed_paragraph_replaces_document(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "policy.md"
    path.write_text(POLICY, encoding="utf-8")
    library.pipeline.ingest_file(path)
    path.write_text(POLICY.replace("500 per night", "650 per night"), encoding="utf-8")
    report = library.pipeline.ingest_file(path)
    assert not report.skipped
    texts = [c.content for c in library.source_store.chunks_of(report.doc_id)]
    assert any("650 per night" in t for t in texts)
    assert not any("500 per night" in t for t in texts)
    hits = library.rag.retrieve("hotel cap per night", top_k=5)
    assert next(h.content for h in hits if "per night" in h.content).count("650") == 1
    assert library.pipeline.verify().ok
    assert library.retriever.count() == 3


def test_failed_update_keeps_old_version(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "policy.md"
    path.write_text(POLICY, encoding="utf-8")
    report = library.pipeline.ingest_file(path)
    path.write_text(POLICY.replace("80", "95"), encoding="utf-8")
    library.embedder.fail_next = RuntimeError("embedder crashed")
    with pytest.raises(RuntimeError):
        library.pipeline.ingest_file(path)
    texts = [c.content for c in library.source_store.chunks_of(report.doc_id)]
    assert any("allowance is 80" in t for t in texts)
    assert library.pipeline.verify().ok
    assert library.pipeline.ingest_file(path).skipped is False  # retried, now succeeds


def test_ingest_text_and_delete(library: Library) -> None:
    report = library.pipeline.ingest_text(POLICY, source="policy.md")
    assert report.chunks == 3
    assert library.pipeline.ingest_text(POLICY, source="policy.md").skipped
    with pytest.raises(EmptyDocumentError):
        library.pipeline.ingest_text("   \n", source="blank.txt")
    assert library.pipeline.delete_document(report.doc_id)
    assert library.source_store.count_chunks() == 0
    assert library.retriever.count() == 0
    assert not library.pipeline.delete_document(report.doc_id)


def test_verify_reports_divergence_and_rebuild_heals(library: Library) -> None:
    report = library.pipeline.ingest_text(POLICY, source="policy.md")
    first_chunk = f"{report.doc_id}:0"
    library.retriever.delete([first_chunk])
    found = library.pipeline.verify()
    assert found.missing_from_index == [first_chunk] and not found.ok
    assert library.pipeline.rebuild_index() == 3
    assert library.pipeline.verify().ok


def test_pending_write_heals_on_open(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    lib = Library.open(path, embedder=FakeEmbedder())
    report = lib.pipeline.ingest_text(POLICY, source="policy.md")
    # A write that "died" after marking the document pending, with its index rows gone.
    lib.pipeline.index_sync.bookkeeping.mark_pending(report.doc_id)
    lib.retriever.delete([f"{report.doc_id}:1"])
    lib.close()
    reopened = Library.open(path, embedder=FakeEmbedder())
    assert reopened.pipeline.verify().ok
    assert reopened.retriever.count() == 3
    reopened.close()


def test_separate_source_store_uses_pending_set(tmp_path: Path) -> None:
    retriever = build_sqlite_hybrid(FakeEmbedder(), tmp_path / "index.sqlite")
    store = SourceStore(tmp_path / "source.sqlite")
    pipeline = IngestionPipeline(retriever=retriever, source_store=store)
    assert pipeline.ingest_text(POLICY, source="p.md").chunks == 3
    assert pipeline.verify().ok
    retriever.close()
    store.close()


def test_ingest_paths_reports_each_file_and_cancels(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text(POLICY, encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("Plain notes about the budget.", encoding="utf-8")
    (folder / "empty.md").write_text("", encoding="utf-8")
    (folder / "program.exe").write_bytes(b"MZ\x00\x00")
    (folder / ".hidden.md").write_text("secret", encoding="utf-8")
    (folder / "~$lock.docx").write_bytes(b"x")
    os.symlink(folder, folder / "sub" / "loop")  # a directory cycle
    events = []
    report = library.pipeline.ingest_paths([folder], progress=events.append)
    status = {Path(f.path).name: f.status for f in report.files}
    assert status == {"a.md": "indexed", "b.txt": "indexed", "empty.md": "failed"}
    assert report.skipped_unsupported == 1
    failed = report.by_status("failed")[0]
    assert failed.error_kind == "empty" and "empty.md" in (failed.error or "")
    assert events[-1].files_done == events[-1].files_total == 3
    assert {e.stage for e in events} >= {"queued", "reading", "indexed", "failed"}

    token = CancelToken()
    token.cancel()
    (folder / "c.md").write_text("# New\nA new file.", encoding="utf-8")
    cancelled = library.pipeline.ingest_paths([folder / "c.md"], cancel=token)
    assert cancelled.cancelled and cancelled.files[0].status == "cancelled"
    assert library.source_store.find_by_source(str(folder / "c.md")) is None


def test_stats(library: Library) -> None:
    library.pipeline.ingest_text(POLICY, source="policy.md")
    stats = library.pipeline.stats()
    assert stats["documents"] == 1 and stats["chunks"] == 3 and stats["indexed"] == 3
    assert stats["formats"] == {"md": 1}


def test_a_file_through_a_symlink_is_the_same_document(library: Library, tmp_path: Path) -> None:
    real = tmp_path / "real" / "policy.md"
    real.parent.mkdir()
    real.write_text(POLICY, encoding="utf-8")
    (tmp_path / "linked").symlink_to(real.parent, target_is_directory=True)
    through_link = tmp_path / "linked" / "policy.md"

    first = library.pipeline.ingest_file(through_link)
    again = library.pipeline.ingest_file(real)
    assert again.skipped and again.doc_id == first.doc_id
    assert library.source_store.count_documents() == 1
    hit = library.rag.retrieve("meal allowance", top_k=1)[0]
    assert hit.source == str(real)  # cited under its real path
