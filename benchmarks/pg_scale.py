"""The team library (PostgreSQL + pgvector) at 10k, 100k and 1M chunks, beside SQLite.

The same rows as the SQLite scale run (REPORT §12, ``scale_data``): the 101,024 real
passages with their all-MiniLM-L6-v2 vectors, then generated ones up to 1M, ids ``c<i>``,
``doc_id`` ``d<i // 10>``, scope ``rag``. Read from ``benchmarks/out/scale_ro/`` (never
written); everything this script makes goes to ``benchmarks/out/pgscale/``, the server's
data directory to ``/work/data/pgscale/server`` (override with ``PGSCALE_DATA``).

    nice -n 10 .venv/bin/python -m benchmarks.pg_scale build 100000   # bulk import, sizes
    nice -n 10 .venv/bin/python -m benchmarks.pg_scale per-row 100000  # old vs bulk rate at 100k
    nice -n 10 .venv/bin/python -m benchmarks.pg_scale measure 100000  # both backends, one process
    nice -n 10 .venv/bin/python -m benchmarks.pg_scale keyword 1000000 # keyword leg alone
    .venv/bin/python -m benchmarks.pg_scale plot                       # benchmarks/pg_scale.png
    .venv/bin/python -m benchmarks.pg_scale stop                       # stop the server

The server: pgserver's PostgreSQL 16.2 + pgvector 0.6.2, fsync on, with settings for a
24 GB machine shared with other work (``SETTINGS``). The SQLite libraries at 100k and 1M
are copies of the ones the SQLite scale run built (``cp --sparse=always
out/scale_ro/library_minilm_{100000,1000000}_s2.{json,sqlite,sqlite.graph-*} out/pgscale/``
first); 10k is built here the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import scale_corpus, scale_data
from benchmarks.common import HERE, log

RO = HERE / "out" / "scale_ro"
OUT = HERE / "out" / "pgscale"
DATA = Path(os.environ.get("PGSCALE_DATA", "/work/data/pgscale/server"))
# Read the scale run's inputs where it left them; libraries built here go to OUT
# (the generated vectors are reached through a symlink in OUT, see ``_paths``).
scale_corpus.OUT = RO
scale_data.OUT = OUT

#: Server settings (ALTER SYSTEM): 4 GB of shared buffers on a 24 GB machine that other
#: jobs share; WAL large enough that a bulk import does not checkpoint every 1 GB.
SETTINGS = {
    "shared_buffers": "4GB",
    "effective_cache_size": "12GB",
    "maintenance_work_mem": "1GB",
    "work_mem": "32MB",
    "max_wal_size": "16GB",
    "checkpoint_timeout": "30min",
    "max_parallel_maintenance_workers": "2",
}
#: maintenance_work_mem the benchmark's imports ask for (the engine's default cap is 1 GB;
#: the 1M graph takes ~2.4 GB and pgvector builds it several times faster in memory).
BUILD_MB = 3072
MODEL = "minilm"
COLUMNS = ("doc_id", "format")


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _paths() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    link = OUT / "generated_minilm_898976_1_s2.npy"
    if not link.exists():
        link.symlink_to(RO / link.name)


def server() -> Any:
    """The benchmark's PostgreSQL (started if needed, left running for the next step)."""
    import pgserver
    import psycopg

    DATA.mkdir(parents=True, exist_ok=True)
    srv = pgserver.get_server(DATA, cleanup_mode=None)
    with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
        current = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in SETTINGS}  # type: ignore[index]
        restart = False
        for key, value in SETTINGS.items():
            if current[key].lower() != value.lower():
                conn.execute(f"ALTER SYSTEM SET {key} = '{value}'")  # type: ignore[arg-type]
                restart = restart or key == "shared_buffers"
        conn.execute("SELECT pg_reload_conf()")
    if restart:
        # pgserver stops a server only when no other process holds a handle on it.
        from pgserver._commands import pg_ctl

        log("restarting the server for shared_buffers")
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=DATA, user=srv.system_user)
        srv.ensure_postgres_running()
    return srv


def database(srv: Any, n: int, *, fresh: bool = False) -> str:
    import psycopg

    name = f"scale_{n}"
    with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if fresh and exists:
            conn.execute(f"DROP DATABASE {name}")  # type: ignore[arg-type]
            exists = None
        if not exists:
            conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return str(srv.get_uri(name))


def _items(texts: list[str], matrix: np.ndarray, start: int, stop: int) -> Any:
    from agentmaker.retrieval.types import RetrievalResult

    for i in range(start, stop):
        yield RetrievalResult(
            content=texts[i],
            id=f"c{i}",
            source="scale",
            embedding=np.asarray(matrix[i], dtype=np.float32),
            metadata={"doc_id": f"d{i // 10}", "format": "txt"},
        )


def sizes(retriever: Any) -> dict[str, Any]:
    """MB on disk by table: heap (with TOAST), each index; and the database's total."""
    rows = retriever.db.query_pg(
        "SELECT c.relname, pg_table_size(c.oid), pg_indexes_size(c.oid) FROM pg_class c "
        "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' "
        "ORDER BY pg_total_relation_size(c.oid) DESC"
    )
    indexes = retriever.db.query_pg(
        "SELECT i.relname, pg_relation_size(i.oid) FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
        "WHERE t.relnamespace = current_schema()::regnamespace ORDER BY 2 DESC"
    )
    mb = 2**20
    return {
        "tables_mb": {r[0]: round(r[1] / mb, 1) for r in rows if r[1] + r[2] > mb},
        "indexes_mb": {r[0]: round(r[1] / mb, 1) for r in indexes if r[1] > mb},
        "total_mb": round(sum(r[1] + r[2] for r in rows) / mb, 1),
        "database_mb": round(retriever.db.size_bytes() / mb, 1),
    }


