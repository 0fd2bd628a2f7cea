"""The tantivy copy of the keyword index (``keyword_cache``): it answers like FTS5 on a
real corpus, and whenever it is not exactly in sync (rows pending, a rebuild, another
connection, a rolled-back write, a stale stamp, a lost or damaged directory, a process
killed mid-fold) the search is FTS5's, never a wrong or missing result.

The threshold is lowered (``fast_min_rows=0``) so that small real libraries have a copy.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agentmaker.errors import ScopeRequiredError
from agentmaker.retrieval import MetadataFilter, RetrievalResult, Scope
from agentmaker.retrieval.sqlite import keyword_cache
from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
from agentmaker.retrieval.sqlite.hybrid import SqliteHybridRetriever, build_sqlite_hybrid
from agentmaker.retrieval.sqlite.tantivy_index import position
from agentmaker.retrieval.text_analysis import compounds
from agentmaker.testing import FakeEmbedder

from tests.engine.retrieval.sqlite.test_graph_index import wait_for
from tests.paths import SHARED

SCIFACT = SHARED / "bench" / "scifact"
ENGINE = Path(__file__).resolve().parents[4] / "engine"


def scifact_docs(limit: int | None = None) -> list[dict[str, str]]:
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        docs = [json.loads(line) for line in handle]
    return docs[:limit] if limit else docs


def scifact_claims(limit: int) -> list[str]:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle][:limit]


def as_items(docs: list[dict[str, str]]) -> list[RetrievalResult]:
    return [
        RetrievalResult(
            content=f"{d['title']} {d['text']}",
            score=0.0,
            id=d["_id"],
            metadata={"kind": "even" if i % 2 == 0 else "odd", "rare": i % 100 == 0},
        )
        for i, d in enumerate(docs)
    ]


def open_index(path: Path | str, min_rows: int = 0) -> Fts5KeywordIndex:
    return Fts5KeywordIndex(path, metadata_columns=("kind", "rare"), fast_min_rows=min_rows)


def synced(index: Fts5KeywordIndex) -> Fts5KeywordIndex:
    assert index.cache is not None
    assert index.cache.wait(60), index.cache.status
    return index


def ids(index: Fts5KeywordIndex, query: str, k: int = 10, **kwargs: object) -> list[str]:
    return [r.id for r in index.search(query, top_k=k, **kwargs)]  # type: ignore[arg-type]


def keyword_dirs(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.keywords-*"))


@pytest.fixture(scope="module")
def docs() -> list[dict[str, str]]:
    return scifact_docs(2500)


@pytest.fixture(scope="module")
def reference(docs: list[dict[str, str]]) -> Iterator[Fts5KeywordIndex]:
    """The same rows in memory: FTS5 only, the truth to compare with."""
    index = Fts5KeywordIndex(":memory:", metadata_columns=("kind", "rare"))
    index.add(as_items(docs))
    yield index
    index.close()


@pytest.fixture
def library(tmp_path: Path, docs: list[dict[str, str]]) -> Iterator[Fts5KeywordIndex]:
    index = open_index(tmp_path / "lib.sqlite")
    index.add(as_items(docs))
    yield synced(index)
    index.close()


def paused_class(monkeypatch: pytest.MonkeyPatch) -> Callable[[Fts5KeywordIndex], None]:
    """Stop every fold (rows stay pending); returns the function that resumes it."""
    real = keyword_cache.KeywordCache._fold
    monkeypatch.setattr(keyword_cache.KeywordCache, "_fold", lambda self: None)

    def resume(index: Fts5KeywordIndex) -> None:
        monkeypatch.setattr(keyword_cache.KeywordCache, "_fold", real)
        assert index.cache is not None
        index.cache._wake.set()

    return resume


def paused(index: Fts5KeywordIndex, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Stop the fold of an open index; returns the function that resumes it."""
    resume = paused_class(monkeypatch)
    return lambda: resume(index)


# --- the same answers as FTS5 ---------------------------------------------------------


