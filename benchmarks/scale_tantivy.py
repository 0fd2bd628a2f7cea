"""The tantivy keyword copy on a built scale library: rebuild time, size, and the keyword
leg served by tantivy against FTS5 on the same rows (latency, top-k agreement).

    nice -n 10 python -m benchmarks.scale_tantivy --size 1000000 [--rebuild]

Reuses ``library_minilm_<n>_s2.sqlite`` (``scale build``). The first open after the
upgrade migrates the file (a keyword log table) and builds the copy in the background;
that build is timed here. ``--rebuild`` drops the stamp first (what a lost or stale
copy costs). Results go to ``results.json`` under ``tantivy_<n>``.
"""

from __future__ import annotations

import argparse
import json
import os
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    result = measure(args.size, args.model, rebuild=args.rebuild)
    _save(f"tantivy_{args.size}" + ("_rebuild" if args.rebuild else ""), result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
