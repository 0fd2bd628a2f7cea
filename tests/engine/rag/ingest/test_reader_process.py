"""Reading in a child process: same documents, typed errors, a crash costs one file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentmaker.errors import CorruptDocumentError, PasswordRequiredError
from agentmaker.library import Library
from agentmaker.rag.ingest import reader_process
from agentmaker.rag.ingest.reader_process import ReaderProcess
from agentmaker.testing import FakeEmbedder


def test_reads_the_same_document_and_passes_typed_errors(good_dir: Path, bad_dir: Path) -> None:
    from agentmaker.rag.readers import read_file

    reader = ReaderProcess()
    try:
        doc = reader.read(good_dir / "cli.md", None, 10**9)
        assert doc.content == read_file(good_dir / "cli.md").content
        with pytest.raises(PasswordRequiredError, match="password"):
            reader.read(bad_dir / "libreoffice-writer-password.pdf", None, 10**9)
        pdf = reader.read(bad_dir / "libreoffice-writer-password.pdf", "openpassword", 10**9)
        assert "Lorem ipsum" in pdf.content
    finally:
        reader.close()


def _crash(path: str, password: str | None, max_bytes: int) -> None:
    os._exit(11)  # what a segfaulting parser looks like from outside


def test_a_crashing_reader_costs_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.md").write_text("# A\nAlpha text.", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\nBravo text.", encoding="utf-8")
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder(), reader_process=True) as lib:
        reader = lib.pipeline.reader_process
        assert reader is not None
        monkeypatch.setattr(reader_process, "_read", _crash)
        with pytest.raises(CorruptDocumentError, match="crashed"):
            reader.read(tmp_path / "a.md", None, 10**6)
        monkeypatch.undo()
        report = lib.pipeline.ingest_paths([tmp_path])  # a fresh process reads both
        assert [f.status for f in report.files] == ["indexed", "indexed"]
