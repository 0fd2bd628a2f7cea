"""The tantivy keyword copy on a built scale library: rebuild time, size, and the keyword
leg served by tantivy against FTS5 on the same rows (latency, top-k agreement).

    nice -n 10 python -m benchmarks.scale_tantivy --size 1000000 [--rebuild]
    nice -n 10 python -m benchmarks.scale_tantivy --import 200000
    nice -n 10 python -m benchmarks.scale_tantivy --profile 1000000   # where hybrid time goes

Reuses ``library_minilm_<n>_s2.sqlite`` (``scale build``). The first open after the
upgrade migrates the file (a keyword log table) and builds the copy in the background;
that build is timed here. ``--rebuild`` drops the stamp first (what a lost or stale
copy costs). Results go to ``results.json`` under ``tantivy_<n>``.

``--import N`` measures what a big import does: N of the scale passages are added to a
new keyword-only library in batches of 2,000 (as fast as FTS5 takes them, far faster
than embedding would), with one search after each batch (is it served by the copy or by
FTS5?), the time until a batch is in the copy (after nine batches without a pause, and
alone after a pause), the copy's catch-up after the last batch, and FTS5 against tantivy
latency at each size passed (the threshold below which a library keeps FTS5 only).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
from agentmaker.retrieval.sqlite.items import ItemTable

from benchmarks.common import peak_rss_mb, percentile
from benchmarks.scale import _save
from benchmarks.scale_data import RAG, library_path
from benchmarks.scale_measure import keyword_queries


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _timed(index: Fts5KeywordIndex, queries: list[str], top_k: int) -> dict[str, Any]:
    times, found = [], {}
    for _ in range(2):
        for q in queries:
            t = time.perf_counter()
            found[q] = [r.id for r in index.search(q, top_k=top_k, scope=RAG)]
            times.append((time.perf_counter() - t) * 1000)
    return {
        "ms": {f"p{p}": round(percentile(times, p), 2) for p in (50, 95, 99)},
        "found": found,
    }


def measure(n: int, model: str = "minilm", *, rebuild: bool = False) -> dict[str, Any]:
    path = library_path(model, n)
    out: dict[str, Any] = {"n": n, "load_before": [round(x, 2) for x in os.getloadavg()]}
    if rebuild:
        db = SqliteDatabase(path)
        db.execute("DELETE FROM library_meta WHERE key = 'kw_fts.tantivy'")
        db.close()
    t = time.perf_counter()
    db = SqliteDatabase(path)
    index = Fts5KeywordIndex(
        db, items=ItemTable(db, metadata_columns=("doc_id", "format")), committed_reads=True
    )
    cache = index.cache
    assert cache is not None
    out["opened_s"] = round(time.perf_counter() - t, 3)
    out["status_at_open"] = cache.status
    if not cache.wait(timeout=3600):
        raise RuntimeError(f"keyword copy not ready: {cache.status} {cache.error}")
    out["ready_after_s"] = round(time.perf_counter() - t, 1)
    if cache.last_rebuild:
        rows, seconds = cache.last_rebuild
        out["rebuild"] = {
            "rows": rows,
            "seconds": round(seconds, 1),
            "rows_per_s": round(rows / seconds),
        }
    folder = path.parent / json.loads(db.get_meta("kw_fts.tantivy") or "{}")["dir"]
    out["cache_mb"] = round(_bytes(folder) / 1e6, 1)
    out["load_after_build"] = [round(x, 2) for x in os.getloadavg()]
    pool = 20
    for k, queries in keyword_queries().items():
        fast = _timed(index, queries, pool)
        served = index.served_by
        saved, index.cache = index.cache, None  # the FTS5 path on the same rows
        slow = _timed(index, queries, pool)
        index.cache = saved
        overlap = [
            len(set(fast["found"][q][:10]) & set(slow["found"][q][:10]))
            / max(1, len(slow["found"][q][:10]))
            for q in queries
        ]
        out[f"{k}w"] = {
            "tantivy": fast["ms"],
            "fts5": slow["ms"],
            "served_by": served,
            "overlap@10": round(sum(overlap) / len(overlap), 3),
        }
        print(k, out[f"{k}w"], flush=True)
    out["peak_rss_mb"] = round(peak_rss_mb())
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    db.close()
    return out


def bulk_import(n: int, batch: int = 2000) -> dict[str, Any]:
    from agentmaker.retrieval import RetrievalResult

    from benchmarks.scale_data import library_texts

    texts = library_texts(n)
    queries = keyword_queries()[8]
    folder = Path(tempfile.mkdtemp(prefix="kwimport-", dir=library_path("minilm", 1).parent))
    out: dict[str, Any] = {"n": n, "batch": batch, "load_before": os.getloadavg()}
    served: list[str] = []
    sizes: dict[int, Any] = {}
    lags: list[float] = []  # flat out: after nine batches without a pause
    single: list[float] = []  # one batch after a pause
    index = Fts5KeywordIndex(folder / "import.sqlite", committed_reads=True)
    try:
        started = time.perf_counter()
        for start in range(0, n, batch):
            rows = [
                RetrievalResult(content=texts[i], score=0.0, id=f"c{i}", source="scale")
                for i in range(start, min(n, start + batch))
            ]
            step = start // batch % 20
            cache = index.cache
            if step == 18 and cache is not None and cache.active:
                cache.wait(600)  # a pause: the next batch is timed alone
            index.add(rows, scope=RAG)
            index.search(queries[start // batch % len(queries)], top_k=20, scope=RAG)
            served.append(index.served_by)
            if step in (9, 19) and cache is not None and cache.active:
                t = time.perf_counter()  # how long until this batch is in the copy
                cache.wait(600)
                (single if step == 19 else lags).append((time.perf_counter() - t) * 1000)
            done = start + len(rows)
            if done in (20_000, 50_000, 100_000, 500_000) and done < n:
                sizes[done] = _sizes(index, queries)
        out["import_s"] = round(time.perf_counter() - started, 1)
        out["rows_per_s"] = round(n / (time.perf_counter() - started))
        t = time.perf_counter()
        assert index.cache is not None and index.cache.wait(600)
        out["catch_up_after_last_batch_s"] = round(time.perf_counter() - t, 2)
        sizes[n] = _sizes(index, queries)
        out["searches_during_import_served_by_tantivy"] = round(
            served.count("tantivy") / len(served), 3
        )
        out["rebuild_when_threshold_was_crossed"] = index.cache.last_rebuild
        out["by_size"] = sizes
        out["copy_behind_after_9_batches_ms"] = {
            f"p{p}": round(percentile(lags, p), 1) for p in (50, 95, 99)
        }
        out["one_batch_in_copy_after_ms"] = {
            f"p{p}": round(percentile(single, p), 1) for p in (50, 95, 99)
        }
    finally:
        index.close()
        shutil.rmtree(folder, ignore_errors=True)
    out["load_after"] = os.getloadavg()
    return out


def _sizes(index: Fts5KeywordIndex, queries: list[str]) -> dict[str, Any]:
    cache = index.cache
    assert cache is not None
    fts5 = _timed_alone(index, queries, cache=None)
    if cache.active:
        cache.wait(600)
    return {"fts5_8w": fts5, "tantivy_8w": _timed_alone(index, queries, cache=cache)}


def _timed_alone(index: Fts5KeywordIndex, queries: list[str], cache: Any) -> dict[str, float]:
    saved, index.cache = index.cache, cache
    try:
        return _timed(index, queries, 20)["ms"]
    finally:
        index.cache = saved


def profile_hybrid(n: int, model: str = "minilm") -> None:
    """cProfile of 240 hybrid searches (after 40 to warm up), the top functions."""
    import cProfile
    import pstats

    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

    from benchmarks.scale_data import StaticEmbedder
    from benchmarks.scale_measure import _graph_ready, _keywords_ready, _query_set

    texts, vectors = _query_set(model)
    retriever = build_sqlite_hybrid(
        StaticEmbedder(f"scale-{model}", dict(zip(texts, vectors, strict=True))),
        library_path(model, n),
        metadata_columns=("doc_id", "format"),
    )
    _graph_ready(retriever)
    _keywords_ready(retriever)
    for q in texts[:40]:
        retriever.search(q, scope=RAG)
    profiler = cProfile.Profile()
    profiler.enable()
    for q in texts:
        retriever.search(q, scope=RAG)
    profiler.disable()
    print("load", os.getloadavg())
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    retriever.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int)
    parser.add_argument("--import", dest="bulk", type=int)
    parser.add_argument("--profile", type=int)
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    if args.profile:
        profile_hybrid(args.profile, args.model)
        return
    if args.bulk:
        bulk = bulk_import(args.bulk)
        _save(f"tantivy_import_{args.bulk}", bulk)
        print(json.dumps(bulk))
        return
    result = measure(args.size, args.model, rebuild=args.rebuild)
    _save(f"tantivy_{args.size}" + ("_rebuild" if args.rebuild else ""), result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
