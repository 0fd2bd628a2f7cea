"""Search latency, recall and size at 10k / 100k / 300k chunks.

Each scale is a library file built through the public API (``SqliteHybridRetriever.add``
with precomputed vectors, metadata columns ``doc_id`` and ``format`` as in the app),
cached in ``benchmarks/out/`` and measured in a fresh subprocess so that its peak RSS
is the search process's own.

- Text: SciFact abstracts cycled, each copy with 15% of its words replaced by words
  drawn by corpus frequency, so the SciFact claims used as queries hit posting lists
  with real document frequencies at every scale (i.i.d. random words would put most
  content words in most chunks and overstate keyword-search cost).
- Vectors, two kinds:
  ``minilm`` - real all-MiniLM-L6-v2 SciFact vectors replicated with noise
  (``normalise(v + g)``, ``|g|`` about 0.6, cosine to the original about 0.86), queried
  with the real SciFact query vectors: MiniLM's anisotropy, with many near-duplicates;
  ``gaussian`` - isotropic random vectors and random queries: the pessimistic case
  for sign-bit codes (every point is nearly equidistant).
- Per query: the dense leg, the keyword leg and the fusion are timed alone, then the
  whole ``HybridRetriever.search`` (query vector precomputed: embedding excluded and
  timed separately with the real embedder). Rounds over all queries; p50/p95 are the
  medians over rounds.
- Beside it: a numpy float32 brute-force scan (matrix-vector product + argpartition)
  over the same normalised vectors, and the dense leg's recall@10 against the exact
  top 10 (numpy, checked against ``SqliteVecStore.search(exact=True)``).

    .venv/bin/python -m benchmarks.search_speed --scales 10000 100000 300000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.retrieval.ports import Embedder, ModelFingerprint
from agentmaker.retrieval.sqlite.hybrid import SqliteHybridRetriever, build_sqlite_hybrid
from agentmaker.retrieval.types import RetrievalResult, Scope

from benchmarks.common import (
    OUT,
    SCIFACT,
    code_hash,
    log,
    median,
    peak_rss_mb,
    percentile,
    rss_mb,
    schema_signature,
    short_hash,
)

RAG = Scope(base="rag")
DIM = 384
GENERATOR_VERSION = "v3"
NOISE_NORM = 0.6
CHUNKS_PER_DOC = 10
SHORTLIST_GRID = ((20, 200), (30, 300), (40, 400), (50, 500), (50, 1000), (100, 1000), (100, 2000))
_WORD = re.compile(r"[a-z]+")


# --- data generation -----------------------------------------------------------------


def _scifact_rows() -> list[dict[str, Any]]:
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def word_distribution() -> tuple[np.ndarray, np.ndarray]:
    """SciFact's words and their probabilities."""
    counts: Counter[str] = Counter()
    for row in _scifact_rows():
        counts.update(_WORD.findall(f"{row['title']} {row['text']}".lower()))
    words = np.array(list(counts))
    freq = np.array([counts[w] for w in words], dtype=np.float64)
    return words, freq / freq.sum()


def synth_texts(n: int, seed: int) -> list[str]:
    """SciFact abstracts (title + text), cycled, each copy with 15% of its words replaced
    by words drawn by corpus frequency: real term burstiness and document frequencies
    (as fractions of the corpus) at any scale, and no two copies alike."""
    words, prob = word_distribution()
    cdf = np.cumsum(prob)
    rows = [np.array(f"{r['title']} {r['text']}".split(), dtype=object) for r in _scifact_rows()]
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        tokens = rows[i % len(rows)].copy()
        swap = rng.random(len(tokens)) < 0.15
        count = int(swap.sum())
        if count:
            picks = np.searchsorted(cdf, rng.random(count) * cdf[-1])
            tokens[swap] = words[np.minimum(picks, len(words) - 1)]
        out.append(" ".join(tokens))
    return out


def base_vectors() -> tuple[np.ndarray, list[str], np.ndarray]:
    """Real MiniLM vectors of SciFact (chunks) and of its queries, from the embed cache.

    Returns (chunk vectors, query texts, query vectors). Built on first use (which embeds
    the corpus if the quality benchmark has not yet).
    """
    from agentmaker.rag.chunking.split import ChunkingConfig

    from benchmarks.beir_quality import VARIANTS, indexed_texts, load_beir
    from benchmarks.common import cached_local_embedder

    beir = load_beir()
    texts = indexed_texts(beir, VARIANTS["heading"](), ChunkingConfig())
    query_texts = [beir.queries[q] for q in beir.query_ids]
    with cached_local_embedder() as embedder:
        embedder.precompute(texts, label="scifact chunks")
        chunks = embedder.embed_batch(texts)
        queries = embedder.embed_batch(query_texts)
    return chunks, query_texts, queries


