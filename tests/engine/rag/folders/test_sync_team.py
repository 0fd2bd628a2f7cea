"""Linked folders in a team library (PostgreSQL): a folder is a path on one person's
computer, so each app lists and scans only the folders linked on its own computer by
its own login, and a path linked elsewhere is refused with a plain reason."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from agentmaker.library import Library
from agentmaker.ocr import OcrQueue
from agentmaker.rag.folders.sync import FolderLinkError, FolderSync
from agentmaker.testing import FakeEmbedder


def _people(server, dsn: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """alice and bob may use the library the administrator created."""
    with Library.open(dsn, embedder=FakeEmbedder()) as lib:
        FolderSync(lib)
        OcrQueue(lib.db)
    database = urlsplit(dsn).path.lstrip("/")
    for name in ("alice", "bob"):
        server.admin(
            f"DO $$ BEGIN CREATE ROLE {name} LOGIN; "
            "EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )
        server.admin(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}; "
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}",
            database=database,
        )
    return {name: dsn.replace("//postgres:", f"//{name}:", 1) for name in ("alice", "bob")}


def _folder(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / f"{name}.md").write_text(f"# {name}\n\n{text}\n")
    return folder


def test_each_person_and_computer_follows_only_its_own_folders(
    pg_server,  # type: ignore[no-untyped-def]
    pg_dsn: str,
    tmp_path: Path,
) -> None:
    url = _people(pg_server, pg_dsn)
    mine = _folder(tmp_path, "alice_notes", "Alice's budget review is in March.")
    theirs = _folder(tmp_path, "bob_notes", "Bob's budget review is in May.")
    with Library.open(url["alice"], embedder=FakeEmbedder()) as lib:
        laptop = FolderSync(lib, machine="alice-laptop")
        laptop.link(mine)
        assert laptop.scan().added == [str(mine / "alice_notes.md")]
    with Library.open(url["bob"], embedder=FakeEmbedder()) as lib:
        sync = FolderSync(lib, machine="bob-laptop")
        assert sync.folders() == [] and sync.failures() == []  # not "missing": not his
        sync.link(theirs)
        report = sync.scan()
        assert report.added == [str(theirs / "bob_notes.md")] and not report.missing_folders
        assert [f.path for f in sync.folders()] == [str(theirs)]
    with Library.open(url["alice"], embedder=FakeEmbedder()) as lib:
        assert [f.path for f in FolderSync(lib, machine="alice-laptop").folders()] == [str(mine)]
        desktop = FolderSync(lib, machine="alice-desktop")
        assert desktop.folders() == []
        report = desktop.scan()  # nothing of the laptop's is touched
        assert not report.changed and not report.missing_folders
        with pytest.raises(FolderLinkError, match="alice-laptop"):
            desktop.link(mine)
        with pytest.raises(FolderLinkError, match="someone else"):
            desktop.link(theirs)  # Bob linked this path; his row is hidden from Alice
        assert {d.source for d in lib.source_store.list_documents()} == {
            str(mine / "alice_notes.md")
        }
