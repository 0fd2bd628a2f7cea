"""The HNSW graph of large vector tables: recall on real text, deletes, rebuilds of a
missing, damaged or stale graph file, rolled-back writes, and a first search that never
waits for the graph (the thresholds are lowered so that small libraries have one)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import sqlean
from agentmaker.retrieval import RetrievalResult, SqliteVecStore
from agentmaker.retrieval.sqlite import graph_index
from agentmaker.retrieval.sqlite.graph_index import GraphIndex

from tests.paths import SHARED

DIM = 48


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll for a background result (a deadline against hangs, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


def items(vectors: np.ndarray, start: int = 0) -> list[RetrievalResult]:
    return [
        RetrievalResult(content=f"text {start + i}", score=0.0, id=f"i{start + i}", embedding=v)
        for i, v in enumerate(vectors)
    ]


def random_vectors(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


def open_store(path: Path, min_size: int = 200) -> SqliteVecStore:
    return SqliteVecStore(path, dimension=DIM, graph_min_size=min_size)


def ready(store: SqliteVecStore) -> SqliteVecStore:
    """Wait for the graph: built, or mapped from its file (loaded on the first write)."""
    wait_for(
        lambda: store.graph is not None and store.graph.status in ("ready", "mapped"), "the graph"
    )
    return store


def graph_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.usearch"))


@pytest.fixture
def built(tmp_path: Path) -> Iterator[tuple[Path, np.ndarray]]:
    """A closed library of 600 vectors whose graph file is saved."""
    vectors = random_vectors(600)
    path = tmp_path / "lib.sqlite"
    store = open_store(path)
    store.add(items(vectors))
    ready(store).close()
    yield path, vectors


def test_a_library_below_the_threshold_has_no_graph(tmp_path: Path) -> None:
    store = open_store(tmp_path / "lib.sqlite", min_size=1000)
    store.add(items(random_vectors(300)))
    assert store.graph is not None and store.graph.status == "too small"
    assert [r.id for r in store.search(random_vectors(300)[7], top_k=1)] == ["i7"]
    store.close()
    assert graph_files(tmp_path) == []


def test_the_graph_is_built_saved_and_stamped(built: tuple[Path, np.ndarray]) -> None:
    path, vectors = built
    stamp = json.loads(
        sqlean.connect(str(path))
        .execute("SELECT value FROM library_meta WHERE key = 'vec_vectors.graph'")
        .fetchone()[0]
    )
    assert graph_files(path.parent) == [stamp["file"]]
    assert (stamp["count"], stamp["max_rowid"], stamp["dimension"]) == (600, 600, DIM)
    store = open_store(path)
    graph = store.graph
    assert graph is not None and graph.ready and graph.status == "mapped"  # at open, at once
    assert store.search(vectors[42], top_k=3)[0].id == "i42"
    assert graph.status == "mapped"  # searching alone never loads a copy
    store.add(items(random_vectors(1, seed=4), start=600))
    wait_for(lambda: graph.status == "ready" and not graph._pending, "the copy and the fold")
    assert len(graph) == 601
    store.close()


def test_recall_on_real_sentences() -> None:
    from agentmaker.models.local_embedder import LocalEmbedder

    scifact = SHARED / "bench" / "scifact"
    if not scifact.is_dir():
        pytest.skip("../shared/bench/scifact is not present")
    rows = [json.loads(line) for line in (scifact / "corpus.jsonl").open(encoding="utf-8")]
    sentences = [s for row in rows[:120] for s in row["text"].split(". ") if len(s) > 30][:900]
    claims = [json.loads(line)["text"] for line in (scifact / "queries.jsonl").open()][:40]
    embedder = LocalEmbedder()
    try:
        passages, queries = embedder.embed_batch(sentences), embedder.embed_queries(claims)
    finally:
        embedder.close()
    store = SqliteVecStore(":memory:", dimension=384, graph_min_size=300)
    store.add(items(passages))
    ready(store)
    found = []
    for q in queries:
        approx = {r.id for r in store.search(q, top_k=10)}
        exact = {r.id for r in store.search(q, top_k=10, exact=True)}
        found.append(len(approx & exact) / 10)
    assert store.graph is not None and len(store.graph) + len(store.graph._pending) >= 900
    assert np.mean(found) >= 0.98
    store.close()


def test_deleted_and_replaced_vectors_are_gone_at_once_and_after_reopening(
    built: tuple[Path, np.ndarray],
) -> None:
    path, vectors = built
    store = ready(open_store(path))
    store.delete(["i5", "i6"])
    moved = random_vectors(1, seed=9)[0]
    store.add(items(moved[None, :], start=7))  # i7 gets a new vector
    assert "i5" not in [r.id for r in store.search(vectors[5], top_k=5)]
    assert "i7" not in [r.id for r in store.search(vectors[7], top_k=3)]
    assert [r.id for r in store.search(moved, top_k=1)] == ["i7"]
    graph = store.graph
    assert graph is not None
    wait_for(lambda: not graph._pending, "the fold of pending rows")
    assert len(graph) == 598
    store.close()
    store = ready(open_store(path))
    assert "i6" not in [r.id for r in store.search(vectors[6], top_k=5)]
    assert [r.id for r in store.search(moved, top_k=1)] == ["i7"]
    store.close()


def test_new_vectors_are_found_before_and_after_they_are_folded_in(
    built: tuple[Path, np.ndarray],
) -> None:
    path, _ = built
    store = ready(open_store(path))
    extra = random_vectors(50, seed=3)
    store.add(items(extra, start=600))
    assert [r.id for r in store.search(extra[10], top_k=1)] == ["i610"]
    graph = store.graph
    assert graph is not None
    wait_for(lambda: not graph._pending, "the fold of pending rows")
    assert len(graph) == 650
    assert [r.id for r in store.search(extra[20], top_k=1)] == ["i620"]
    store.close()


@pytest.mark.parametrize("damage", ["missing", "truncated", "foreign"])
def test_a_missing_damaged_or_foreign_graph_file_is_rebuilt(
    built: tuple[Path, np.ndarray], damage: str
) -> None:
    path, vectors = built
    (old,) = graph_files(path.parent)
    target = path.parent / old
    if damage == "missing":
        target.unlink()
    elif damage == "truncated":
        target.write_bytes(target.read_bytes()[:1000])
    else:  # another library's graph under this name: its count does not match
        other = open_store(path.parent / "other.sqlite", min_size=50)
        other.add(items(random_vectors(80, seed=5)))
        ready(other).close()
        (theirs,) = [n for n in graph_files(path.parent) if n.startswith("other")]
        target.write_bytes((path.parent / theirs).read_bytes())
    store = ready(open_store(path))
    assert [r.id for r in store.search(vectors[99], top_k=1)] == ["i99"]
    graph = store.graph
    assert graph is not None and len(graph) == 600
    store.close()
    assert old not in graph_files(path.parent)


def test_vectors_removed_behind_the_logs_back_make_the_graph_stale(
    built: tuple[Path, np.ndarray],
) -> None:
    path, _ = built
    conn = sqlean.connect(str(path))
    conn.execute("DELETE FROM vec_vectors WHERE rowid = 600")  # not logged
    conn.commit()
    conn.close()
    store = open_store(path)
    assert store.graph is not None and store.graph.status == "building"
    ready(store)
    assert len(store.graph) == 599
    store.close()


def test_an_unfinished_save_is_ignored(built: tuple[Path, np.ndarray]) -> None:
    path, vectors = built
    (good,) = graph_files(path.parent)
    # A crash after writing a newer file but before naming it in the library.
    (path.parent / "lib.sqlite.graph-deadbeef-9999.usearch.tmp").write_bytes(b"partial")
    (path.parent / "lib.sqlite.graph-deadbeef-9999.usearch").write_bytes(b"not named")
    store = open_store(path)
    assert store.graph is not None and store.graph.status in ("mapped", "ready")
    assert [r.id for r in store.search(vectors[3], top_k=1)] == ["i3"]
    store.close()
    assert good in graph_files(path.parent)


def test_a_rolled_back_write_is_not_found(built: tuple[Path, np.ndarray]) -> None:
    path, _ = built
    store = ready(open_store(path))
    ghost = random_vectors(1, seed=11)
    with pytest.raises(RuntimeError), store.db.transaction():
        store.add(items(ghost, start=900))
        assert [r.id for r in store.search(ghost[0], top_k=1)] == ["i900"]
        raise RuntimeError("abort")
    assert "i900" not in [r.id for r in store.search(ghost[0], top_k=3)]
    store.close()


def test_the_first_search_does_not_wait_for_a_rebuild(
    built: tuple[Path, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, vectors = built
    for name in graph_files(path.parent):
        (path.parent / name).unlink()
    release = threading.Event()
    build = GraphIndex._build_then_fold

    def slow_build(self: GraphIndex) -> None:
        release.wait(timeout=60)
        build(self)

    monkeypatch.setattr(graph_index.GraphIndex, "_build_then_fold", slow_build)
    store = open_store(path, min_size=100)  # 600 >= 5 x 100: too big to load the bit codes
    assert store.search(vectors[1], top_k=3) == []
    assert store.notice is not None and "keywords only" in store.notice
    release.set()
    ready(store)
    assert [r.id for r in store.search(vectors[1], top_k=1)] == ["i1"]
    assert store.notice is None
    store.close()


def test_closing_the_database_stops_the_graph_thread(built: tuple[Path, np.ndarray]) -> None:
    path, _ = built
    store = ready(open_store(path))
    graph = store.graph
    assert graph is not None and graph._thread is not None
    store.db.close()
    assert not graph._thread.is_alive() and graph.error is None


def test_a_second_app_that_falls_behind_takes_over_the_newer_graph(
    built: tuple[Path, np.ndarray],
) -> None:
    path, _ = built
    reader = ready(open_store(path))
    writer = ready(open_store(path))
    extra = random_vectors(300, seed=21)
    writer.add(items(extra, start=600))
    graph = writer.graph
    assert graph is not None
    wait_for(lambda: not graph._pending, "the writer's fold")
    graph.save()  # trims the log past what the reader has seen
    writer.close()
    assert [r.id for r in reader.search(extra[123], top_k=1)] in ([], ["i723"])
    other = reader.graph
    assert other is not None
    wait_for(lambda: len(other) == 900 and not other._behind_log, "the reader's reload")
    assert [r.id for r in reader.search(extra[123], top_k=1)] == ["i723"]
    reader.close()