def _normalise(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def synth_vectors(n: int, kind: str, seed: int, base: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    if kind == "gaussian":
        return _normalise(rng.standard_normal((n, DIM), dtype=np.float32))
    picks = rng.integers(0, len(base), size=n)
    noise = rng.standard_normal((n, DIM), dtype=np.float32) * (NOISE_NORM / np.sqrt(DIM))
    return _normalise(base[picks] + noise)


class StaticEmbedder(Embedder):
    """Returns precomputed vectors for known texts (so search timing excludes embedding)."""

    def __init__(self, name: str, vectors: dict[str, np.ndarray] | None = None) -> None:
        self._fp = ModelFingerprint(name, DIM, GENERATOR_VERSION)
        self.vectors = vectors or {}

    @property
    def fingerprint(self) -> ModelFingerprint:
        return self._fp

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)


def db_path(n: int, kind: str) -> Path:
    key = short_hash(
        GENERATOR_VERSION,
        n,
        kind,
        NOISE_NORM,
        CHUNKS_PER_DOC,
        code_hash("retrieval/text_analysis.py"),
        schema_signature(),
    )
    return OUT / f"speed_{kind}_{n}_{key}.sqlite"


def build(n: int, kind: str, seed: int = 7) -> dict[str, Any]:
    """Build the library file for one scale (in this process)."""
    path = db_path(n, kind)
    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), path.with_suffix(".json")):
        stale.unlink(missing_ok=True)
    base, _, _ = base_vectors() if kind == "minilm" else (np.zeros((1, DIM)), None, None)
    log(f"generating {n} {kind} chunks")
    texts = synth_texts(n, seed)
    vectors = synth_vectors(n, kind, seed, base)
    retriever = build_sqlite_hybrid(
        StaticEmbedder(f"synthetic-{kind}"), path, metadata_columns=("doc_id", "format")
    )
    started = time.perf_counter()
    batch = 2000
    for start in range(0, n, batch):
        items = [
            RetrievalResult(
                content=texts[i],
                id=f"c{i}",
                source="synthetic",
                embedding=vectors[i],
                metadata={"doc_id": f"d{i // CHUNKS_PER_DOC}", "format": "txt", "index": i},
            )
            for i in range(start, min(start + batch, n))
        ]
        retriever.add(items, scope=RAG)
        if (start // batch) % 10 == 0:
            log(f"  added {min(start + batch, n)}/{n}")
    seconds = time.perf_counter() - started
    retriever.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    retriever.close()
    info = {"n": n, "kind": kind, "build_seconds": seconds, "built": time.strftime("%F %H:%M")}
    path.with_suffix(".json").write_text(json.dumps(info))
    return info


# --- measuring ------------------------------------------------------------------------


def _load_matrix(retriever: SqliteHybridRetriever) -> tuple[np.ndarray, np.ndarray]:
    """Every stored (normalised) vector and its item id, as the store holds them."""
    store = retriever.vector_store
    rows = retriever.db.query(f"SELECT v.rowid, v.embedding FROM {store.table} v ORDER BY v.rowid")
    rowids = np.array([r[0] for r in rows])
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), DIM)
    return rowids, matrix


def _ids_for(retriever: SqliteHybridRetriever, rowids: Sequence[int]) -> list[str]:
    found = retriever.items.fetch([int(r) for r in rowids])
    return [found[int(r)].id for r in rowids]


def _rounds(times: list[list[float]]) -> dict[str, float]:
    return {
        "p50": median([percentile(t, 50) for t in times]),
        "p95": median([percentile(t, 95) for t in times]),
        "mean": median([float(np.mean(t)) for t in times]),
    }