def test_top_k_agrees_with_fts5_on_scifact(
    library: Fts5KeywordIndex, reference: Fts5KeywordIndex
) -> None:
    overlaps, same_order, pairs = [], 0, 0
    for claim in scifact_claims(300):
        fast = library.search(claim, top_k=10)
        # A decimal is searched as a phrase too, which only FTS5 keeps the positions for
        # ("Glucose restriction to 0.05% …", 2 of SciFact's 809 claims).
        assert library.served_by == ("fts5" if compounds(claim) else "tantivy"), claim
        slow = reference.search(claim, top_k=10)
        assert reference.served_by == "fts5"
        overlaps.append(len({r.id for r in fast} & {r.id for r in slow}) / max(1, len(slow)))
        # Rows both rank, whose FTS5 scores are well apart, come in the same order.
        rank = {r.id: i for i, r in enumerate(fast)}
        for a, b in itertools.pairwise(slow):
            if a.id in rank and b.id in rank and a.score > 1.15 * b.score:
                pairs += 1
                same_order += rank[a.id] < rank[b.id]
    assert sum(overlaps) / len(overlaps) >= 0.93
    assert min(overlaps) >= 0.5
    assert pairs > 50 and same_order / pairs >= 0.97


def test_a_query_of_one_rare_word_gives_the_same_rows(
    library: Fts5KeywordIndex, reference: Fts5KeywordIndex
) -> None:
    for word in ("microglia", "telomerase", "ubiquitination", "zebrafish"):
        assert set(ids(library, word, 50)) == set(ids(reference, word, 50)), word
        assert library.served_by == "tantivy"


def test_scope_and_filters(library: Fts5KeywordIndex, reference: Fts5KeywordIndex) -> None:
    claims = scifact_claims(60)
    for claim in claims:
        for filters in ([MetadataFilter("kind", "odd")], [MetadataFilter("rare", True)]):
            fast = ids(library, claim, filters=filters)
            slow = ids(reference, claim, filters=filters)
            assert len(set(fast) & set(slow)) >= 0.8 * len(slow), claim
            found = library.search(claim, top_k=10, filters=filters)
            field, value = filters[0].field, filters[0].values[0]
            assert all(r.metadata[field] == value for r in found)
    # A scope no row has finds nothing on either path.
    assert library.search(claims[0], top_k=10, scope=Scope(base="memory")) == []


def test_a_filter_most_rows_fail_is_answered_by_fts5(
    library: Fts5KeywordIndex, reference: Fts5KeywordIndex
) -> None:
    claim = scifact_claims(1)[0]
    filters = [MetadataFilter("rare", True)]
    fast = ids(library, claim, k=10, filters=filters)
    assert fast == ids(reference, claim, k=10, filters=filters)
    assert fast  # 25 rows pass; the best 40 unfiltered ones hold at most one or two


def test_chinese_text_uses_the_same_bigrams(tmp_path: Path) -> None:
    texts = [
        "北京是中国的首都，也是政治和文化中心。",
        "上海是中国最大的城市，经济中心。",
        "东京是日本的首都。",
        "长江是中国最长的河流。",
    ] * 5
    items = [RetrievalResult(content=t, score=0.0, id=f"z{i}") for i, t in enumerate(texts)]
    index = synced(_filled(open_index(tmp_path / "zh.sqlite"), items))
    reference = Fts5KeywordIndex(":memory:")
    reference.add(items)
    for query in ("中国的首都", "经济中心", "日本首都", "河流"):
        assert set(ids(index, query, 20)) == set(ids(reference, query, 20)), query
        assert index.served_by == "tantivy"
    assert set(ids(index, "京", 20)) == set(ids(reference, "京", 20))  # a prefix query
    assert index.served_by == "fts5"
    index.close()


def _filled(index: Fts5KeywordIndex, items: list[RetrievalResult]) -> Fts5KeywordIndex:
    index.add(items)
    return index


# --- writes, and the slow path until the copy has them --------------------------------


