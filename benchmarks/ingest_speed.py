"""Ingestion speed on corpus/good, and the time until a dropped document is searchable.

Every file of ``corpus/good`` is ingested (one ``pipeline.ingest_paths([file])`` call
each, as the app does) into a fresh library file with the real local embedder. The
embedder is wrapped: it always computes (so times are real) and stores the vectors in
the benchmark cache (so the citation benchmark can rebuild the same library quickly).
Per file: wall time, time inside the embedder, a separate timed read (reader only),
pages (PDF), cl100k tokens of the extracted text, chunks.

"Dropped document searchable": a copy of a file with a unique sentence appended is
ingested into that library and searched for (``retriever.search``) until one of its
chunks comes back; the clock runs from the ingest call to the first successful search.
A PDF cannot take an appended sentence: its copy is found by a phrase from its text
(the original stays in the library; the copy has its own document id).

    .venv/bin/python -m benchmarks.ingest_speed
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.models.local_embedder import MINILM
from agentmaker.retrieval.ports import Embedder, ModelFingerprint
from agentmaker.retrieval.types import Scope

from benchmarks.common import (
    CONTENT_CODE,
    CORPUS,
    OUT,
    CachedEmbedder,
    code_hash,
    load_json,
    local_embedder,
    log,
    median,
    schema_signature,
    short_hash,
)


class TimingEmbedder(Embedder):
    """Counts texts and seconds spent embedding; ``store`` writes vectors to the cache."""

    def __init__(self, inner: Embedder, store: CachedEmbedder | None = None) -> None:
        self.inner = inner
        self.store = store
        self.seconds = 0.0
        self.texts = 0
        self.model_tokens = 0

    @property
    def fingerprint(self) -> ModelFingerprint:
        return self.inner.fingerprint

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        vectors = self.inner.embed_batch(texts)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        if self.store is not None and len(texts):
            hashes = [self.store._hash(t) for t in texts]
            with self.store._lock, self.store._conn:
                self.store._conn.executemany(
                    "INSERT OR REPLACE INTO v(h, vec) VALUES (?, ?)",
                    [
                        (h, np.asarray(v, dtype=np.float32).tobytes())
                        for h, v in zip(hashes, vectors, strict=True)
                    ],
                )
        return vectors

    def close(self) -> None:
        self.inner.close()


def corpus_files(good: Path = CORPUS / "good") -> list[Path]:
    return sorted(p for p in good.iterdir() if p.is_file())


def library_path(embedder_key: str) -> Path:
    from agentmaker.rag.config import RagConfig

    config = RagConfig()
    manifest = (CORPUS / "MANIFEST.tsv").read_bytes()
    key = short_hash(
        embedder_key,
        config.chunking,
        config.heading_context,
        manifest,
        code_hash(*CONTENT_CODE),
        schema_signature(),
    )
    return OUT / f"corpus_{key}.sqlite"


RAG = Scope(base="rag")


def _format(path: Path) -> str:
    return path.suffix.lower().lstrip(".")


def _read_stats(path: Path) -> dict[str, Any]:
    from agentmaker.rag.chunking.tokens import count_tokens
    from agentmaker.rag.readers import read_file

    started = time.perf_counter()
    doc = read_file(path)
    seconds = time.perf_counter() - started
    spans = doc.metadata.get("page_spans") or []
    return {
        "read_seconds": seconds,
        "pages": len(spans) if doc.format == "pdf" else 0,
        "tokens": count_tokens(doc.content),
        "chars": len(doc.content),
    }


def measure_ingest(files: Sequence[Path], path: Path) -> dict[str, Any]:
    """Ingest each file with the real embedder, timing it; builds the corpus library."""
    from agentmaker.library import Library

    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        stale.unlink(missing_ok=True)
    cache = CachedEmbedder(local_embedder())
    embedder = TimingEmbedder(local_embedder(), store=cache)
    embedder.embed_batch(["warm up the session"])  # loading the model is not ingestion
    embedder.seconds, embedder.texts = 0.0, 0
    rows = []
    library = Library.open(path, embedder=embedder)
    try:
        total_started = time.perf_counter()
        for file in files:
            log(f"ingesting {file.name}")
            try:
                stats = _read_stats(file)
            except Exception as exc:  # the pipeline reports it; keep the row
                stats = {"read_seconds": 0.0, "pages": 0, "tokens": 0, "chars": 0}
                log(f"  could not read {file.name} alone: {exc}")
            before_s, before_n = embedder.seconds, embedder.texts
            started = time.perf_counter()
            report = library.pipeline.ingest_paths([file])
            seconds = time.perf_counter() - started
            outcome = report.files[0]
            rows.append(
                {
                    "file": file.name,
                    "format": _format(file),
                    "bytes": file.stat().st_size,
                    "status": outcome.status,
                    "chunks": outcome.chunks,
                    "seconds": seconds,
                    "embed_seconds": embedder.seconds - before_s,
                    "embedded_texts": embedder.texts - before_n,
                    **stats,
                }
            )
        total = time.perf_counter() - total_started
        library.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        library.close()
        cache.close()
    return {
        "files": rows,
        "total_seconds": total,
        "library_bytes": path.stat().st_size,
        "measured": time.strftime("%Y-%m-%d %H:%M"),
    }


def build_from_cache(files: Sequence[Path], path: Path, model: str = MINILM) -> dict[str, Any]:
    """The same library from cached vectors (no timing worth reporting).

    Built beside ``path`` and renamed into place only when every file was indexed: a
    build that failed (a missing model, a reader error) leaves no library that a later
    run would take for the real one.
    """
    from agentmaker.library import Library

    partial = path.with_name(path.name + ".partial")
    for stale in (path, partial):
        for name in (stale, Path(f"{stale}-wal"), Path(f"{stale}-shm")):
            name.unlink(missing_ok=True)
    embedder = CachedEmbedder(local_embedder(model=model))
    library = Library.open(partial, embedder=embedder)
    try:
        report = library.pipeline.ingest_paths(list(files))
        library.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        library.close()
    failed = [f for f in report.files if f.status in ("failed", "cancelled")]
    if failed:
        raise RuntimeError(
            "the corpus library could not be built: "
            + "; ".join(f"{f.path}: {f.error}" for f in failed[:3])
        )
    partial.replace(path)
    for graph in path.parent.glob(f"{partial.name}.graph-*"):  # named after the old path
        graph.unlink(missing_ok=True)
    return {"hits": embedder.hits, "misses": embedder.misses}


def searchable_after_drop(path: Path, repeats: int = 3) -> list[dict[str, Any]]:
    """Time from dropping a changed file to the first search that finds it."""
    from agentmaker.library import Library

    samples = [
        CORPUS / "good" / "faq.md",
        CORPUS / "good" / "norwich-city.txt",
        CORPUS / "good" / "multi-column.pdf",
    ]
    out = []
    scratch = Path(tempfile.mkdtemp(prefix="drop-", dir=OUT))
    library = Library.open(path, embedder=local_embedder())
    library.embedder.embed_batch(["warm up"])
    chunks = library.source_store.count_chunks()
    try:
        for sample in samples:
            times = []
            for n in range(repeats):
                marker = f"zebracorn{n}quasar{int(time.time() * 1000) % 100000}"
                target = scratch / f"dropped-{n}{sample.suffix}"
                if sample.suffix == ".pdf":
                    shutil.copy(sample, target)  # a PDF cannot take an appended line
                    marker = ""
                else:
                    text = sample.read_text(encoding="utf-8")
                    target.write_text(f"{text}\n\nThe {marker} is searchable now.\n", "utf-8")
                started = time.perf_counter()
                report = library.pipeline.ingest_paths([target])
                doc_id = report.files[0].doc_id
                query = marker or "Sauron villain portrayed"
                while True:  # the index, not rag.retrieve: that folds identical passages
                    hits = library.retriever.search(query, top_k=10, scope=RAG)
                    if any(h.metadata.get("doc_id") == doc_id for h in hits):
                        break
                    if time.perf_counter() - started > 120:
                        raise RuntimeError(f"{target.name} not searchable after 120 s")
                times.append(time.perf_counter() - started)
                library.pipeline.delete_document(doc_id)
            out.append(
                {
                    "file": sample.name,
                    "bytes": sample.stat().st_size,
                    "seconds_median": median(times),
                    "seconds": times,
                    "library_chunks": chunks,
                }
            )
    finally:
        library.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def corpus_library(*, measure: bool, model: str = MINILM) -> tuple[Path, dict[str, Any] | None]:
    """The corpus library file; with ``measure``, ingest it anew with real timing.

    ``model``: the local embedder's model; the timed ingest is MiniLM's only.
    """
    from agentmaker.models.local_embedder import LocalEmbedder

    from benchmarks.common import embedder_key

    path = library_path(embedder_key(LocalEmbedder(model=model)))
    files = corpus_files()
    if measure and model == MINILM:
        return path, measure_ingest(files, path)
    if not path.exists():
        log("building the corpus library from cached vectors")
        build_from_cache(files, path, model)
    return path, None


def run(*, measure: bool = True) -> dict[str, Any]:
    path, ingest = corpus_library(measure=measure)
    if ingest is None:
        previous = load_json("ingest_speed")
        if previous is None:
            path, ingest = corpus_library(measure=True)
        else:
            previous["from_cache"] = True
            return previous
    data: dict[str, Any] = {"ingest": ingest, "from_cache": False, "library": path.name}
    data["drop"] = searchable_after_drop(path)
    return data
