"""OCR in a team library (PostgreSQL): scans are read and found as in a library file,
and each app reads only the jobs of its own login and computer (the files are there)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from agentmaker import cli
from agentmaker.library import Library
from agentmaker.ocr import OcrQueue, OcrWorker, worker
from agentmaker.testing import FakeEmbedder

from tests.gui.helpers import StubOcrEngine, make_scan


def _role(server, name: str, database: str) -> None:  # type: ignore[no-untyped-def]
    server.admin(
        f"DO $$ BEGIN CREATE ROLE {name} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    )
    server.admin(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}; "
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}",
        database=database,
    )


def test_a_scan_in_a_team_library_is_read_and_found(pg_dsn: str, tmp_path: Path) -> None:
    scan = make_scan(tmp_path / "scan.pdf", pages=2)
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        queue = OcrQueue(lib.db)
        lib.pipeline.ocr = queue
        report = lib.pipeline.ingest_paths([scan])
        assert [f.status for f in report.files] == ["ocr_queued"]
        assert [j.path for j in queue.pending()] == [str(scan)]
        result = OcrWorker(queue, lib.pipeline, StubOcrEngine()).run_pending()
        assert [j.status for j in result.jobs] == ["indexed"]
        hits = lib.rag.retrieve("zebra migration", top_k=3)
        assert hits and hits[0].source == str(scan)
        assert {h.metadata["page"] for h in hits} <= {1, 2} and hits[0].metadata["ocr"] is True
        assert "zebra" in hits[0].content.lower()
        assert queue.counts() == {"done": 1} and lib.pipeline.verify().ok


def test_each_login_and_computer_reads_only_its_own_jobs(
    pg_server,  # type: ignore[no-untyped-def]
    pg_dsn: str,
    tmp_path: Path,
) -> None:
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        OcrQueue(lib.db)  # the administrator creates the tables
    database = urlsplit(pg_dsn).path.lstrip("/")
    for name in ("alice", "bob"):
        _role(pg_server, name, database)
    url = {name: pg_dsn.replace("//postgres:", f"//{name}:", 1) for name in ("alice", "bob")}
    scans = {name: make_scan(tmp_path / f"{name}.pdf", pages=1) for name in ("alice", "bob")}
    for name in ("alice", "bob"):
        with Library.open(url[name], embedder=FakeEmbedder()) as lib:
            lib.pipeline.ocr = OcrQueue(lib.db, machine=f"{name}-laptop")
            assert lib.pipeline.ingest_paths([scans[name]]).files[0].status == "ocr_queued"
    with Library.open(url["alice"], embedder=FakeEmbedder()) as lib:
        laptop = OcrQueue(lib.db, machine="alice-laptop")
        desktop = OcrQueue(lib.db, machine="alice-desktop")
        assert [j.path for j in laptop.pending()] == [str(scans["alice"])]
        assert desktop.pending() == [] and desktop.counts() == {}
        # Bob's job is not even visible to Alice by its id (row-level security).
        assert laptop.job(bob_id := _doc_id(scans["bob"])) is None
        assert laptop.retry_failed() == 0
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        admin = OcrQueue(lib.db, machine="alice-laptop")  # owns the tables: RLS lets it see all
        assert admin.pending() == [] and admin.job(bob_id) is not None
    with Library.open(url["bob"], embedder=FakeEmbedder()) as lib:
        queue = OcrQueue(lib.db, machine="bob-laptop")
        lib.pipeline.ocr = queue
        assert [j.path for j in queue.pending()] == [str(scans["bob"])]
        OcrWorker(queue, lib.pipeline, StubOcrEngine()).run_pending()
        assert queue.counts() == {"done": 1}
        assert {h.source for h in lib.rag.retrieve("zebra migration", top_k=5)} == {
            str(scans["bob"])
        }


def _doc_id(path: Path) -> str:
    from agentmaker.rag.ingest.loading import doc_id_for_path

    return doc_id_for_path(path)


def test_the_command_reads_scans_into_a_team_library(
    pg_dsn: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(worker, "OcrEngine", StubOcrEngine)  # the real one takes seconds a page
    monkeypatch.setattr(
        cli, "_open", lambda path, args: Library.open(path, embedder=FakeEmbedder())
    )
    scan = make_scan(tmp_path / "scan.pdf", pages=2)
    assert cli.main(["--library", pg_dsn, "ingest", str(scan)]) == 0
    out = capsys.readouterr().out
    assert "OCR scan.pdf: page 2 of 2" in out and "1 read by OCR" in out
    assert cli.main(["--library", pg_dsn, "search", "zebra migration", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["document"] == "scan.pdf"