def test_pending_rows_are_found_through_fts5_until_folded(
    library: Fts5KeywordIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    resume = paused(library, monkeypatch)
    library.add([RetrievalResult(content="quasicrystal phonon lattice", score=0.0, id="new1")])
    assert ids(library, "quasicrystal") == ["new1"]
    assert library.served_by == "fts5"
    resume()
    synced(library)
    assert ids(library, "quasicrystal") == ["new1"]
    assert library.served_by == "tantivy"


def test_deleted_and_replaced_rows_are_gone_at_once_and_after_folding(
    library: Fts5KeywordIndex, docs: list[dict[str, str]]
) -> None:
    word = "microglia"
    before = ids(library, word, 50)
    assert len(before) >= 3
    library.delete([before[0]])
    replaced = RetrievalResult(content="nothing about that cell type", score=0.0, id=before[1])
    library.add([replaced])
    for _ in range(2):  # before the fold (FTS5), then after it (tantivy)
        after = ids(library, word, 50)
        assert before[0] not in after and before[1] not in after
        assert set(after) == set(before[2:])
        assert ids(library, "nothing about that cell type", 50)[0] == before[1]
        synced(library)
    assert library.served_by == "tantivy"


def test_a_rolled_back_write_never_reaches_the_copy(library: Fts5KeywordIndex) -> None:
    cache = library.cache
    assert cache is not None
    before = position(cache._index.searcher())
    with pytest.raises(RuntimeError), library.db.transaction():
        library.add([RetrievalResult(content="xylophone zeppelin", score=0.0, id="gone")])
        raise RuntimeError("undo")
    assert ids(library, "xylophone zeppelin") == []
    assert library.db.query("SELECT count(*) FROM kw_fts_log WHERE rowid > 2500")[0][0] == 0
    synced(library)
    assert position(cache._index.searcher()) == before
    assert ids(library, "xylophone zeppelin") == [] and library.served_by == "tantivy"


def test_a_second_connection_follows_and_takes_over(
    library: Fts5KeywordIndex, tmp_path: Path
) -> None:
    second = open_index(tmp_path / "lib.sqlite")
    assert second.cache is not None
    wait_for(lambda: second.cache is not None and second.cache.status == "following", "follow")
    second.add([RetrievalResult(content="ornithopter gyroscope", score=0.0, id="b1")])
    assert ids(second, "ornithopter") == ["b1"]  # pending: FTS5 at once
    synced(library)  # the first one folds the second one's write
    wait_for(lambda: ids(second, "ornithopter") == ["b1"] and second.served_by == "tantivy", "b1")
    library.close()  # the writer is free: the second one takes it over on its next write
    second.add([RetrievalResult(content="ornithopter blueprint", score=0.0, id="b2")])
    wait_for(lambda: second.cache is not None and second.cache.status == "ready", "take over")
    synced(second)
    assert set(ids(second, "ornithopter")) == {"b1", "b2"}
    assert second.served_by == "tantivy"
    second.close()


# --- the copy's files ------------------------------------------------------------------


def test_a_small_library_stays_fts5_only(tmp_path: Path, docs: list[dict[str, str]]) -> None:
    index = open_index(tmp_path / "small.sqlite", min_rows=10_000)
    index.add(as_items(docs[:300]))
    assert index.cache is not None and index.cache.status == "too small"
    assert ids(index, "cells") and index.served_by == "fts5"
    index.close()
    assert keyword_dirs(tmp_path) == []


def test_the_copy_is_stamped_reopened_and_not_rebuilt(
    library: Fts5KeywordIndex, tmp_path: Path
) -> None:
    stamp = json.loads(library.db.get_meta("kw_fts.tantivy") or "{}")
    assert stamp["count"] == 2500 and stamp["dir"] in keyword_dirs(tmp_path)
    library.close()
    again = open_index(tmp_path / "lib.sqlite")
    assert again.cache is not None and again.cache.status in ("following", "ready")
    assert ids(again, "microglia") and again.served_by == "tantivy"  # the first search
    synced(again)
    assert again.cache.last_rebuild is None
    assert keyword_dirs(tmp_path) == [stamp["dir"]]
    again.close()


def held_rebuilds(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Rebuilds wait until the returned event is set."""
    go = threading.Event()
    real = keyword_cache.KeywordCache._rebuild

    def held(self: keyword_cache.KeywordCache) -> None:
        go.wait(30)
        real(self)

    monkeypatch.setattr(keyword_cache.KeywordCache, "_rebuild", held)
    return go


@pytest.mark.parametrize("damage", ["lost", "corrupt meta", "corrupt segments", "stale", "ahead"])
def test_a_lost_damaged_or_stale_copy_is_rebuilt(
    library: Fts5KeywordIndex,
    reference: Fts5KeywordIndex,
    tmp_path: Path,
    damage: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stamp = json.loads(library.db.get_meta("kw_fts.tantivy") or "{}")
    folder = tmp_path / stamp["dir"]
    library.close()
    if damage == "lost":
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
    elif damage == "corrupt meta":
        (folder / "meta.json").write_bytes(b"\0garbage" * 64)
    elif damage == "corrupt segments":
        for file in folder.iterdir():
            if file.suffix in (".idx", ".term", ".fast"):
                file.write_bytes(b"\0garbage" * 64)
    elif damage == "stale":
        stamp["tokens"] = "an older tokenizer"
        _set_meta(tmp_path / "lib.sqlite", "kw_fts.tantivy", json.dumps(stamp))
    else:  # the copy claims a position the library never logged
        stamp["seq"] += 5
        _set_meta(tmp_path / "lib.sqlite", "kw_fts.tantivy", json.dumps(stamp))
    go = held_rebuilds(monkeypatch)
    again = open_index(tmp_path / "lib.sqlite")
    claim = scifact_claims(3)[2]
    assert set(ids(again, claim)) == set(ids(reference, claim))  # FTS5 meanwhile
    assert again.served_by == "fts5"
    go.set()
    synced(again)
    assert again.cache is not None and again.cache.last_rebuild is not None
    assert len(set(ids(again, claim)) & set(ids(reference, claim))) >= 8
    assert again.served_by == "tantivy"
    new = json.loads(again.db.get_meta("kw_fts.tantivy") or "{}")
    assert new["dir"] != stamp["dir"]
    wait_for(lambda: keyword_dirs(tmp_path) == [new["dir"]], "the old directory removed")
    again.close()


def _set_meta(path: Path, key: str, value: str) -> None:
    import sqlean

    conn = sqlean.connect(path)
    conn.execute("UPDATE library_meta SET value = ? WHERE key = ?", (value, key))
    conn.commit()
    conn.close()


def test_a_process_killed_mid_fold_leaves_no_wrong_result(
    tmp_path: Path, docs: list[dict[str, str]]
) -> None:
    """SIGKILL while the copy folds in small batches; the next open heals it."""
    path = tmp_path / "lib.sqlite"
    index = open_index(path)
    index.add(as_items(docs[:500]))
    synced(index).close()
    script = textwrap.dedent(
        f"""
        import json, sys, time
        from agentmaker.retrieval import RetrievalResult
        from agentmaker.retrieval.sqlite import keyword_cache
        from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
        keyword_cache.FOLD_BATCH = 10
        docs = [json.loads(line) for line in open({str(SCIFACT / "corpus.jsonl")!r})][500:2500]
        index = Fts5KeywordIndex({str(path)!r}, metadata_columns=("kind", "rare"), fast_min_rows=0)
        index.add([RetrievalResult(content=d["title"] + " " + d["text"], score=0.0, id=d["_id"])
                   for d in docs])
        print("added", flush=True)
        time.sleep(60)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ENGINE), *sys.path])},
    )

    def folding() -> bool:
        stamp = _meta(path, "kw_fts.tantivy")
        return stamp is not None and 500 < json.loads(stamp)["count"] < 2500

    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "added"
        wait_for(folding, "the child to be folding")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    reference = Fts5KeywordIndex(":memory:")
    reference.add(as_items(docs))
    monkeypatch = pytest.MonkeyPatch()
    resume = paused_class(monkeypatch)
    again = open_index(path)
    claims = scifact_claims(40)
    for claim in claims:  # pending rows: FTS5, the whole truth
        assert set(ids(again, claim)) == set(ids(reference, claim)), claim
        assert again.served_by == "fts5"
    resume(again)
    monkeypatch.undo()
    synced(again)
    overlap = [len(set(ids(again, c)) & set(ids(reference, c))) / 10 for c in claims]
    assert sum(overlap) / len(overlap) >= 0.93 and again.served_by == "tantivy"
    assert again.cache is not None and again.cache.last_rebuild is None  # healed by folding
    again.close()
    reference.close()


