"""The self-test's format samples: written, indexed, found, cited; failures reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentmaker import format_samples
from agentmaker.cli import main
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder


def test_every_sample_is_found_where_expected(tmp_path: Path) -> None:
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    try:
        (tmp_path / "samples").mkdir()
        assert format_samples.check_formats(library, tmp_path / "samples") == []
        formats = {d.metadata["source_format"] for d in library.source_store.list_documents()}
        assert formats == {"pptx", "xlsx", "ods", "odt", "rtf", "docx", "eml", "mbox"}
    finally:
        library.close()


def test_a_wrong_citation_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = dict(format_samples.EXPECTED)
    expected["deck.pptx"] = ("pelican mascot", "pelican mascot", "slide 9")
    monkeypatch.setattr(format_samples, "EXPECTED", expected)
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    try:
        problems = format_samples.check_formats(library, tmp_path)
    finally:
        library.close()
    assert problems == ["deck.pptx: cited as 'slide 1', not 'slide 9'"]


def test_self_test_command_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["self-test"]) == 0
    assert "self-test passed" in capsys.readouterr().out