def measure(
    n: int,
    kind: str,
    *,
    queries: int,
    rounds: int,
    pool: int | None = None,
    top_k: int | None = None,
    shortlist_grid: bool = False,
) -> dict[str, Any]:
    """Measure one scale (call in a fresh process for a meaningful peak RSS)."""
    path = db_path(n, kind)
    info = json.loads(path.with_suffix(".json").read_text())
    if kind == "minilm":
        _, query_texts, query_vectors = base_vectors()
    else:
        rng = np.random.default_rng(99)
        query_texts = [t for t in _scifact_queries()]
        query_vectors = _normalise(rng.standard_normal((len(query_texts), DIM), dtype=np.float32))
    query_texts, query_vectors = query_texts[:queries], query_vectors[:queries]
    embedder = StaticEmbedder(
        f"synthetic-{kind}", dict(zip(query_texts, query_vectors, strict=True))
    )
    rss_before = rss_mb()
    opened = time.perf_counter()
    retriever = build_sqlite_hybrid(embedder, path, metadata_columns=("doc_id", "format"))
    config = retriever.config
    pool = pool or config.candidate_pool
    top_k = top_k or config.top_k
    first_ms = (time.perf_counter() - opened) * 1000
    started = time.perf_counter()
    retriever.search(query_texts[0], scope=RAG, top_k=top_k, candidate_pool=pool)
    cold_ms = (time.perf_counter() - started) * 1000
    for q in query_texts[:5]:  # warm-up
        retriever.search(q, scope=RAG, top_k=top_k, candidate_pool=pool)

    dense_t, keyword_t, fuse_t, total_t = [], [], [], []
    store, index = retriever.vector_store, retriever.keyword_index
    for _ in range(rounds):
        d_r, k_r, f_r, t_r = [], [], [], []
        for text, vector in zip(query_texts, query_vectors, strict=True):
            t0 = time.perf_counter()
            dense = store.search(vector, top_k=pool, scope=RAG)
            t1 = time.perf_counter()
            keyword = index.search(text, top_k=pool, scope=RAG)
            t2 = time.perf_counter()
            retriever.fusion.fuse([dense, keyword], top_k=pool)
            t3 = time.perf_counter()
            retriever.search(text, scope=RAG, top_k=top_k, candidate_pool=pool)
            t4 = time.perf_counter()
            d_r.append((t1 - t0) * 1000)
            k_r.append((t2 - t1) * 1000)
            f_r.append((t3 - t2) * 1000)
            t_r.append((t4 - t3) * 1000)
        dense_t.append(d_r)
        keyword_t.append(k_r)
        fuse_t.append(f_r)
        total_t.append(t_r)
    peak_search = peak_rss_mb()
    rss_search = rss_mb()

    # Where the keyword leg's time goes: rows matching any OR'd term, and the same MATCH
    # counted without bm25() and ordering.
    from agentmaker.retrieval.text_analysis import match_expression

    table = index.table
    matched, count_t, ranked_t = [], [], []
    for text in query_texts:
        expression = match_expression(text)
        t0 = time.perf_counter()
        rows = retriever.db.query(
            f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", [expression]
        )
        t1 = time.perf_counter()
        retriever.db.query(
            f"SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ? "
            "ORDER BY s LIMIT ?",
            [expression, pool],
        )
        t2 = time.perf_counter()
        matched.append(rows[0][0] / n)
        count_t.append((t1 - t0) * 1000)
        ranked_t.append((t2 - t1) * 1000)
    keyword_profile = {
        "matched_share_p50": percentile(matched, 50),
        "count_only_p50_ms": percentile(count_t, 50),
        "bm25_top_pool_p50_ms": percentile(ranked_t, 50),
    }

    # The speed option the quality study prices: drop terms in > 10% of the chunks.
    from benchmarks.beir_quality import DfPruner

    pruner = DfPruner(retriever.db)
    first_prune, pruned = [], []
    for text in query_texts:
        t0 = time.perf_counter()
        pruned.append(pruner.prune(text, 0.1)[0])
        first_prune.append((time.perf_counter() - t0) * 1000)
    cached_prune, pruned_t = [], []
    for text, expression in zip(query_texts, pruned, strict=True):
        t0 = time.perf_counter()
        pruner.prune(text, 0.1)
        t1 = time.perf_counter()
        index.search(expression, top_k=pool, scope=RAG)
        t2 = time.perf_counter()
        cached_prune.append((t1 - t0) * 1000)
        pruned_t.append((t2 - t1) * 1000)

    # numpy reference, exact top 10 and recall.
    rowids, matrix = _load_matrix(retriever)
    numpy_t = []
    for _ in range(rounds):
        r = []
        for vector in query_vectors:
            t0 = time.perf_counter()
            scores = matrix @ vector
            best = np.argpartition(-scores, pool)[:pool]
            best[np.argsort(-scores[best])]
            r.append((time.perf_counter() - t0) * 1000)
        numpy_t.append(r)
    exact_top = [rowids[np.argsort(-(matrix @ v), kind="stable")[:10]] for v in query_vectors]
    # The numpy truth agrees with sqlite-vec's exact scan (checked on a few queries).
    agree = []
    for vector, truth in list(zip(query_vectors, exact_top, strict=True))[:3]:
        ref = store.search(vector, top_k=10, scope=RAG, exact=True)
        agree.append(len({r.id for r in ref} & set(_ids_for(retriever, truth))) / 10.0)
    truth_ids = [set(_ids_for(retriever, t)) for t in exact_top]

    def recall(k_request: int) -> float:
        values = []
        for vector, truth in zip(query_vectors, truth_ids, strict=True):
            got = [r.id for r in store.search(vector, top_k=k_request, scope=RAG)][:10]
            values.append(len(truth & set(got)) / 10.0)
        return float(np.mean(values))

    result: dict[str, Any] = {
        "n": n,
        "kind": kind,
        "queries": len(query_texts),
        "rounds": rounds,
        "pool": pool,
        "top_k": top_k,
        "shortlist_factor": store.shortlist_factor,
        "min_shortlist": store.min_shortlist,
        "build_seconds": info["build_seconds"],
        "built": info["built"],
        "open_ms": first_ms,
        "cold_first_search_ms": cold_ms,
        "dense": _rounds(dense_t),
        "keyword": _rounds(keyword_t),
        "fusion": _rounds(fuse_t),
        "total": _rounds(total_t),
        "numpy": _rounds(numpy_t),
        "keyword_pruned_10pct": {
            "p50": percentile(pruned_t, 50),
            "p95": percentile(pruned_t, 95),
            "prune_first_p50": percentile(first_prune, 50),
            "prune_cached_p50": percentile(cached_prune, 50),
        },
        "keyword_profile": keyword_profile,
        "recall_at_10": recall(10),
        "recall_at_10_in_pool": recall(pool),
        "exact_reference_agreement": float(np.mean(agree)),
        "rss_before_open_mb": rss_before,
        "rss_after_search_mb": rss_search,
        "peak_rss_search_mb": peak_search,
        "file_bytes": sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()),
    }
    result["file_bytes_per_chunk"] = result["file_bytes"] / n
    result["dense_over_numpy"] = result["dense"]["p50"] / result["numpy"]["p50"]
    if shortlist_grid:
        grid = []
        for factor, minimum in SHORTLIST_GRID:
            store.shortlist_factor, store.min_shortlist = factor, minimum
            times = []
            for vector in query_vectors:
                t0 = time.perf_counter()
                store.search(vector, top_k=pool, scope=RAG)
                times.append((time.perf_counter() - t0) * 1000)
            grid.append(
                {
                    "shortlist_factor": factor,
                    "min_shortlist": minimum,
                    "keyword_pruned_10pct": {
                        "p50": percentile(pruned_t, 50),
                        "p95": percentile(pruned_t, 95),
                        "prune_first_p50": percentile(first_prune, 50),
                        "prune_cached_p50": percentile(cached_prune, 50),
                    },
                    "recall_at_10": recall(10),
                    "recall_at_10_in_pool": recall(pool),
                    "dense_p50_ms": percentile(times, 50),
                }
            )
        result["shortlist_grid"] = grid
    retriever.close()
    return result