def _meta(path: Path, key: str) -> str | None:
    import sqlean

    conn = sqlean.connect(path)
    try:
        rows = conn.execute("SELECT value FROM library_meta WHERE key = ?", (key,)).fetchall()
    finally:
        conn.close()
    return rows[0][0] if rows else None


def test_the_hybrid_retriever_uses_the_copy_within_its_scope(
    tmp_path: Path, docs: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword_cache, "FAST_MIN_ROWS", 0)
    retriever = build_sqlite_hybrid(
        FakeEmbedder(), tmp_path / "hybrid.sqlite", metadata_columns=("kind", "rare")
    )
    try:
        rag = Scope(base="rag")
        retriever.add(as_items(docs[:800]), scope=rag)
        keywords = synced(retriever.keyword_index)
        claim = "microglia activation in the brain"
        found = retriever.search(claim, scope=rag, top_k=5)
        assert keywords.served_by == "tantivy"
        assert any("microglia" in r.content.lower() for r in found)
        assert retriever.search(claim, scope=Scope(base="memory"), top_k=5) == []
        with pytest.raises(ScopeRequiredError):
            retriever.search(claim, top_k=5)  # the empty scope is refused, as before
        assert retriever.search(claim, all_scopes=True, top_k=5)
    finally:
        retriever.close()


