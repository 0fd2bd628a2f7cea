"""One size of the PostgreSQL scale run: both backends' search timings in one process.

The SQLite library of that size (``scale_data.library_path``, the scale run's copy, or
built here for 10k) and the PostgreSQL database ``pg_scale`` built are opened side by
side; every timing alternates between them round by round, so both see the same load.
Questions and keyword queries are the scale run's (``scale_measure``): 240 real questions
with their real vectors, 80 keyword queries each of 1, 3 and 8 words; top 5 from a pool
of 20. The PostgreSQL dense leg's recall@10 against exact search (numpy over the same
vectors) is measured at several ``hnsw.ef_search`` values; SQLite's beside it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from benchmarks import pg_scale, scale_data
from benchmarks.common import HERE, log
from benchmarks.scale import _exact_top10
from benchmarks.scale_corpus import vectors
from benchmarks.scale_measure import (
    _graph_ready,
    _keywords_ready,
    _query_set,
    _stats,
    keyword_queries,
)

EF_VALUES = (40, 100, 200)
PLOT = HERE / "pg_scale.png"


def _alternating(fns: dict[str, Any], args: list[Any], rounds: int = 2) -> dict[str, Any]:
    """p50/p95/p99 of each backend's function, run round by round in turn."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            for a in args:
                t = time.perf_counter()
                fn(a)
                times[name].append((time.perf_counter() - t) * 1000)
    return {name: _stats(values) for name, values in times.items()}


def _small_sqlite(n: int) -> None:
    """A SQLite library below the graph's size, built as ``scale_data.build_library``
    does (which waits for a graph that a small library never gets)."""
    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

    path = scale_data.library_path(pg_scale.MODEL, n)
    texts = scale_data.library_texts(n)
    matrix = scale_data.library_vectors(pg_scale.MODEL, n)
    retriever = build_sqlite_hybrid(
        scale_data.StaticEmbedder(f"scale-{pg_scale.MODEL}"),
        path,
        metadata_columns=pg_scale.COLUMNS,
    )
    started = time.perf_counter()
    for at in range(0, n, 2000):
        retriever.add(
            list(pg_scale._items(texts, matrix, at, min(at + 2000, n))), scope=scale_data.RAG
        )
    seconds = time.perf_counter() - started
    retriever.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    retriever.close()
    info = {"n": n, "ingest_seconds": round(seconds, 1), "items_per_s": round(n / seconds)}
    info |= {"library_bytes": path.stat().st_size, "load": pg_scale._load()}
    path.with_suffix(".json").write_text(json.dumps(info))
    log(f"sqlite {n}: {info}")


def _open(n: int) -> tuple[Any, Any, list[str], np.ndarray]:
    from agentmaker.retrieval.postgres import build_postgres_hybrid
    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

    pg_scale._paths()
    path = scale_data.library_path(pg_scale.MODEL, n)
    if not path.exists():
        _small_sqlite(n)
    texts, qv = _query_set(pg_scale.MODEL)
    embedder = scale_data.StaticEmbedder(
        f"scale-{pg_scale.MODEL}", dict(zip(texts, qv, strict=True))
    )
    sqlite = build_sqlite_hybrid(embedder, path, metadata_columns=pg_scale.COLUMNS)
    _graph_ready(sqlite)
    log(f"sqlite {n}: keyword copy {_keywords_ready(sqlite)}")
    srv = pg_scale.server()
    pg = build_postgres_hybrid(
        pg_scale.database(srv, n), embedder, metadata_columns=pg_scale.COLUMNS
    )
    return sqlite, pg, texts, qv


