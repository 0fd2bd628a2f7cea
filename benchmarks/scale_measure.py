"""One size of the scale benchmark, measured in its own process (so its peak RSS is its
own): our hybrid search and each leg, a numpy scan, LanceDB and bm25s on the same rows.

    python -m benchmarks.scale_measure latency --model minilm --size 100000
    python -m benchmarks.scale_measure cold --model minilm --size 100000 [--evict]
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

import numpy as np

from benchmarks.common import log, peak_rss_mb, percentile
from benchmarks.scale import _bits_recall, _exact_top10
from benchmarks.scale_corpus import queries as real_query_texts
from benchmarks.scale_corpus import vectors
from benchmarks.scale_data import (
    RAG,
    StaticEmbedder,
    generated_queries,
    library_path,
    library_texts,
    library_vectors,
)

QUERIES = 240  # 200 SciFact claims and 40 RGB questions, with their real vectors


def _stats(times_ms: list[float]) -> dict[str, float]:
    return {f"p{p}": round(percentile(times_ms, p), 2) for p in (50, 95, 99)}


def _timed(fn: Any, args: list[Any], rounds: int = 2) -> dict[str, float]:
    times = []
    for _ in range(rounds):
        for a in args:
            t = time.perf_counter()
            fn(a)
            times.append((time.perf_counter() - t) * 1000)
    return _stats(times)


def _query_set(model: str) -> tuple[list[str], np.ndarray]:
    texts = real_query_texts()
    _, qv = vectors(model)
    picks = list(range(200)) + list(range(len(texts) - 40, len(texts)))
    return [texts[i] for i in picks], np.asarray(qv)[picks]


def keyword_queries() -> dict[int, list[str]]:
    """80 queries each of 1, 3 and 8 words, cut from the SciFact claims."""
    claims = [t.split() for t in real_query_texts()[:809]]
    long = [c for c in claims if len(c) >= 8]
    return {k: [" ".join(c[:k]) for c in long[:80]] for k in (1, 3, 8)}


def _graph_ready(retriever: Any, timeout: float = 600.0) -> None:
    graph = retriever.vector_store.graph
    deadline = time.monotonic() + timeout
    while graph is not None and graph.status not in ("ready", "mapped", "too small"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"graph not ready: {graph.status}")
        time.sleep(0.2)


def _keywords_ready(retriever: Any, timeout: float = 3600.0) -> str:
    """Wait for the tantivy keyword copy (built on the first open after the upgrade);
    returns its status ("too small": FTS5 only)."""
    cache = retriever.keyword_index.cache
    if cache is not None and cache.status != "too small" and not cache.wait(timeout):
        raise RuntimeError(f"keyword copy not ready: {cache.status}")
    return "none" if cache is None else str(cache.status)


def latency(model: str, n: int, *, peers: bool = True) -> dict[str, Any]:
    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

    load = os.getloadavg()
    path = library_path(model, n)
    texts, qv = _query_set(model)
    retriever = build_sqlite_hybrid(
        StaticEmbedder(f"scale-{model}", dict(zip(texts, qv, strict=True))),
        path,
        metadata_columns=("doc_id", "format"),
    )
    _graph_ready(retriever)
    keywords_status = _keywords_ready(retriever)
    store, keyword = retriever.vector_store, retriever.keyword_index
    pool = retriever.config.candidate_pool
    pairs = list(zip(texts, qv, strict=True))
    retriever.search(texts[0], scope=RAG)  # warm
    out: dict[str, Any] = {"model": model, "n": n, "load_before": [round(x, 2) for x in load]}

    out["hybrid"] = _timed(lambda q: retriever.search(q, scope=RAG), texts)
    out["dense"] = _timed(lambda v: store.search(v, top_k=pool, scope=RAG), list(qv))
    out["keyword"] = {
        f"{k}w": _timed(lambda q: keyword.search(q, top_k=pool, scope=RAG), qs)
        for k, qs in keyword_queries().items()
    }
    out["keyword_index"] = {"status": keywords_status, "served_by": keyword.served_by}
    # Recall@10 of the dense leg against the exact top 10 (numpy over the same vectors).
    matrix = np.array(library_vectors(model, n), dtype=np.float32)  # a writable copy
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    scan = list(qv[:: max(1, len(qv) // 60)])  # 60 queries: at 1M each scan is ~0.4 GFLOP
    out["numpy_scan"] = _timed(lambda v: np.argpartition(-(matrix @ v), 10)[:10], scan, rounds=1)
    recall = {}
    for name, queries in (
        ("real", np.asarray(vectors(model)[1])),
        ("generated", generated_queries(model)),
    ):
        hits = []
        picked = queries[::4][:240]  # SciFact and RGB questions alike
        for v, exact in zip(picked, _exact_top10(matrix, picked), strict=True):
            found = {int(r.id[1:]) for r in store.search(v, top_k=10, scope=RAG)}
            hits.append(len(found & exact) / 10)
        recall[name] = round(float(np.mean(hits)), 4)
    out["dense_recall@10"] = recall
    # The old dense path (sign-bit shortlist of 2,000, exact re-scoring) on the same rows.
    real_q = np.asarray(vectors(model)[1])[::4][:240]
    out["bits_2000_recall@10_real"] = _bits_recall(matrix, real_q, _exact_top10(matrix, real_q))
    out["peak_rss_mb"] = round(peak_rss_mb())
    out["load_after_ours"] = [round(x, 2) for x in os.getloadavg()]
    retriever.close()
    if peers:
        out["lancedb"] = lancedb(model, n, matrix, pairs)
        out["bm25s"] = bm25s_keyword(n)
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def lancedb(model: str, n: int, matrix: np.ndarray, pairs: list[Any]) -> dict[str, Any]:
    import lancedb as ldb
    import pyarrow as pa
    from lancedb.rerankers import RRFReranker

    from benchmarks.common import OUT

    scratch = Path(tempfile.mkdtemp(prefix="lance-", dir=OUT))
    try:
        db = ldb.connect(str(scratch))
        t = time.perf_counter()
        table = pa.table(
            {
                "id": [f"c{i}" for i in range(n)],
                "text": library_texts(n),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), 384),
            }
        )
        tbl = db.create_table("chunks", table, mode="overwrite")
        tbl.create_fts_index("text", replace=True)
        ingest = time.perf_counter() - t
        sample = pairs[:: 12 if n > 200_000 else 2]  # 20 or 120 of the 240

        def hybrid(pair: tuple[str, np.ndarray]) -> None:
            (
                tbl.search(query_type="hybrid")
                .vector(pair[1].tolist())
                .text(pair[0])
                .rerank(RRFReranker(K=60))
                .limit(5)
                .to_list()
            )

        hybrid(sample[0])
        kw = keyword_queries()[8][:40]
        return {
            "ingest_seconds": round(ingest, 1),
            "hybrid": _timed(hybrid, sample, rounds=1),
            "fts_8w": _timed(lambda q: tbl.search(q, query_type="fts").limit(20).to_list(), kw),
            "queries": len(sample),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def bm25s_keyword(n: int) -> dict[str, Any]:
    import bm25s

    t = time.perf_counter()
    tokens = bm25s.tokenize(library_texts(n), stopwords="en", show_progress=False)
    model = bm25s.BM25()
    model.index(tokens, show_progress=False)
    index = time.perf_counter() - t

    def search(q: str) -> None:
        qt = bm25s.tokenize([q], stopwords="en", show_progress=False)
        if qt.vocab:
            model.retrieve(qt, k=20, show_progress=False, n_threads=1)

    return {"index_seconds": round(index, 1), "8w": _timed(search, keyword_queries()[8], rounds=1)}


def _evict(path: Path) -> None:
    """Drop the library's files (the library and its graph) from the page cache."""
    keywords = [f for d in path.parent.glob(path.name + ".keywords-*") for f in d.iterdir()]
    for name in [path, *path.parent.glob(path.name + ".graph-*"), Path(f"{path}-wal"), *keywords]:
        if name.exists():
            fd = os.open(name, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def cold(model: str, n: int, *, evict: bool) -> dict[str, Any]:
    """Open the library and answer one hybrid query, timed (a fresh process)."""
    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

    path = library_path(model, n)
    if evict:
        _evict(path)
    texts, qv = _query_set(model)
    load = os.getloadavg()
    t = time.perf_counter()
    retriever = build_sqlite_hybrid(
        StaticEmbedder(f"scale-{model}", {texts[5]: qv[5]}),
        path,
        metadata_columns=("doc_id", "format"),
    )
    opened = time.perf_counter() - t
    cache = retriever.keyword_index.cache
    keywords_at_open = cache.status if cache else "none"
    results = retriever.search(texts[5], scope=RAG)
    first = time.perf_counter() - t
    dense = [r for r in results if "vector_similarity" in r.metadata]
    graph = retriever.vector_store.graph
    status = graph.status if graph else "none"
    served = retriever.keyword_index.served_by
    t2 = time.perf_counter()
    _graph_ready(retriever)
    loaded = time.perf_counter() - t2
    retriever.close()
    return {
        "evicted": evict,
        "open_s": round(opened, 3),
        "first_search_s": round(first, 3),
        "graph_status_at_first_search": status,
        "keyword_index_at_open": keywords_at_open,
        "keywords_served_by": served,
        "results": len(results),
        "results_with_a_dense_score": len(dense),
        "notice": retriever.vector_store.notice,
        "full_graph_load_after_s": round(loaded, 2),
        "load": [round(x, 2) for x in load],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", choices=("latency", "cold"))
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--evict", action="store_true")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    if args.what == "latency":
        result = latency(args.model, args.size, peers=not args.no_peers)
    else:
        result = cold(args.model, args.size, evict=args.evict)
    log(f"{args.what} {args.size}: done")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
