"""Shared helpers for the benchmarks: machine facts, timing, medians, caches.

Everything the benchmarks write goes to ``benchmarks/out/`` (gitignored), except the
report and its plots, which ``benchmarks/run.py`` writes next to this file.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import platform
import resource
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.retrieval.ports import Embedder, ModelFingerprint

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
SHARED = Path(os.environ.get("AGENTMAKER_SHARED", "/work/shared"))
SCIFACT = SHARED / "bench" / "scifact"
CORPUS = SHARED / "corpus"


def log(message: str) -> None:
    """Progress on stderr (the report is the real output)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- statistics ------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (numpy's default), NaN for no values."""
    return float(np.percentile(np.asarray(values, dtype=float), pct)) if values else float("nan")


def timed_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Run ``fn`` once; (milliseconds, result)."""
    started = time.perf_counter()
    result = fn()
    return (time.perf_counter() - started) * 1000.0, result


def repeat_median(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, list[float]]:
    """Median seconds of ``repeats`` runs of ``fn`` (and every run's seconds)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return median(times), times


# --- memory ----------------------------------------------------------------------


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (MiB; Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 if sys.platform != "darwin" else peak / (1024.0 * 1024.0)


def rss_mb() -> float:
    """Current resident set size (MiB)."""
    try:
        import psutil

        return psutil.Process().memory_info().rss / (1024.0 * 1024.0)
    except ImportError:  # pragma: no cover - psutil is in the bench extra
        return float("nan")


class PeakSampler:
    """Samples this process's RSS every few ms in a thread: peak over a code block.

    ``ru_maxrss`` only ever grows; this measures the peak *during* a block (MiB).
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.peak = 0.0
        self.start = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PeakSampler:
        self.start = rss_mb()
        self.peak = self.start
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.peak = max(self.peak, rss_mb())


# --- machine and versions --------------------------------------------------------------


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "os": platform.platform(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    try:
        import psutil

        info["physical_cores"] = psutil.cpu_count(logical=False)
        info["ram_gb"] = round(psutil.virtual_memory().total / 1024**3, 1)
    except ImportError:  # pragma: no cover
        pass
    return info


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict[str, str]:
    import sqlean
    from agentmaker.retrieval.sqlite.db import SqliteDatabase

    db = SqliteDatabase(":memory:")
    try:
        vec = db.query("SELECT vec_version()")[0][0]
    finally:
        db.close()
    out = {
        "python": platform.python_version(),
        "sqlite (sqlean)": sqlean.sqlite_version,
        "sqlite-vec": str(vec),
        "onnxruntime": _version("onnxruntime"),
        "numpy": _version("numpy"),
        "tokenizers": _version("tokenizers"),
        "agentmaker-desk (the app)": _version("agentmaker-desk"),
    }
    for dist in ("lancedb", "bm25s", "pyarrow", "matplotlib"):
        out[dist] = _version(dist)
    return out


# --- JSON results --------------------------------------------------------------------


def save_json(name: str, data: Any) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    path.write_text(json.dumps(data, indent=1, default=_jsonable), encoding="utf-8")
    return path


def load_json(name: str) -> Any | None:
    path = OUT / f"{name}.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value)}")


def short_hash(*parts: Any) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(str(part).encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


ENGINE = HERE.parent / "engine" / "agentmaker"


def code_hash(*relative: str) -> str:
    """Hash of engine source files (relative to ``engine/agentmaker``; folders recurse).

    Part of every cached library's key: a change to the code that decides what is stored
    (readers, splitters, index schemas) rebuilds the library instead of reusing a stale one.
    """
    digest = hashlib.sha256()
    for rel in relative:
        target = ENGINE / rel
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        if not files or not target.exists():
            # A moved module must not silently drop out of the key (the chunking and
            # ingest modules did when they moved into packages: changing them reused
            # libraries built by the old code).
            raise FileNotFoundError(f"code_hash: {target} does not exist")
        for path in files:
            digest.update(str(path.relative_to(ENGINE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


#: Code that decides what text and chunks a library holds (not how it is searched).
CONTENT_CODE = (
    "retrieval/text_analysis.py",
    "rag/readers",
    "rag/chunking",
    "rag/ingest",
    "rag/documents.py",
)


def schema_signature(metadata_columns: tuple[str, ...] = ("doc_id", "format")) -> str:
    """Hash of the tables a new library gets (index, items, source store, bookkeeping).

    A cached library file is reused only while the engine still creates the same
    schema; search-only code (fusion, shortlists) can change without a rebuild.
    """
    from agentmaker.rag.ingest.pipeline import IngestionPipeline
    from agentmaker.rag.source_store import SourceStore
    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid
    from agentmaker.testing import FakeEmbedder

    retriever = build_sqlite_hybrid(FakeEmbedder(384), metadata_columns=metadata_columns)
    try:
        IngestionPipeline(retriever, SourceStore(retriever.db))
        rows = retriever.db.query(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
        )
    finally:
        retriever.close()
    return short_hash(*(f"{t}|{n}|{q}" for t, n, q in rows))


# --- libraries -----------------------------------------------------------------------


def settled(library: Any, timeout_s: float = 900.0) -> Any:
    """``library`` once its vector graph (HNSW, built in a background thread from
    ``GRAPH_MIN_SIZE`` vectors on) is ready, so that every question is searched the same
    way run after run. Until the graph is ready, searches use the exact shortlist; a
    benchmark that asked at once got the shortlist for its first questions and the graph
    for the rest, and a replay could retrieve other passages."""
    graph = getattr(getattr(library.retriever, "vector_store", None), "graph", None)
    deadline = time.monotonic() + timeout_s
    while graph is not None and graph.status in ("not started", "building"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the vector graph of {library.path} was not built in time")
        time.sleep(0.05)
    if graph is not None and graph.status == "failed":
        raise RuntimeError(f"the vector graph of {library.path} failed: {graph.error}")
    return library


# --- the embedding cache -------------------------------------------------------------


def embedder_key(embedder: Embedder) -> str:
    """What makes two embedders' vectors identical: fingerprint and text handling."""
    parts = [str(embedder.fingerprint), embedder.fingerprint.weights]
    for attr in ("long_text", "window_overlap"):
        if hasattr(embedder, attr):
            parts.append(f"{attr}={getattr(embedder, attr)}")
    return short_hash(*parts)


class CachedEmbedder(Embedder):
    """An embedder that remembers every vector it computed, keyed by the text's sha256.

    The cache is one SQLite file per model key in ``benchmarks/out/``, so a text that
    was embedded once (by any benchmark, any run) is never embedded again. It reports
    the inner embedder's fingerprint, so libraries built with it are the same as with
    the real embedder. ``hits`` / ``misses`` count texts.
    """

    def __init__(self, inner: Embedder, *, path: Path | None = None) -> None:
        import sqlite3

        self.inner = inner
        self.key = embedder_key(inner)
        OUT.mkdir(parents=True, exist_ok=True)
        self.path = path or OUT / f"embcache_{self.key}.sqlite"
        self._conn = sqlite3.connect(self.path, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.precomputed = 0
        self.seconds_embedding = 0.0

    @property
    def fingerprint(self) -> ModelFingerprint:
        return self.inner.fingerprint

    # What the inner model is tuned to (fusion weight, gate level): a library searched
    # through the cache must rank and gate as it would with the real embedder.
    @property
    def score_fusion_defaults(self) -> tuple[float, tuple[str, str]]:
        return self.inner.score_fusion_defaults

    @property
    def related_similarity(self) -> float:
        return self.inner.related_similarity

    @staticmethod
    def _hash(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _lookup(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(unique), 900):
                part = unique[start : start + 900]
                rows = self._conn.execute(
                    f"SELECT h, vec FROM v WHERE h IN ({','.join('?' * len(part))})", part
                ).fetchall()
                for h, blob in rows:
                    found[h] = np.frombuffer(blob, dtype=np.float32)
        return found

    def cached_count(self, texts: Sequence[str]) -> int:
        hashes = [self._hash(t) for t in texts]
        found = self._lookup(hashes)
        return sum(1 for h in hashes if h in found)

    def _store(
        self, hashes: Sequence[str], texts: Sequence[str], queries: bool = False
    ) -> dict[str, np.ndarray]:
        started = time.perf_counter()
        embed = self.inner.embed_queries if queries else self.inner.embed_batch
        vectors = embed(list(texts))
        self.seconds_embedding += time.perf_counter() - started
        rows = [(h, np.asarray(v, dtype=np.float32)) for h, v in zip(hashes, vectors, strict=True)]
        with self._lock, self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO v(h, vec) VALUES (?, ?)",
                [(h, v.tobytes()) for h, v in rows],
            )
        return dict(rows)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, queries=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        # Queries may be embedded differently (e5's "query: " prefix): cached apart.
        return self._embed(texts, queries=True)

    def _embed(self, texts: Sequence[str], *, queries: bool) -> np.ndarray:
        hashes = [self._hash(("\0query\0" if queries else "") + t) for t in texts]
        found = self._lookup(hashes)
        first = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if first:
            found.update(self._store(list(first), list(first.values()), queries))
        self.misses += len(first)
        self.hits += len(texts) - len(first)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)

    def precompute(self, texts: Sequence[str], *, batch: int = 256, label: str = "") -> int:
        """Embed (in large batches) every text not cached yet; returns how many.

        Not counted in ``hits`` / ``misses``: those describe what the library asked for.
        """
        hashes = [self._hash(t) for t in texts]
        found = self._lookup(hashes)
        todo = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if not todo:
            return 0
        keys = list(todo)
        started = time.perf_counter()
        for start in range(0, len(keys), batch):
            part = keys[start : start + batch]
            self._store(part, [todo[h] for h in part])
            done = start + len(part)
            rate = done / max(time.perf_counter() - started, 1e-9)
            log(f"embedding {label}: {done}/{len(keys)} ({rate:.1f} texts/s)")
        self.precomputed += len(keys)
        return len(keys)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        self.inner.close()


def local_embedder(**kwargs: Any) -> Embedder:
    """The app's default local embedder."""
    from agentmaker.models.local_embedder import LocalEmbedder

    return LocalEmbedder(**kwargs)


@contextlib.contextmanager
def cached_local_embedder() -> Iterator[CachedEmbedder]:
    embedder = CachedEmbedder(local_embedder())
    try:
        yield embedder
    finally:
        embedder.close()