def measure(n: int) -> dict[str, Any]:
    from agentmaker.retrieval.postgres import vector_store

    sqlite, pg = None, None
    sqlite, pg, texts, qv = _open(n)
    rag = scale_data.RAG
    out: dict[str, Any] = {"n": n, "load_before": pg_scale._load()}
    cache = sqlite.keyword_index.cache
    out["sqlite_keyword_leg"] = "fts5" if cache is None else f"tantivy copy: {cache.status}"
    assert pg.count(scope=rag) == n, pg.count(scope=rag)
    backends = {"sqlite": sqlite, "postgresql": pg}
    for r in backends.values():
        for text in texts[:20]:
            r.search(text, scope=rag)  # warm caches
    pool = sqlite.config.candidate_pool
    out["hybrid"] = _alternating(
        {k: (lambda q, r=r: r.search(q, scope=rag)) for k, r in backends.items()}, texts
    )
    log(f"{n} hybrid {out['hybrid']} (load {pg_scale._load()})")
    out["dense"] = _alternating(
        {
            k: (lambda v, r=r: r.vector_store.search(v, top_k=pool, scope=rag))
            for k, r in backends.items()
        },
        list(qv),
    )
    out["keyword"] = {}
    for k, queries in keyword_queries().items():
        out["keyword"][f"{k}w"] = _alternating(
            {
                name: (lambda q, r=r: r.keyword_index.search(q, top_k=pool, scope=rag))
                for name, r in backends.items()
            },
            queries,
        )
    log(f"{n} legs dense {out['dense']} keyword {out['keyword']} (load {pg_scale._load()})")
    out["load_after_timings"] = pg_scale._load()
    # Recall@10 of the dense legs against the exact top 10 (real questions, as §12).
    matrix = np.array(scale_data.library_vectors(pg_scale.MODEL, n), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    picked = np.asarray(vectors(pg_scale.MODEL)[1])[::4][:240]
    truth = _exact_top10(matrix, picked)
    del matrix

    def recall(store: Any) -> float:
        hits = []
        for v, exact in zip(picked, truth, strict=True):
            found = {int(r.id[1:]) for r in store.search(v, top_k=10, scope=rag)}
            hits.append(len(found & exact) / 10)
        return round(float(np.mean(hits)), 4)

    out["recall@10"] = {"sqlite": recall(sqlite.vector_store)}
    default_ef = vector_store.EF_SEARCH
    try:
        for ef in EF_VALUES:
            vector_store.EF_SEARCH = ef
            r = recall(pg.vector_store)
            timing = _alternating(
                {"pg": lambda v: pg.vector_store.search(v, top_k=pool, scope=rag)},
                list(qv[:120]),
                1,
            )["pg"]
            out["recall@10"][f"postgresql_ef{ef}"] = r
            out.setdefault("pg_dense_by_ef", {})[str(ef)] = timing
    finally:
        vector_store.EF_SEARCH = default_ef
    log(f"{n} recall {out['recall@10']}")
    out["load_after"] = pg_scale._load()
    sqlite.close()
    pg.close()
    (pg_scale.OUT / f"pg_measure_{n}.json").write_text(json.dumps(out, indent=1))
    log(json.dumps(out))
    return out


def plot() -> None:
    """Latency against size for both backends: hybrid, dense leg, keyword leg 8 words."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted(
        (json.loads(p.read_text()) for p in pg_scale.OUT.glob("pg_measure_*.json")),
        key=lambda r: r["n"],
    )
    sizes = [r["n"] for r in runs]
    panels = [
        ("hybrid search", lambda r: r["hybrid"]),
        ("dense leg", lambda r: r["dense"]),
        ("keyword leg, 8 words", lambda r: r["keyword"]["8w"]),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, (title, get) in zip(axes, panels, strict=True):
        for backend, colour in (("sqlite", "tab:blue"), ("postgresql", "tab:orange")):
            for pct, style in (("p50", "-o"), ("p95", "--s")):
                ax.plot(
                    sizes,
                    [get(r)[backend][pct] for r in runs],
                    style,
                    color=colour,
                    label=f"{backend} {pct}",
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("chunks")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ms (shared 2-core machine; read ratios)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)
    log(f"wrote {PLOT}")


def keyword(n: int) -> dict[str, Any]:
    """The PostgreSQL keyword leg alone (1, 3 and 8 words, top 20, 2 rounds), for
    comparing engine versions back to back: the file is named after the engine's path."""
    import sys

    from agentmaker.retrieval.postgres import build_postgres_hybrid

    srv = pg_scale.server()
    pg = build_postgres_hybrid(
        pg_scale.database(srv, n),
        scale_data.StaticEmbedder(f"scale-{pg_scale.MODEL}"),
        metadata_columns=pg_scale.COLUMNS,
    )
    kw, rag = pg.keyword_index, scale_data.RAG
    engine = str(sys.modules["agentmaker"].__file__)
    out: dict[str, Any] = {"n": n, "engine": engine, "load_before": pg_scale._load()}
    for k, queries in keyword_queries().items():
        out[f"{k}w"] = _alternating({"pg": lambda q: kw.search(q, top_k=20, scope=rag)}, queries)[
            "pg"
        ]
    out["load_after"] = pg_scale._load()
    pg.close()
    tag = "".join(c if c.isalnum() else "_" for c in engine.split("/agentmaker/")[0])[-24:]
    stamp = time.strftime("%H%M%S")
    (pg_scale.OUT / f"pg_keyword_{n}_{tag}_{stamp}.json").write_text(json.dumps(out, indent=1))
    log(json.dumps(out))
    return out
