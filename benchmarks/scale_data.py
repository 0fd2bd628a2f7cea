"""The libraries of the scale benchmark: real passages first, then generated ones.

Up to the real corpus's size (101,024 passages) a library holds real text and the real
embeddings of the product's model; beyond it, vectors come from the neighbourhood generator of
``scale_generator`` (validated at 100k, see ``scale.recall``) and texts are the real
passages again, each copy with 15% of its words replaced by words drawn by corpus
frequency (so keyword posting lists keep real document frequencies at every size).
Everything is cached under ``benchmarks/out/scale/``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.retrieval.ports import Embedder, ModelFingerprint
from agentmaker.retrieval.types import RetrievalResult, Scope

from benchmarks.common import log
from benchmarks.scale_corpus import OUT, available, passages, vectors
from benchmarks.scale_generator import Neighbourhoods, neighbourhoods, perturbed_queries

RAG = Scope(base="rag")
DIM = 384
VERSION = "s2"


class StaticEmbedder(Embedder):
    """Precomputed vectors: items arrive with theirs, queries are looked up in ``known``
    (search timing excludes embedding)."""

    def __init__(self, name: str, known: dict[str, np.ndarray] | None = None) -> None:
        self._fp = ModelFingerprint(name, DIM, VERSION)
        self.known = known or {}

    @property
    def fingerprint(self) -> ModelFingerprint:
        return self._fp

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.known[t] for t in texts]).astype(np.float32)


def _neighbourhoods(model: str) -> Neighbourhoods:
    real, _ = available(model)
    path = OUT / f"neighbours_{model}_{len(real)}_{VERSION}.npy"
    if model == "minilm" and len(real) == 101_024 and not path.exists():
        path = OUT / f"neighbours_{model}_{VERSION}.npy"  # the first run's name
    if not path.exists():
        np.save(path, neighbourhoods(np.asarray(real)).neighbours)
    return Neighbourhoods(np.ascontiguousarray(real, dtype=np.float32), np.load(path))


def generated_passages(model: str, n: int, seed: int = 1) -> np.ndarray:
    """``n`` generated passage vectors (cached as .npy)."""
    path = OUT / f"generated_{model}_{n}_{seed}_{VERSION}.npy"
    if not path.exists():
        np.save(path, _neighbourhoods(model).sample(n, seed))
    return np.load(path, mmap_mode="r")


def generated_queries(model: str, seed: int = 2) -> np.ndarray:
    """The real questions' vectors with noise: near real questions, stored nowhere."""
    _, q = vectors(model)
    return perturbed_queries(np.asarray(q), seed)


def _word_table(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(text.lower().split())
    words = np.array(list(counts), dtype=object)
    freq = np.cumsum(np.array([counts[w] for w in words], dtype=np.float64))
    return words, freq / freq[-1]


def library_texts(n: int, seed: int = 7) -> list[str]:
    """Real passages, then perturbed copies of them (15% of words swapped)."""
    real = passages()
    if n <= len(real):
        return real[:n]
    words, cdf = _word_table(real)
    split = [np.array(t.split(), dtype=object) for t in real]
    rng = np.random.default_rng(seed)
    out = list(real)
    for i in range(len(real), n):
        tokens = split[i % len(real)]
        if len(tokens) > 2:  # CJK passages are one "word": copied as they are
            tokens = tokens.copy()
            swap = rng.random(len(tokens)) < 0.15
            if swap.any():
                tokens[swap] = words[np.searchsorted(cdf, rng.random(int(swap.sum())))]
        out.append(" ".join(tokens))
    return out


def library_vectors(model: str, n: int) -> np.ndarray:
    """Real vectors, then generated ones."""
    real, _ = vectors(model)
    if n <= len(real):
        return np.asarray(real[:n])
    return np.concatenate([np.asarray(real), generated_passages(model, n - len(real))])


def library_path(model: str, n: int) -> Path:
    return OUT / f"library_{model}_{n}_{VERSION}.sqlite"


def _ingested(path: Path) -> int:
    """How many items a library file holds (0 when there is none)."""
    if not path.exists():
        return 0
    import sqlean

    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT max(rowid) FROM items").fetchone()[0] or 0)
    finally:
        conn.close()


def build_library(model: str, n: int, batch: int = 2000) -> dict[str, Any]:
    """Ingest through the public API (``SqliteHybridRetriever.add``), then wait for the
    graph index to catch up; cached (a ``.json`` beside the file marks it complete)."""
    from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

    path = library_path(model, n)
    info_path = path.with_suffix(".json")
    if info_path.exists():
        info: dict[str, Any] = json.loads(info_path.read_text())
        return info
    rates: list[tuple[int, float]] = []
    resumed = _ingested(path) == n
    if not resumed:  # an interrupted ingestion starts again; one that finished is kept
        for stale in path.parent.glob(path.name + "*"):
            stale.unlink()
    texts = library_texts(n) if not resumed else []
    matrix = library_vectors(model, n) if not resumed else np.zeros((0, DIM))
    retriever = build_sqlite_hybrid(
        StaticEmbedder(f"scale-{model}"), path, metadata_columns=("doc_id", "format")
    )
    started = time.perf_counter()
    for start in range(0, n if not resumed else 0, batch):
        stop = min(start + batch, n)
        items = [
            RetrievalResult(
                content=texts[i],
                id=f"c{i}",
                source="scale",
                embedding=np.asarray(matrix[i]),
                metadata={"doc_id": f"d{i // 10}", "format": "txt"},
            )
            for i in range(start, stop)
        ]
        t = time.perf_counter()
        retriever.add(items, scope=RAG)
        rates.append((stop, (stop - start) / (time.perf_counter() - t)))
        if (start // batch) % 50 == 0:
            log(f"{model} {n}: added {stop}/{n} ({rates[-1][1]:.0f} items/s)")
    ingest = time.perf_counter() - started
    graph = retriever.vector_store.graph
    assert graph is not None
    t = time.perf_counter()
    while not (graph.status == "ready" and not graph._pending and not graph.behind):
        time.sleep(1.0)
        graph.refresh()
    catch_up = time.perf_counter() - t
    graph.save()
    retriever.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    retriever.close()
    tenth = max(1, len(rates) // 10)
    info = {
        "n": n,
        "model": model,
        "resumed_after_ingestion": resumed,
        "ingest_seconds": round(ingest, 1) if rates else None,
        "items_per_s": round(n / ingest) if rates else None,
        "rate_first_tenth": round(float(np.mean([r for _, r in rates[:tenth]]))) if rates else None,
        "rate_last_tenth": round(float(np.mean([r for _, r in rates[-tenth:]]))) if rates else None,
        "graph_catch_up_seconds": round(catch_up, 1),
        "library_bytes": path.stat().st_size,
        "graph_bytes": sum(p.stat().st_size for p in path.parent.glob(path.name + ".graph-*")),
        "load_during_build": [round(x, 2) for x in __import__("os").getloadavg()],
    }
    info_path.write_text(json.dumps(info))
    return info
