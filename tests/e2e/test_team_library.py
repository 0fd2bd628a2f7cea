"""A team library on a real PostgreSQL: several processes at once, a writer killed
mid-write, and two people whose private documents stay theirs."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from agentmaker.library import Library
from agentmaker.rag.config import RagConfig
from agentmaker.retrieval import Scope
from agentmaker.testing import FakeEmbedder

WORDS = [
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
    "river",
    "stone",
]

WRITER = """
import sys
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder
lib = Library.open(sys.argv[1], embedder=FakeEmbedder())
print("ready", flush=True)
report = lib.pipeline.ingest_paths(sys.argv[2:])
failed = report.by_status("failed")
lib.close()
print("failed" if failed else "done", [f.error for f in failed], flush=True)
"""

SEARCHER = """
import sys, time
from pathlib import Path
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder
lib = Library.open(sys.argv[1], embedder=FakeEmbedder())
print("ready", flush=True)
stop, searches = Path(sys.argv[2]), 0
while not stop.exists():
    for hit in lib.rag.retrieve("budget report for the river", top_k=5):
        assert hit.content
    searches += 1
    time.sleep(0.02)
lib.close()
print("done", searches, flush=True)
"""


def _make_files(folder: Path, count: int, seed: int) -> None:
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    for i in range(count):
        sections = [
            f"## Part {s}\n" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 300)))
            for s in range(rng.randint(1, 4))
        ]
        (folder / f"{folder.name}-{i:02}.md").write_text(
            f"# {folder.name} {i}\n\n" + "\n".join(sections)
        )


def _start(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(child: subprocess.Popen[str], timeout: float) -> str:
    try:  # a hang detector, not a timing assertion
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"a child hung: {out} {err[-2000:]}")
    assert child.returncode == 0, err[-3000:]
    return out


def _assert_consistent(lib: Library) -> None:
    assert lib.pipeline.verify().ok, lib.pipeline.verify()
    for info in lib.source_store.list_documents():
        chunks = lib.source_store.chunks_of(info.doc_id)
        assert len(chunks) == info.chunk_count > 0, info.title  # wholly there
        assert [c.index for c in chunks] == list(range(info.chunk_count))
    assert lib.retriever.count(scope=lib.pipeline.scope) == lib.source_store.count_chunks()


def test_four_writers_and_two_searchers_at_once(pg_dsn: str, tmp_path: Path) -> None:
    folders = [tmp_path / f"team{n}" for n in range(4)]
    for n, folder in enumerate(folders):
        _make_files(folder, 8, seed=n)
    common = tmp_path / "common"  # every writer ingests these too: one copy must remain
    _make_files(common, 4, seed=99)
    stop = tmp_path / "stop"
    searchers = [_start(SEARCHER, pg_dsn, str(stop)) for _ in range(2)]
    writers = [_start(WRITER, pg_dsn, str(f), str(common)) for f in folders]
    outputs = [_finish(w, 240) for w in writers]
    stop.touch()
    searched = [_finish(s, 60) for s in searchers]
    assert all(o.splitlines()[-1].startswith("done") for o in outputs), outputs
    assert all(s.splitlines()[0] == "ready" and s.split()[-1].isdigit() for s in searched)
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        stats = lib.pipeline.stats()
        assert stats["documents"] == 4 * 8 + 4
        assert sorted(d.title for d in lib.source_store.list_documents()) == sorted(
            [f"{f.name} {i}" for f in folders for i in range(8)] + [f"common {i}" for i in range(4)]
        )
        _assert_consistent(lib)


def test_a_writer_killed_mid_write_leaves_no_half_document(pg_dsn: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _make_files(docs, 30, seed=5)
    rng = random.Random(3)
    for _round in range(3):
        child = _start(WRITER, pg_dsn, str(docs))
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.2, 1.2))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
            _assert_consistent(lib)
    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_paths([docs])
        assert lib.pipeline.stats()["documents"] == 30
        _assert_consistent(lib)


def _role(pg_server, name: str) -> None:  # type: ignore[no-untyped-def]
    pg_server.admin(
        f"DO $$ BEGIN CREATE ROLE {name} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    )


def test_two_people_see_their_own_and_the_shared_documents(pg_server, pg_dsn: str) -> None:  # type: ignore[no-untyped-def]
    for name in ("alice", "bob"):
        _role(pg_server, name)
    shared = RagConfig(scope=Scope(base="rag", user="shared"))
    with Library.open(pg_dsn, embedder=FakeEmbedder(), config=shared) as lib:
        lib.pipeline.ingest_text("# Handbook\nThe office opens at eight.", source="handbook.md")
    database = urlsplit(pg_dsn).path.lstrip("/")
    pg_server.admin(
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO alice, bob; "
        "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO alice, bob",
        database=database,
    )
    urls = {name: pg_dsn.replace("//postgres:", f"//{name}:", 1) for name in ("alice", "bob")}
    texts = {"alice": "Alice's salary review is in March.", "bob": "Bob's salary review is in May."}
    for name, url in urls.items():
        with Library.open(url, embedder=FakeEmbedder()) as lib:
            assert lib.source_store.list_documents()[0].source == "handbook.md"
            assert lib.config.scope == Scope(base="rag", user=name)  # the login, by default
            lib.pipeline.ingest_text(f"# {name}\n{texts[name]}", source=f"{name}.md")
    for name, url in urls.items():
        with Library.open(url, embedder=FakeEmbedder()) as lib:
            seen = {h.source for h in lib.rag.retrieve("salary review office opens", top_k=10)}
            assert seen == {f"{name}.md", "handbook.md"}, (name, seen)
            other = "bob" if name == "alice" else "alice"
            assert all(other not in h.content for h in lib.rag.retrieve(texts[other], top_k=10))
            # The documents themselves too: the server's row-level security hides them.
            listed = {d.source for d in lib.source_store.list_documents()}
            assert listed == {f"{name}.md", "handbook.md"}
            assert lib.source_store.find_by_source(f"{other}.md") is None
            assert lib.pipeline.verify().ok
        assert lib.db.login == name  # type: ignore[attr-defined]