def test_text_that_is_not_valid_unicode_is_folded_as_fts5_indexed_it(tmp_path: Path) -> None:
    index = open_index(tmp_path / "odd.sqlite")
    items = [
        RetrievalResult(content="caf\udce9 menu with zqxjv soup", score=0.0, id="bad"),
        RetrievalResult(content="a plain menu with bread", score=0.0, id="good"),
    ]
    index.add(items)
    synced(index)
    assert ids(index, "zqxjv soup") == ["bad"] and index.served_by == "tantivy"
    assert set(ids(index, "menu")) == {"bad", "good"}
    index.close()


def test_a_copy_that_lost_count_of_the_rows_is_rebuilt(
    library: Fts5KeywordIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that bypassed the log (no code path does: a safety net) is caught by the
    row count checked once per open."""
    word = "microglia"
    gone = library.db.query("SELECT rowid FROM kw_items WHERE id = ?", (ids(library, word)[0],))
    library.close()
    import sqlean

    conn = sqlean.connect(tmp_path / "lib.sqlite")
    conn.execute("DELETE FROM kw_fts WHERE rowid = ?", (gone[0][0],))
    conn.commit()
    conn.close()
    go = held_rebuilds(monkeypatch)
    again = open_index(tmp_path / "lib.sqlite")
    assert again.cache is not None
    wait_for(lambda: again.cache is not None and again.cache._index is None, "the count check")
    reference = ids(again, word, 50)
    assert again.served_by == "fts5"
    go.set()
    synced(again)
    assert set(ids(again, word, 50)) == set(reference) and again.served_by == "tantivy"
    again.close()


def test_a_cleared_index_is_cleared_in_the_copy(library: Fts5KeywordIndex) -> None:
    library.clear()
    library.add([RetrievalResult(content="microglia anew", score=0.0, id="fresh")])
    for _ in range(2):  # before the fold (FTS5), then after it (tantivy)
        assert ids(library, "microglia", 50) == ["fresh"]
        assert ids(library, "cells", 50) == []
        synced(library)
    assert library.served_by == "tantivy"
    assert position(library.cache._index.searcher())[1] == 1  # type: ignore[union-attr]


def test_changing_the_embedder_rebuilds_the_copy_too(
    tmp_path: Path, docs: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmaker.library import Library

    monkeypatch.setattr(keyword_cache, "FAST_MIN_ROWS", 0)
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        for d in docs[:150]:
            lib.pipeline.ingest_text(d["text"], title=d["title"], doc_id=d["_id"], fmt="txt")
        retriever = lib.retriever
        assert isinstance(retriever, SqliteHybridRetriever)
        rows = retriever.keyword_index.count()
        synced(retriever.keyword_index)
        lib.reembed(FakeEmbedder(32, name="other"))
        keywords = lib.retriever.keyword_index
        assert isinstance(keywords, Fts5KeywordIndex)
        assert keywords.count() == rows
        wait_for(lambda: _in_sync_with(keywords, rows), "the copy after the rebuild")
        found = lib.rag.retrieve("microstructural development of white matter", top_k=3)
        assert found and keywords.served_by == "tantivy"


def _in_sync_with(index: Fts5KeywordIndex, rows: int) -> bool:
    cache = index.cache
    if cache is None or cache._index is None:
        return False
    seq, count = position(cache._index.searcher())
    last = index.db.query("SELECT max(seq) FROM kw_fts_log")[0][0]
    return seq == last and count == rows
