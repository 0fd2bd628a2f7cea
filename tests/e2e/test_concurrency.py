"""Searching while ingesting, and two processes on one library."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder


def _docs(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(count):
        body = "\n\n".join(
            f"## Part {p}\nShared words budget travel meal number {i} part {p}. " * 3
            for p in range(5)
        )
        (folder / f"d{i:02}.md").write_text(f"# Doc {i}\n\n{body}", encoding="utf-8")


def test_search_during_ingestion_sees_whole_documents(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _docs(docs, 40)
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        errors: list[BaseException] = []
        worker = threading.Thread(
            target=lambda: lib.pipeline.ingest_paths([docs]), name="ingest", daemon=True
        )
        worker.start()
        searches = 0
        while worker.is_alive() or searches < 5:
            try:
                for hit in lib.rag.retrieve("budget travel meal", top_k=5):
                    info = lib.source_store.get_document(hit.metadata["doc_id"])
                    assert info is not None
                    assert len(lib.source_store.chunks_of(info.doc_id)) == info.chunk_count
                for info in lib.source_store.list_documents():  # the browser's view
                    assert len(lib.source_store.chunks_of(info.doc_id)) == info.chunk_count
            except BaseException as exc:
                errors.append(exc)
                break
            searches += 1
        worker.join()
        assert not errors, errors[0]
        assert lib.source_store.count_documents() == 40 and lib.pipeline.verify().ok


WRITER = """
import sys
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder
with Library.open(sys.argv[1], embedder=FakeEmbedder()) as lib:
    report = lib.pipeline.ingest_paths([sys.argv[2]])
    print(len(report.by_status("indexed")))
"""


def test_two_processes_share_a_library(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _docs(first, 15)
    _docs(second, 15)
    for i, path in enumerate(sorted(second.iterdir())):
        path.rename(second / f"other{i}.md")
    library = tmp_path / "lib.sqlite"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(library), str(folder)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in (first, second)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == "15"
        assert "locked" not in err
    with Library.open(library, embedder=FakeEmbedder()) as lib:
        assert lib.source_store.count_documents() == 30
        assert lib.pipeline.verify().ok
