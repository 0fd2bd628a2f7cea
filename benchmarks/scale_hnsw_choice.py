"""usearch or hnswlib for the dense index: one measurement on the real 100k vectors.

Same graph parameters (M=16, ef_construction=128), same real queries (SciFact claims and
RGB questions), recall@10 against the exact top 10 after exact re-scoring of
``candidates`` graph hits; build time with 2 threads, search p50 with 1 thread, the
size of the saved file and the time to open it (usearch: memory-mapped view and full
load; hnswlib: full load, it has no view).

    nice -n 10 python -m benchmarks.scale_hnsw_choice --model minilm
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from benchmarks.scale_corpus import OUT, vectors


def _exact_top(matrix: np.ndarray, queries: np.ndarray, k: int = 10) -> np.ndarray:
    scores = queries @ matrix.T
    return np.argsort(-scores, axis=1)[:, :k]


def _recall(found: list[np.ndarray], truth: np.ndarray) -> float:
    return float(
        np.mean([len(set(f[:10]) & set(t)) / 10 for f, t in zip(found, truth, strict=True)])
    )


def _rescored(matrix: np.ndarray, q: np.ndarray, keys: np.ndarray) -> np.ndarray:
    keys = keys[keys >= 0]
    return keys[np.argsort(-(matrix[keys] @ q))]


def run(model: str, candidates: int = 100) -> dict[str, object]:
    passages, queries = vectors(model)
    matrix = np.ascontiguousarray(passages, dtype=np.float32)
    truth = _exact_top(matrix, queries)
    keys = np.arange(len(matrix))
    out: dict[str, object] = {"model": model, "n": len(matrix), "load": os.getloadavg()}

    from usearch.index import Index

    started = time.perf_counter()
    index = Index(
        ndim=matrix.shape[1], metric="cos", dtype="i8", connectivity=16, expansion_add=128
    )
    index.add(keys, matrix, threads=2)
    build = time.perf_counter() - started
    path = OUT / f"choice_{model}.usearch"
    index.save(str(path))
    rows = {}
    for ef in (64, 128, 160, 256):
        index.expansion_search = ef
        times, found = [], []
        for q in queries:
            t = time.perf_counter()
            hits = index.search(q, candidates, threads=1).keys.astype(np.int64)
            found.append(_rescored(matrix, q, hits))
            times.append(time.perf_counter() - t)
        rows[ef] = {
            "recall@10": round(_recall(found, truth), 4),
            "p50_ms": round(1000 * float(np.median(times)), 3),
        }
    t = time.perf_counter()
    view = Index.restore(str(path), view=True)
    view.search(queries[0], 10)
    view_s = time.perf_counter() - t
    t = time.perf_counter()
    Index.restore(str(path), view=False)
    load_s = time.perf_counter() - t
    out["usearch"] = {
        "build_s": round(build, 1),
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "open_view_and_search_s": round(view_s, 4),
        "full_load_s": round(load_s, 3),
        "by_ef": rows,
    }

    import hnswlib

    started = time.perf_counter()
    h = hnswlib.Index(space="cosine", dim=matrix.shape[1])
    h.init_index(max_elements=len(matrix), M=16, ef_construction=128)
    h.set_num_threads(2)
    h.add_items(matrix, keys)
    build = time.perf_counter() - started
    h.set_num_threads(1)
    hpath = OUT / f"choice_{model}.hnswlib"
    h.save_index(str(hpath))
    rows = {}
    for ef in (64, 128, 160, 256):
        h.set_ef(max(ef, candidates))
        times, found = [], []
        for q in queries:
            t = time.perf_counter()
            labels, _ = h.knn_query(q, k=candidates)
            found.append(_rescored(matrix, q, labels[0].astype(np.int64)))
            times.append(time.perf_counter() - t)
        rows[ef] = {
            "recall@10": round(_recall(found, truth), 4),
            "p50_ms": round(1000 * float(np.median(times)), 3),
        }
    t = time.perf_counter()
    h2 = hnswlib.Index(space="cosine", dim=matrix.shape[1])
    h2.load_index(str(hpath))
    load_s = time.perf_counter() - t
    out["hnswlib"] = {
        "build_s": round(build, 1),
        "file_mb": round(hpath.stat().st_size / 1e6, 1),
        "full_load_s": round(load_s, 3),
        "by_ef": rows,
    }
    out["load_after"] = os.getloadavg()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="minilm")
    args = parser.parse_args()
    result = run(args.model)
    print(json.dumps(result, indent=1))
    (OUT / f"choice_{args.model}.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