def real_vectors_recall() -> dict[str, Any]:
    """Recall@10 of the dense leg with real MiniLM vectors: the SciFact library
    (title + abstract chunks) and its 809 queries, at each shortlist setting."""
    from agentmaker.retrieval.sqlite.db import SqliteDatabase
    from agentmaker.retrieval.sqlite.items import ItemTable
    from agentmaker.retrieval.sqlite.vec_store import SqliteVecStore

    from benchmarks.beir_quality import load_beir, open_library
    from benchmarks.common import cached_local_embedder

    beir = load_beir()
    with cached_local_embedder() as embedder:
        lib = open_library(beir, "heading", embedder)
        path = lib.path
        lib.close()
        queries = embedder.embed_batch([beir.queries[q] for q in beir.query_ids])
    db = SqliteDatabase(path)
    try:
        store = SqliteVecStore(db, items=ItemTable(db, metadata_columns=("doc_id", "format")))
        rowids, matrix = _load_matrix_of(db, store.table)
        truth = [set(rowids[np.argsort(-(matrix @ v), kind="stable")[:10]]) for v in queries]
        ids = dict(db.query("SELECT id, rowid FROM items"))
        grid = []
        for factor, minimum in SHORTLIST_GRID:
            store.shortlist_factor, store.min_shortlist = factor, minimum
            values, pool_values = [], []
            for vector, exact in zip(queries, truth, strict=True):
                got = {ids[r.id] for r in store.search(vector, top_k=10, scope=RAG)}
                values.append(len(got & exact) / 10)
                got = [ids[r.id] for r in store.search(vector, top_k=20, scope=RAG)][:10]
                pool_values.append(len(set(got) & exact) / 10)
            grid.append(
                {
                    "shortlist_factor": factor,
                    "min_shortlist": minimum,
                    "recall_at_10": float(np.mean(values)),
                    "recall_at_10_in_pool": float(np.mean(pool_values)),
                }
            )
        return {"chunks": len(rowids), "queries": len(queries), "grid": grid}
    finally:
        db.close()


