"""Peers measured in the same run (optional extra ``bench``): LanceDB and bm25s.

- LanceDB (the store AnythingLLM uses), hybrid = its native full-text index + flat
  vector search, fused by its ``RRFReranker`` (k=60):
  nDCG@10 / Recall@100 on SciFact with exactly the MiniLM vectors and indexed texts
  of our ``heading`` library; ingest time (table + FTS index) and hybrid search
  latency at 100k chunks on the same synthetic data as ``search_speed``.
- bm25s (with PyStemmer's English stemmer and English stop words when available) on
  the same SciFact texts: nDCG@10, Recall@100 and single-query latency, beside our
  FTS5 keyword leg on the same queries.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import OUT, log, median, percentile
from benchmarks.metrics import evaluate

DIM = 384


def _library_rows(path: Path) -> tuple[list[str], list[str], list[str], np.ndarray]:
    """(chunk ids, doc ids, indexed texts, vectors) straight from a library file."""
    import sqlean

    conn = sqlean.connect(str(path))
    rows = conn.execute(
        "SELECT i.id, i.m_doc_id, i.content, v.embedding FROM items i "
        "JOIN vec_vectors v ON v.rowid = i.rowid ORDER BY i.rowid"
    ).fetchall()
    conn.close()
    vectors = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32).reshape(len(rows), DIM)
    return [r[0] for r in rows], [str(r[1]) for r in rows], [r[2] for r in rows], vectors


def _lance_table(
    directory: Path, ids: list[str], docs: list[str], texts: list[str], vectors: np.ndarray
) -> tuple[Any, float, float]:
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(directory))
    table = pa.table(
        {
            "id": ids,
            "doc_id": docs,
            "text": texts,
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), DIM),
        }
    )
    started = time.perf_counter()
    tbl = db.create_table("chunks", table, mode="overwrite")
    add_seconds = time.perf_counter() - started
    started = time.perf_counter()
    tbl.create_fts_index("text", replace=True)
    fts_seconds = time.perf_counter() - started
    return tbl, add_seconds, fts_seconds


def _lance_hybrid(tbl: Any, text: str, vector: np.ndarray, limit: int) -> list[dict[str, Any]]:
    from lancedb.rerankers import RRFReranker

    return (
        tbl.search(query_type="hybrid")
        .vector(vector.tolist())
        .text(text)
        .rerank(RRFReranker(K=60))
        .limit(limit)
        .to_list()
    )


def lancedb_scifact(
    library_path: Path,
    queries: dict[str, str],
    vectors: dict[str, np.ndarray],
    qrels: dict[str, dict[str, int]],
) -> dict[str, Any]:
    ids, docs, texts, matrix = _library_rows(library_path)
    scratch = Path(tempfile.mkdtemp(prefix="lance-", dir=OUT))
    try:
        tbl, add_s, fts_s = _lance_table(scratch, ids, docs, texts, matrix)
        runs: dict[str, dict[str, list[str]]] = {"hybrid": {}, "fts": {}, "vector": {}}
        deep: dict[str, list[str]] = {}
        times = []
        for q, text in queries.items():
            started = time.perf_counter()
            hits = _lance_hybrid(tbl, text, vectors[q], 10)
            times.append((time.perf_counter() - started) * 1000)
            runs["hybrid"][q] = list(dict.fromkeys(h["doc_id"] for h in hits))
            hits = _lance_hybrid(tbl, text, vectors[q], 100)
            deep[q] = list(dict.fromkeys(h["doc_id"] for h in hits))
            fts = tbl.search(text, query_type="fts").limit(10).to_list()
            runs["fts"][q] = list(dict.fromkeys(h["doc_id"] for h in fts))
            vec = tbl.search(vectors[q].tolist(), query_type="vector").limit(10).to_list()
            runs["vector"][q] = list(dict.fromkeys(h["doc_id"] for h in vec))
        return {
            "hybrid_ndcg": evaluate(runs["hybrid"], qrels, queries=list(queries))["ndcg"],
            "hybrid_recall": evaluate(deep, qrels, queries=list(queries))["recall"],
            "fts_ndcg": evaluate(runs["fts"], qrels, queries=list(queries))["ndcg"],
            "vector_ndcg": evaluate(runs["vector"], qrels, queries=list(queries))["ndcg"],
            "hybrid_p50_ms": percentile(times, 50),
            "add_seconds": add_s,
            "fts_index_seconds": fts_s,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def lancedb_speed(
    speed_db: Path, query_texts: list[str], query_vectors: np.ndarray, rounds: int = 3
) -> dict[str, Any]:
    ids, docs, texts, matrix = _library_rows(speed_db)
    scratch = Path(tempfile.mkdtemp(prefix="lance-", dir=OUT))
    try:
        tbl, add_s, fts_s = _lance_table(scratch, ids, docs, texts, matrix)
        for text, vector in list(zip(query_texts, query_vectors, strict=True))[:5]:
            _lance_hybrid(tbl, text, vector, 5)
        p50s, p95s = [], []
        for _ in range(rounds):
            times = []
            for text, vector in zip(query_texts, query_vectors, strict=True):
                started = time.perf_counter()
                _lance_hybrid(tbl, text, vector, 5)
                times.append((time.perf_counter() - started) * 1000)
            p50s.append(percentile(times, 50))
            p95s.append(percentile(times, 95))
        size = sum(p.stat().st_size for p in scratch.rglob("*") if p.is_file())
        return {
            "n": len(ids),
            "add_seconds": add_s,
            "fts_index_seconds": fts_s,
            "ingest_seconds": add_s + fts_s,
            "hybrid_p50_ms": median(p50s),
            "hybrid_p95_ms": median(p95s),
            "bytes": size,
            "queries": len(query_texts),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def bm25s_scifact(
    library_path: Path, queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> dict[str, Any]:
    import bm25s

    try:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    except ImportError:  # pragma: no cover
        stemmer = None
    _, docs, texts, _ = _library_rows(library_path)
    started = time.perf_counter()
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    model = bm25s.BM25()
    model.index(tokens, show_progress=False)
    index_seconds = time.perf_counter() - started
    run_n, run_r, times = {}, {}, []
    for q, text in queries.items():
        started = time.perf_counter()
        qt = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False)
        if not qt.vocab:
            run_n[q] = run_r[q] = []
            continue
        results, _ = model.retrieve(qt, k=100, show_progress=False, n_threads=1)
        times.append((time.perf_counter() - started) * 1000)
        ranked = list(dict.fromkeys(docs[i] for i in results[0]))
        run_n[q], run_r[q] = ranked, ranked
    return {
        "ndcg": evaluate(run_n, qrels, queries=list(queries))["ndcg"],
        "recall": evaluate(run_r, qrels, queries=list(queries))["recall"],
        "p50_ms": percentile(times, 50),
        "index_seconds": index_seconds,
        "stemmer": "PyStemmer english" if stemmer else "none",
    }


def fts5_latency(library_path: Path, queries: dict[str, str]) -> float:
    """Our keyword leg (top 100) on the same library and queries, p50 ms."""
    from agentmaker.retrieval.sqlite.db import SqliteDatabase
    from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
    from agentmaker.retrieval.sqlite.items import ItemTable
    from agentmaker.retrieval.types import Scope

    db = SqliteDatabase(library_path)
    index = Fts5KeywordIndex(db, items=ItemTable(db, metadata_columns=("doc_id", "format")))
    times = []
    for text in queries.values():
        started = time.perf_counter()
        index.search(text, top_k=100, scope=Scope(base="rag"))
        times.append((time.perf_counter() - started) * 1000)
    db.close()
    return percentile(times, 50)


def run(*, speed_db: Path | None, quick: bool = False) -> dict[str, Any]:
    from benchmarks.beir_quality import load_beir, open_library
    from benchmarks.common import cached_local_embedder

    out: dict[str, Any] = {}
    beir = load_beir()
    qids = beir.query_ids if not quick else beir.query_ids[::4]
    queries = {q: beir.queries[q] for q in qids}
    with cached_local_embedder() as embedder:
        lib = open_library(beir, "heading", embedder)
        path = lib.path
        lib.close()
        vectors = dict(zip(qids, embedder.embed_batch(list(queries.values())), strict=True))
    log("bm25s on SciFact")
    out["bm25s"] = bm25s_scifact(path, queries, beir.qrels)
    out["fts5_keyword_p50_ms"] = fts5_latency(path, queries)
    log("LanceDB on SciFact")
    out["lancedb_scifact"] = lancedb_scifact(path, queries, vectors, beir.qrels)
    out["scifact_queries"] = len(queries)
    if speed_db is not None and speed_db.exists():
        from benchmarks.search_speed import base_vectors

        log(f"LanceDB at {speed_db.name}")
        _, texts, qv = base_vectors()
        count = 50 if quick else 200
        out["lancedb_speed"] = lancedb_speed(speed_db, texts[:count], qv[:count])
    return out
