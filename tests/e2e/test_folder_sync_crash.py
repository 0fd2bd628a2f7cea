"""SIGKILL a folder sync half-way, then check the next start finishes it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.folders.sync import FolderSync
from agentmaker.rag.ingest.pipeline import doc_id_for_path
from agentmaker.testing import FakeEmbedder

CHILD = """
import sys
from agentmaker.library import Library
from agentmaker.rag.folders.sync import FolderSync
from agentmaker.testing import FakeEmbedder

lib = Library.open(sys.argv[1], embedder=FakeEmbedder())
sync = FolderSync(lib)
sync.link(sys.argv[2])
print("ready", flush=True)

def progress(update):
    if update.action in ("added", "renamed", "removed"):
        print(update.action, flush=True)

sync.scan(progress=progress)
print("done", flush=True)
"""

FILES = 240


def _write_files(folder: Path) -> list[Path]:
    paths = []
    for i in range(FILES):
        sub = folder / f"group{i % 6}"
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"note{i:03}.md"
        body = " ".join(f"word{(i * 7 + k) % 97}" for k in range(60))
        path.write_text(f"# Note {i}\n\n{body}\n\n## More\n\n{body[::-1]}\n")
        paths.append(path)
    return paths


def _run_and_kill(library: Path, folder: Path, after: int) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(library), str(folder)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    seen = 0
    while seen < after:
        line = child.stdout.readline().strip()
        assert line and line != "done", "the scan finished before it could be killed"
        seen += 1
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()


def _assert_in_step(lib: Library, files: list[Path]) -> None:
    assert lib.pipeline.verify().ok
    docs = lib.source_store.list_documents()
    assert sorted(d.source for d in docs) == sorted(str(p) for p in files)  # each once
    for info in docs:
        assert info.doc_id == doc_id_for_path(info.source)
        chunks = lib.source_store.chunks_of(info.doc_id)
        assert len(chunks) == info.chunk_count > 0
    assert lib.retriever.count() == lib.source_store.count_chunks()


@pytest.mark.slow
def test_sigkill_during_folder_sync_is_finished_by_the_next_scan(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    files = _write_files(folder)
    library = tmp_path / "lib.sqlite"

    # 1. killed during the first scan
    _run_and_kill(library, folder, after=40)
    with Library.open(library, embedder=FakeEmbedder()) as lib:
        sync = FolderSync(lib)
        done_before = lib.source_store.count_documents()
        assert 40 <= done_before < FILES
        report = sync.scan()
        assert not report.cancelled and not report.failed
        assert len(report.added) + report.unchanged == FILES
        _assert_in_step(lib, files)

    # 2. killed while renaming and deleting: nothing may be embedded again
    moved = []
    for i, path in enumerate(files):
        if i % 3 == 0:
            target = path.parent.parent / "renamed" / f"r{path.name}"
            target.parent.mkdir(exist_ok=True)
            path.rename(target)
            moved.append(target)
        elif i % 3 == 1:
            moved.append(path)
        else:
            path.unlink()
    _run_and_kill(library, folder, after=30)
    embedder = FakeEmbedder()
    with Library.open(library, embedder=embedder) as lib:
        sync = FolderSync(lib)
        report = sync.scan()
        assert not report.cancelled and not report.failed and not report.added
        _assert_in_step(lib, moved)
        assert embedder.texts_embedded == 0  # renames kept their vectors, even across the kill
        assert sync.scan().unchanged == len(moved)