def _load_matrix_of(db: Any, table: str) -> tuple[np.ndarray, np.ndarray]:
    rows = db.query(f"SELECT rowid, embedding FROM {table} ORDER BY rowid")
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), DIM)
    return np.array([r[0] for r in rows]), matrix


def _scifact_queries() -> list[str]:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle]


def query_embedding_latency(count: int = 50, rounds: int = 3) -> dict[str, float]:
    """The real local embedder on single queries (the part search timing excludes)."""
    from benchmarks.common import local_embedder

    embedder = local_embedder()
    texts = _scifact_queries()[:count]
    embedder.embed(texts[0])  # load the session
    per_round = []
    for _ in range(rounds):
        times = []
        for text in texts:
            t0 = time.perf_counter()
            embedder.embed_batch([text])
            times.append((time.perf_counter() - t0) * 1000)
        per_round.append(times)
    embedder.close()
    return {**_rounds(per_round), "queries": count}


# --- driver ------------------------------------------------------------------------------


def _subprocess(args: list[str]) -> dict[str, Any]:
    target = OUT / f"speed_tmp_{os.getpid()}_{time.time_ns()}.json"
    cmd = [sys.executable, "-m", "benchmarks.search_speed", *args, "--json", str(target)]
    env = dict(os.environ)
    # One BLAS thread: on 2 busy cores a multi-threaded matrix-vector product spins and
    # measures the machine's load, not the scan (and the engine's rescoring is tiny).
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")]
    )
    subprocess.run(cmd, check=True, env=env)
    data = json.loads(target.read_text())
    target.unlink()
    return data


def run(
    scales: Sequence[int],
    kinds: Sequence[str] = ("minilm", "gaussian"),
    *,
    queries: int = 200,
    rounds: int = 3,
    grid_at: Sequence[int] = (100_000,),
) -> dict[str, Any]:
    results = []
    for kind in kinds:
        for n in scales:
            path = db_path(n, kind)
            cached = path.exists() and path.with_suffix(".json").exists()
            if not cached:
                log(f"building {kind} {n}")
                _subprocess(["--build", str(n), "--kind", kind])
            log(f"measuring {kind} {n}")
            args = ["--measure", str(n), "--kind", kind, "--queries", str(queries)]
            args += ["--rounds", str(rounds)]
            if kind == "minilm" and n in grid_at:
                args.append("--grid")
            result = _subprocess(args)
            result["db_from_cache"] = cached
            results.append(result)
            log(
                f"{kind} {n}: total p50 {result['total']['p50']:.1f} ms, dense "
                f"{result['dense']['p50']:.1f}, keyword {result['keyword']['p50']:.1f}, numpy "
                f"{result['numpy']['p50']:.1f}, recall@10 {result['recall_at_10']:.3f}"
            )
    embedding = query_embedding_latency()
    log("recall with real MiniLM vectors (SciFact)")
    real = real_vectors_recall()
    return {"scales": results, "query_embedding": embedding, "real_vectors": real}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[10_000, 100_000, 300_000])
    parser.add_argument("--kinds", nargs="*", default=["minilm", "gaussian"])
    parser.add_argument("--build", type=int)
    parser.add_argument("--measure", type=int)
    parser.add_argument("--kind", default="minilm")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.build:
        data: Any = build(args.build, args.kind)
    elif args.measure:
        data = measure(
            args.measure,
            args.kind,
            queries=args.queries,
            rounds=args.rounds,
            shortlist_grid=args.grid,
        )
    else:
        data = run(args.scales, args.kinds, queries=args.queries, rounds=args.rounds)
    text = json.dumps(data, indent=1)
    if args.json:
        args.json.write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
