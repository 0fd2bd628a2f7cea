"""Disk trouble, no network, strange files: clear errors, nothing lost."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest
from agentmaker.errors import StorageError
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder

DOC = "# Notes\n\n## Budget\nThe travel budget for 2026 is 12,000 euros.\n"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_offline_ingest_search_and_extractive_answer(
    tmp_path: Path, no_network: None, good_dir: Path
) -> None:
    from agentmaker.models.local_embedder import LocalEmbedder

    with Library.open(tmp_path / "lib.sqlite", embedder=LocalEmbedder()) as lib:
        report = lib.pipeline.ingest_paths([good_dir / "history.md", good_dir / "hello-world.pdf"])
        assert [f.status for f in report.files] == ["indexed", "indexed"]
        result = asyncio.run(lib.rag.ask("Who started pypdf and when?"))
        assert result.extractive and result.sources
        assert "[1]" in result.answer or "[2]" in result.answer
        # The sentence that says who and when, not one whose name holds a digit
        # ("pypdfium2") for the "when".
        assert "Mathieu Fenniak" in result.answer and "2005" in result.answer


def test_read_only_library_gives_clear_error_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    with Library.open(path, embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_text(DOC, source="notes.md")
    uri_lib = Library.open(path, embedder=FakeEmbedder())
    uri_lib.db.execute("PRAGMA query_only = 1")  # what a read-only file looks like to SQLite
    with pytest.raises(StorageError, match="read-only"):
        uri_lib.pipeline.ingest_text("# Other\nMore text here.", source="other.md")
    uri_lib.db.execute("PRAGMA query_only = 0")
    uri_lib.close()
    with Library.open(path, embedder=FakeEmbedder()) as lib:
        assert lib.source_store.count_documents() == 1
        assert lib.rag.retrieve("travel budget", top_k=1)[0].content.endswith("12,000 euros.")


def test_disk_full_gives_clear_error_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    with Library.open(path, embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_text(DOC, source="notes.md")
        pages = lib.db.query("PRAGMA page_count")[0][0]
        lib.db.execute(f"PRAGMA max_page_count = {pages + 2}")  # the disk fills up now
        big = "# Big\n\n" + "\n\n".join(f"Paragraph {i} " + "word " * 300 for i in range(200))
        with pytest.raises(StorageError, match="disk is full"):
            lib.pipeline.ingest_text(big, source="big.md")
        assert lib.pipeline.verify().ok
    with Library.open(path, embedder=FakeEmbedder()) as lib:
        assert lib.source_store.count_documents() == 1
        assert lib.pipeline.verify().ok


def test_strange_files_each_get_an_outcome(tmp_path: Path) -> None:
    folder = tmp_path / "weird"
    folder.mkdir()
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "controls.txt").write_text("".join(chr(c) for c in range(1, 32)) * 200)
    (folder / "fifo.txt").mkdir()  # a directory that looks like a file name
    (folder / "ok.md").write_text(DOC)
    big = folder / "huge.txt"
    with open(big, "wb") as handle:  # sparse: 1 GB without using the disk
        handle.seek(1024**3)
        handle.write(b"\n")
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        lib.pipeline.max_file_bytes = 256 * 1024 * 1024
        report = lib.pipeline.ingest_paths([folder])
        outcome = {Path(f.path).name: f for f in report.files}
        assert outcome["ok.md"].status == "indexed"
        assert outcome["huge.txt"].error_kind == "too_large"
        assert outcome["deep.json"].status == "failed" and "deep.json" in outcome["deep.json"].error
        # Valid UTF-8 made only of control characters is refused as not-text, by name.
        controls = outcome["controls.txt"]
        assert controls.status == "failed" and controls.error_kind == "unsupported"
        assert "controls.txt" in controls.error and "binary" in controls.error
        assert lib.pipeline.verify().ok


def test_vanished_file_is_reported(tmp_path: Path) -> None:
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        report = lib.pipeline.ingest_paths([tmp_path / "gone.md"])
        assert report.files[0].status == "failed"
        assert "gone.md" in report.files[0].error


def test_library_records_schema_versions(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    with Library.open(path, embedder=FakeEmbedder()) as lib:
        versions = dict(lib.db.query("SELECT component, version FROM schema_versions"))
    assert {"items:items", "source_store", "bookkeeping", "vectors:vec_vectors"} <= set(versions)
    assert all(v >= 1 for v in versions.values())
    json.dumps(versions)
