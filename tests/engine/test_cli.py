"""The ``agentmaker`` command as a person uses it: readable output, --json, plain errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentmaker import cli
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder

from tests.paths import CORPUS

POLICY = (
    "# Expense Policy\n\n## Meals\nThe daily meal allowance is 80, no receipt needed.\n\n"
    "## Lodging\nHotels are capped at 500 per night, receipt required.\n"
)


@pytest.fixture
def fake_model(monkeypatch):
    """The command's library opens with the fake embedder (the model is not the point)."""
    monkeypatch.setattr(
        cli, "_open", lambda path, args: Library.open(path, embedder=FakeEmbedder())
    )


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_is_plain_text(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    assert "``" not in out and "agentmaker ingest PATH" in out and "--create" in out


def test_a_mistyped_library_path_is_an_error_and_creates_nothing(
    capsys, tmp_path: Path, fake_model
) -> None:
    missing = tmp_path / "Librray" / "lib.sqlite"
    code, _, err = run(capsys, "--library", str(missing), "stats")
    assert code == 2
    assert f"There is no folder {missing.parent}" in err and "--create" in err
    assert not missing.parent.exists()
    code, _, err = run(capsys, "--library", str(tmp_path / "lib.sqlite"), "stats")
    assert code == 2 and "There is no library at" in err
    assert not (tmp_path / "lib.sqlite").exists()


def test_search_and_ask_print_readable_text_and_json(capsys, tmp_path: Path, fake_model) -> None:
    library = tmp_path / "lib.sqlite"
    doc = tmp_path / "policy.md"
    doc.write_text(POLICY, encoding="utf-8")
    code, out, _ = run(capsys, "--library", str(library), "--create", "ingest", str(doc))
    assert code == 0 and "1 indexed, 0 unchanged, 0 failed" in out

    code, out, _ = run(capsys, "--library", str(library), "search", "meal allowance", "-k", "1")
    assert code == 0
    assert out.startswith("[1] policy.md (Expense Policy) — Expense Policy > Meals\n")
    assert "The daily meal allowance is 80" in out
    assert "\\n" not in out and "'" not in out  # no Python reprs

    code, out, _ = run(
        capsys, "--library", str(library), "search", "meal allowance", "-k", "1", "--json"
    )
    hits = json.loads(out)
    assert hits[0]["document"] == "policy.md" and "allowance is 80" in hits[0]["text"]

    code, out, _ = run(capsys, "--library", str(library), "ask", "meal allowance?", "--json")
    answer = json.loads(out)
    assert answer["extractive"] and "[1]" in answer["answer"]
    assert answer["sources"][0]["document"] == "policy.md"


def test_an_empty_query_is_refused_in_plain_words(capsys, tmp_path: Path, fake_model) -> None:
    library = tmp_path / "lib.sqlite"
    code, _, err = run(capsys, "--library", str(library), "--create", "search", "   ")
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err


def test_stats_counts_files_by_their_own_type(capsys, tmp_path: Path, fake_model) -> None:
    library = tmp_path / "lib.sqlite"
    page = tmp_path / "page.html"
    page.write_text("<html><body><h1>Notes</h1><p>Trains run hourly.</p></body></html>")
    run(capsys, "--library", str(library), "--create", "ingest", str(page))
    _, out, _ = run(capsys, "--library", str(library), "stats", "--json")
    assert json.loads(out)["formats"] == {"html": 1}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")
def test_a_locked_pdf_opens_with_the_password_option(capsys, tmp_path: Path, fake_model) -> None:
    library = tmp_path / "lib.sqlite"
    locked = CORPUS / "bad" / "libreoffice-writer-password.pdf"
    code, out, _ = run(capsys, "--library", str(library), "--create", "ingest", str(locked))
    assert code == 1 and "--password" in out
    code, out, _ = run(
        capsys, "--library", str(library), "ingest", str(locked), "--password", "openpassword"
    )
    assert code == 0 and "1 indexed" in out


def test_a_scanned_pdf_is_read_by_ocr_as_in_the_app(
    capsys, tmp_path: Path, fake_model, monkeypatch
) -> None:
    from agentmaker.ocr import worker

    from tests.gui.helpers import StubOcrEngine, make_scan

    monkeypatch.setattr(worker, "OcrEngine", StubOcrEngine)  # the real one takes seconds a page
    scan = make_scan(tmp_path / "scan.pdf", pages=2)
    library = tmp_path / "lib.sqlite"
    code, out, _ = run(capsys, "--library", str(library), "--create", "ingest", str(scan))
    assert code == 0, out
    assert "OCR scan.pdf: page 2 of 2" in out and "1 read by OCR" in out
    code, out, _ = run(capsys, "--library", str(library), "search", "zebra migration", "--json")
    assert json.loads(out)[0]["document"] == "scan.pdf"


def test_ingest_file_queues_a_scan_when_ocr_is_attached(tmp_path: Path) -> None:
    from agentmaker.ocr import OcrQueue

    from tests.gui.helpers import make_scan

    scan = make_scan(tmp_path / "scan.pdf", pages=1)
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        lib.pipeline.ocr = OcrQueue(lib.db)
        report = lib.pipeline.ingest_file(scan)
        assert report.ocr_queued and report.chunks == 0
        assert [job.path for job in lib.pipeline.ocr.pending()] == [str(scan)]