def build(n: int) -> dict[str, Any]:
    """Bulk-import ``n`` chunks into a fresh database (index built after), then VACUUM
    ANALYZE (what autovacuum does after a load) and the sizes."""
    from agentmaker.retrieval.postgres import build_postgres_hybrid

    _paths()
    srv = server()
    url = database(srv, n, fresh=True)
    texts = scale_data.library_texts(n)
    matrix = scale_data.library_vectors(MODEL, n)
    retriever = build_postgres_hybrid(
        url, scale_data.StaticEmbedder(f"scale-{MODEL}"), metadata_columns=COLUMNS
    )
    marks: list[tuple[int, float, list[float]]] = []
    started = time.perf_counter()

    def progress(done: int) -> None:
        marks.append((done, time.perf_counter() - started, _load()))
        if done % 50_000 == 0 or done == n:
            log(f"pg {n}: {done} rows in {marks[-1][1]:.0f} s (load {marks[-1][2]})")

    load_before = _load()
    report = retriever.bulk_add(
        _items(texts, matrix, 0, n),
        scope=scale_data.RAG,
        total=n,
        memory_mb=BUILD_MB,
        progress=progress,
    )
    log(f"pg {n}: {report.items} in {report.seconds:.0f} s, index {report.index_seconds:.0f} s")
    t = time.perf_counter()
    retriever.db.execute_pg("VACUUM ANALYZE")
    vacuum_s = time.perf_counter() - t
    load_s = report.seconds - report.index_seconds
    info = {
        "n": n,
        "seconds": round(report.seconds, 1),
        "rows_seconds": round(load_s, 1),
        "index_seconds": round(report.index_seconds, 1),
        "chunks_per_s": round(n / report.seconds),
        "rows_per_s_without_index": round(n / load_s),
        "vacuum_analyze_seconds": round(vacuum_s, 1),
        "per_tenth": [
            (d, round(s, 1), ld)
            for d, s, ld in marks[max(1, len(marks) // 10) - 1 :: max(1, len(marks) // 10)]
        ],
        "load_before": load_before,
        "load_after": _load(),
        "build_memory_mb": BUILD_MB,
        **sizes(retriever),
    }
    retriever.close()
    (OUT / f"pg_build_{n}.json").write_text(json.dumps(info, indent=1))
    log(json.dumps(info))
    return info


def per_row(n: int, extra: int = 5000) -> dict[str, Any]:
    """Indexing rate into the ``n``-chunk library (HNSW index in place): the per-document
    path (``retriever.add`` of 10 chunks, a document) and ``bulk_add`` with the index kept,
    ``extra`` chunks each (ids past ``n``, taken out again afterwards)."""
    from agentmaker.retrieval.postgres import build_postgres_hybrid

    _paths()
    srv = server()
    url = database(srv, n)
    total = n + 2 * extra
    texts = scale_data.library_texts(total)
    matrix = scale_data.library_vectors(MODEL, total)
    retriever = build_postgres_hybrid(
        url, scale_data.StaticEmbedder(f"scale-{MODEL}"), metadata_columns=COLUMNS
    )
    out: dict[str, Any] = {"n": n, "extra": extra, "load_before": _load()}
    t = time.perf_counter()
    items = list(_items(texts, matrix, n, n + extra))
    for at in range(0, extra, 10):
        retriever.add(items[at : at + 10], scope=scale_data.RAG)
    out["per_document_chunks_per_s"] = round(extra / (time.perf_counter() - t))
    out["load_mid"] = _load()
    if hasattr(retriever, "bulk_add"):  # not in the engine before the bulk path
        t = time.perf_counter()
        retriever.bulk_add(
            _items(texts, matrix, n + extra, total), scope=scale_data.RAG, rebuild_index=False
        )
        out["bulk_index_kept_chunks_per_s"] = round(extra / (time.perf_counter() - t))
    out["load_after"] = _load()
    out["engine"] = str(Path(sys.modules["agentmaker"].__file__ or "").parent)
    retriever.delete([f"c{i}" for i in range(n, total)])
    retriever.close()
    tag = "main" if "/work/main/" in out["engine"] else "branch"
    (OUT / f"pg_rate_{n}_{tag}.json").write_text(json.dumps(out, indent=1))
    log(json.dumps(out))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["build", "per-row", "measure", "keyword", "plot", "stop"])
    parser.add_argument("sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args(argv)
    if args.step == "build":
        for n in args.sizes:
            build(n)
    elif args.step == "per-row":
        for n in args.sizes:
            per_row(n)
    elif args.step == "measure":
        from benchmarks.pg_scale_measure import measure

        for n in args.sizes:
            measure(n)
    elif args.step == "keyword":
        from benchmarks.pg_scale_measure import keyword

        for n in args.sizes:
            keyword(n)
    elif args.step == "plot":
        from benchmarks.pg_scale_measure import plot

        plot()
    elif args.step == "stop":
        from pgserver._commands import pg_ctl

        # As the user pgserver runs the server as (``pgserver`` when started by root).
        user = "pgserver" if os.geteuid() == 0 else None
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=DATA, user=user)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
