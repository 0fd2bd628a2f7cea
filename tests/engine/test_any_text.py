"""Any text a system can produce: lone surrogates in questions, documents and file names.

Issue 21: ``agentmaker search $'caf\\xe9'`` and ``rag.retrieve("ab\\ud800cd")`` crashed
in the tokenizer, ``ingest_text`` with a lone surrogate raised an untyped
UnicodeEncodeError, and a file whose name is not UTF-8 could never be indexed (in a
linked folder it failed on every scan). Real library files, the real local embedder
where the tokenizer is the point, real files with such names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.folders.sync import FolderSync
from agentmaker.testing import FakeEmbedder

from tests.paths import REPO

LATIN1_NAME = os.fsdecode(b"caf\xe9 menu.md")  # a Latin-1 file name: not UTF-8


def _latin1_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LATIN1_NAME
    path.write_text("# Menu\n\nThe caf\u00e9 serves zebra espresso every morning.\n")
    return path


def test_questions_with_lone_surrogates_are_searched_with_the_real_tokenizer(
    tmp_path: Path,
) -> None:
    with Library.open(tmp_path / "lib.sqlite") as lib:  # the built-in local embedder
        lib.pipeline.ingest_text("The caf\u00e9 serves zebra espresso.", source="menu.md")
        for query in ("ab\ud800cd zebra", "caf\udce9", "caf\udcc3\udca9 espresso", "\udfff zebra"):
            hits = lib.rag.retrieve(query, top_k=1)
            assert hits and "zebra" in hits[0].content, query
        assert lib.rag.retriever.search("caf\udce9 espresso", top_k=1, scope=lib.rag.scope)


def test_ingested_text_with_lone_surrogates_is_indexed_readably(tmp_path: Path) -> None:
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        report = lib.pipeline.ingest_text(
            "Broken \ud800 bytes caf\udce9 about giraffes.", source="broken.md", title="t\udcff"
        )
        assert report.chunks == 1
        [hit] = lib.rag.retrieve("giraffes", top_k=1)
        assert hit.content == "Broken \ufffd bytes caf\u00e9 about giraffes."
        assert lib.pipeline.verify().ok


def test_a_file_name_that_is_not_utf8_is_indexed_under_its_exact_name(tmp_path: Path) -> None:
    path = _latin1_file(tmp_path / "docs")
    library = tmp_path / "lib.sqlite"
    with Library.open(library, embedder=FakeEmbedder()) as lib:
        [outcome] = lib.pipeline.ingest_paths([path]).files
        assert outcome.status == "indexed", outcome.error
    with Library.open(library, embedder=FakeEmbedder()) as lib:  # read back after reopening
        [hit] = lib.rag.retrieve("zebra espresso", top_k=1)
        assert hit.source == str(path) and Path(hit.source).is_file()
        [info] = lib.source_store.list_documents()
        assert info.source == str(path)
        assert [f.status for f in lib.pipeline.ingest_paths([path]).files] == ["unchanged"]


def test_a_linked_folder_with_such_a_name_syncs_once_and_then_stays_quiet(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    path = _latin1_file(folder / os.fsdecode(b"sub\xff"))
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        sync = FolderSync(lib)
        sync.link(folder)
        first = sync.scan()
        assert first.failed == [] and [p for p in first.added] == [str(path)]
        second = sync.scan()
        assert (second.added, second.failed, second.removed, second.unchanged) == ([], [], [], 1)
        path.unlink()
        assert sync.scan().removed == [str(path)]


def test_the_cli_takes_arguments_that_are_not_utf8(tmp_path: Path) -> None:
    path = _latin1_file(tmp_path / "docs")
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO / "engine"), os.environ.get("PYTHONPATH", "")]),
    )
    library = str(tmp_path / "lib.sqlite")
    base = [sys.executable, "-m", "agentmaker.cli", "--library", library, "--create"]

    def run(*args: bytes | str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*base, *args], env=env, capture_output=True, timeout=300)

    ingest = run("ingest", os.fsencode(path))
    assert ingest.returncode == 0, ingest.stderr.decode(errors="replace")
    search = run("search", b"caf\xe9 espresso")
    assert search.returncode == 0, search.stderr.decode(errors="replace")
    assert b"zebra espresso" in search.stdout
    ask = run("ask", b"\x81 ?")  # a byte that is no character, and a question mark
    assert ask.returncode == 2 and b"no words" in ask.stderr
    assert b"Traceback" not in ingest.stderr + search.stderr + ask.stderr


@pytest.mark.parametrize("name", [b"\xe9t\xe9.md", b"\x80\x81.txt"])
def test_ingest_paths_reports_every_such_file_indexed(tmp_path: Path, name: bytes) -> None:
    path = tmp_path / os.fsdecode(name)
    path.write_bytes(b"Words about okapis and their forests.\n")
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        assert [f.status for f in lib.pipeline.ingest_paths([tmp_path]).files] == ["indexed"]
