"""Power loss: SIGKILL an ingestion at random moments, then reopen the library."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder

CHILD = """
import sys
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder
lib = Library.open(sys.argv[1], embedder=FakeEmbedder())
print("ready", flush=True)
lib.pipeline.ingest_paths([sys.argv[2]])
lib.close()
print("done", flush=True)
"""


def _make_files(folder: Path, count: int) -> None:
    folder.mkdir()
    rng = random.Random(7)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "policy",
        "meal",
        "hotel",
        "train",
        "budget",
        "report",
        "notice",
    ]
    for i in range(count):
        sections = []
        for s in range(rng.randint(2, 6)):
            body = " ".join(rng.choice(words) for _ in range(rng.randint(40, 400)))
            sections.append(f"## Section {s}\n{body}\n")
        (folder / f"doc{i:03}.md").write_text(f"# Document {i}\n\n" + "\n".join(sections))


def _assert_consistent(lib: Library) -> None:
    report = lib.pipeline.verify()
    assert report.ok, report
    for info in lib.source_store.list_documents():
        chunks = lib.source_store.chunks_of(info.doc_id)
        assert len(chunks) == info.chunk_count > 0, info.title  # wholly there
        assert [c.index for c in chunks] == list(range(info.chunk_count))
    assert lib.retriever.count() == lib.source_store.count_chunks()


@pytest.mark.slow
def test_sigkill_during_ingestion_never_leaves_half_documents(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _make_files(docs, 60)
    library = tmp_path / "lib.sqlite"
    rng = random.Random(11)
    for _round in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(library), str(docs)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        with Library.open(library, embedder=FakeEmbedder()) as lib:
            _assert_consistent(lib)
            hits = lib.rag.retrieve("policy meal hotel", top_k=3)
            assert len(hits) == 3 or lib.source_store.count_documents() == 0
    with Library.open(library, embedder=FakeEmbedder()) as lib:
        report = lib.pipeline.ingest_paths([docs])
        assert not report.by_status("failed")
        assert lib.source_store.count_documents() == 60
        _assert_consistent(lib)
