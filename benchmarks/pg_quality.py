"""The team library (PostgreSQL + pgvector) beside the library file (SQLite), one run.

1. Quality: SciFact train, both backends built through ``IngestionPipeline`` with the
   same embedder (all-MiniLM-L6-v2 int8, vectors from the shared embed cache), the same
   chunking and the heading contextualizer (the app's default). Every judged query runs
   through ``HybridRetriever.search`` (top 20 chunks, best chunk per document) and
   through each leg alone; nDCG@10 and Recall@100 (``benchmarks/metrics.py``).
2. Speed at each scale (default 100k chunks): the synthetic chunks and MiniLM-like
   vectors of ``search_speed`` (SciFact text with 15% of words resampled; real SciFact
   vectors plus noise), written through ``retriever.add`` in batches of 1,000 (indexing
   rate, embedding excluded), then the SciFact queries (vectors precomputed) through
   ``HybridRetriever.search`` top 5: p50 / p95 over two rounds; size on disk (the file;
   the database's tables and indexes).

The PostgreSQL server is the ``pgserver`` package's (PostgreSQL 16, pgvector 0.6,
default settings) in a temporary folder, unless ``--dsn`` names another.

    .venv/bin/python -m benchmarks.pg_quality [--scales 100000] [--no-quality] [--dsn URL]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.rag.chunking.split import ChunkingConfig
from agentmaker.rag.ingest.pipeline import IngestionPipeline
from agentmaker.rag.source_store import SourceStore
from agentmaker.retrieval.hybrid import HybridRetriever
from agentmaker.retrieval.postgres import build_postgres_hybrid
from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid
from agentmaker.retrieval.types import RetrievalResult, Scope

from benchmarks.beir_quality import VARIANTS, indexed_texts, load_beir
from benchmarks.common import OUT, cached_local_embedder, log, median, percentile
from benchmarks.metrics import evaluate
from benchmarks.search_speed import (
    StaticEmbedder,
    base_vectors,
    synth_texts,
    synth_vectors,
)

RAG = Scope(base="rag")


@contextlib.contextmanager
def server(dsn: str | None) -> Iterator[Any]:
    """A function that makes a fresh database and returns its URL."""
    if dsn:
        import psycopg

        def fresh(name: str) -> str:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name}")  # type: ignore[arg-type]
                conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
            return dsn.rsplit("/", 1)[0] + "/" + name

        yield fresh
        return
    import pgserver
    import psycopg

    with tempfile.TemporaryDirectory(prefix="agentmaker-bench-pg-") as root:
        srv = pgserver.get_server(Path(root), cleanup_mode="stop")
        try:

            def fresh(name: str) -> str:
                with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
                    conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
                return str(srv.get_uri(name))

            yield fresh
        finally:
            srv.cleanup()


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --- 1. quality -------------------------------------------------------------------------


def _runs(retriever: HybridRetriever, doc_of: dict[str, str], queries: dict[str, str]) -> dict:
    embedder = retriever.embedder
    vectors = dict(zip(queries, embedder.embed_queries(list(queries.values())), strict=True))
    hybrid, dense, keyword = {}, {}, {}
    started = time.perf_counter()
    for qid, text in queries.items():
        hits = retriever.search(text, top_k=20, scope=RAG)
        hybrid[qid] = list(dict.fromkeys(doc_of[h.id] for h in hits))
    seconds = time.perf_counter() - started
    for qid, text in queries.items():
        d = retriever.vector_store.search(vectors[qid], top_k=100, scope=RAG)
        k = retriever.keyword_index.search(text, top_k=100, scope=RAG)
        dense[qid] = list(dict.fromkeys(doc_of[h.id] for h in d))
        keyword[qid] = list(dict.fromkeys(doc_of[h.id] for h in k))
    return {"hybrid": hybrid, "dense": dense, "keyword": keyword, "search_s": seconds}


def quality(fresh: Any) -> dict[str, Any]:
    beir = load_beir()
    chunking = ChunkingConfig()
    queries = {q: beir.queries[q] for q in beir.query_ids}
    out: dict[str, Any] = {"queries": len(queries), "docs": len(beir.docs)}
    with cached_local_embedder() as embedder, tempfile.TemporaryDirectory() as tmp:
        embedder.precompute(indexed_texts(beir, VARIANTS["heading"](), chunking), label="scifact")
        embedder.precompute(list(queries.values()), label="scifact queries")
        targets = {"sqlite": Path(tmp) / "scifact.sqlite", "postgresql": fresh("scifact")}
        for backend, target in targets.items():
            if backend == "sqlite":
                retriever: Any = build_sqlite_hybrid(
                    embedder, target, metadata_columns=("doc_id", "format")
                )
            else:
                retriever = build_postgres_hybrid(
                    str(target), embedder, metadata_columns=("doc_id", "format")
                )
            store = SourceStore(retriever.db)
            pipeline = IngestionPipeline(retriever, store, VARIANTS["heading"](), chunking=chunking)
            log(f"{backend}: ingesting {len(beir.docs)} SciFact documents (load {_load()})")
            started = time.perf_counter()
            for row in beir.docs:
                pipeline.ingest_text(row["text"], title=row["title"], doc_id=row["id"], fmt="txt")
            ingest_s = time.perf_counter() - started
            doc_of = {c: d for c, d in store.db.query("SELECT chunk_id, doc_id FROM chunks")}
            runs = _runs(retriever, doc_of, queries)
            out[backend] = {
                "ingest_s": round(ingest_s, 1),
                "docs_per_s": round(len(beir.docs) / ingest_s, 1),
                "chunks": len(doc_of),
                "ms_per_search": round(1000 * runs.pop("search_s") / len(queries), 1),
                "load": _load(),
                **{
                    leg: {k: round(v, 4) for k, v in evaluate(run, beir.qrels).items()}
                    for leg, run in runs.items()
                },
            }
            log(f"{backend}: {json.dumps(out[backend])}")
            retriever.close()
    out["ndcg_difference"] = round(
        out["postgresql"]["hybrid"]["ndcg"] - out["sqlite"]["hybrid"]["ndcg"], 4
    )
    return out


# --- 2. speed -----------------------------------------------------------------------------


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def _pg_size(retriever: Any) -> int:
    rows = retriever.db.query_pg(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
    )
    return int(rows[0][0])


def speed(n: int, fresh: Any, query_texts: Sequence[str], query_vecs: np.ndarray) -> dict:
    base, _, _ = base_vectors()
    log(f"generating {n} chunks")
    texts = synth_texts(n, 7)
    vectors = synth_vectors(n, "minilm", 7, base)
    embedder = StaticEmbedder("synthetic-minilm", dict(zip(query_texts, query_vecs, strict=True)))
    out: dict[str, Any] = {"n": n}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"speed{n}.sqlite"
        for backend in ("sqlite", "postgresql"):
            if backend == "sqlite":
                retriever: Any = build_sqlite_hybrid(
                    embedder, path, metadata_columns=("doc_id", "format")
                )
            else:
                retriever = build_postgres_hybrid(
                    fresh(f"speed{n}"), embedder, metadata_columns=("doc_id", "format")
                )
            log(f"{backend}: adding {n} chunks (load {_load()})")
            started = time.perf_counter()
            for start in range(0, n, 1000):
                retriever.add(
                    [
                        RetrievalResult(
                            content=texts[i],
                            id=f"c{i}",
                            source="synthetic",
                            embedding=vectors[i],
                            metadata={"doc_id": f"d{i // 10}", "format": "txt", "index": i},
                        )
                        for i in range(start, min(start + 1000, n))
                    ],
                    scope=RAG,
                )
            add_s = time.perf_counter() - started
            out[backend] = {
                "add_s": round(add_s, 1),
                "chunks_per_s": round(n / add_s),
                "load_build": _load(),
                **_searches(retriever, query_texts, path if backend == "sqlite" else None),
            }
            log(f"{backend} @ {n}: {json.dumps(out[backend])}")
            retriever.close()
    return out


def _searches(retriever: Any, query_texts: Sequence[str], path: Path | None) -> dict:
    """p50 / p95 of ``HybridRetriever.search`` top 5 (two rounds) and the size on disk.

    On PostgreSQL, ``VACUUM ANALYZE`` first: what autovacuum does on a live server after
    a bulk load (planner statistics, and the visibility map that lets the postings be
    read from their index alone).
    """
    if path is None:
        retriever.db.execute_pg("VACUUM ANALYZE")
    queries = list(query_texts)
    for text in queries[:20]:  # warm caches and the in-memory bit index
        retriever.search(text, top_k=5, scope=RAG)
    rounds = []
    for _ in range(2):
        times = []
        for text in queries:
            t0 = time.perf_counter()
            retriever.search(text, top_k=5, scope=RAG)
            times.append((time.perf_counter() - t0) * 1000)
        rounds.append(times)
    if path is not None:
        retriever.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = _size(path)
    else:
        size = _pg_size(retriever)
    return {
        "p50_ms": round(median([median(r) for r in rounds]), 1),
        "p95_ms": round(median([percentile(r, 95) for r in rounds]), 1),
        "size_mb": round(size / 1e6, 1),
        "load_search": _load(),
    }


def measure_built(sqlite_path: Path, pg_url: str, texts: Sequence[str], vecs: np.ndarray) -> dict:
    """Search timings on libraries an earlier run built (both, one after the other)."""
    embedder = StaticEmbedder("synthetic-minilm", dict(zip(texts, vecs, strict=True)))
    out: dict[str, Any] = {}
    for backend in ("sqlite", "postgresql"):
        if backend == "sqlite":
            retriever: Any = build_sqlite_hybrid(
                embedder, sqlite_path, metadata_columns=("doc_id", "format")
            )
        else:
            retriever = build_postgres_hybrid(
                pg_url, embedder, metadata_columns=("doc_id", "format")
            )
        out[backend] = {
            "n": retriever.count(scope=RAG),
            **_searches(retriever, texts, sqlite_path if backend == "sqlite" else None),
        }
        log(f"{backend}: {json.dumps(out[backend])}")
        retriever.close()
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[100_000])
    parser.add_argument("--no-quality", action="store_true")
    parser.add_argument("--queries", type=int, default=300, help="queries timed per scale")
    parser.add_argument("--dsn", default=None, help="a server to use instead of pgserver's")
    parser.add_argument(
        "--measure",
        nargs=2,
        metavar=("SQLITE_FILE", "PG_URL"),
        help="only time searches on two libraries an earlier run built",
    )
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"started": time.strftime("%F %H:%M"), "load": _load()}
    if args.measure:
        _, query_texts, query_vecs = base_vectors()
        texts = list(dict.fromkeys(query_texts))[: args.queries]
        vecs = np.stack([query_vecs[query_texts.index(t)] for t in texts])
        result["measured"] = measure_built(Path(args.measure[0]), args.measure[1], texts, vecs)
        (OUT / "pg_quality_measured.json").write_text(json.dumps(result, indent=2))
        print(json.dumps(result, indent=2))
        return
    with server(args.dsn) as fresh:
        if not args.no_quality:
            result["quality"] = quality(fresh)
        if args.scales:
            _, query_texts, query_vecs = base_vectors()
            texts = list(dict.fromkeys(query_texts))[: args.queries]
            vecs = np.stack([query_vecs[query_texts.index(t)] for t in texts])
            result["speed"] = [speed(n, fresh, texts, vecs) for n in args.scales]
    OUT.mkdir(exist_ok=True)
    (OUT / "pg_quality.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
