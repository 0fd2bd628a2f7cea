"""Search at 100k and 1M passages (issue 22): real recall, cold start, latency, peers.

Steps (each cached under ``benchmarks/out/scale/``; run CPU-heavy ones at ``nice``):

1. ``recall``: for both local models (all-MiniLM-L6-v2 int8, multilingual-e5-small),
   the real 101k passages and 959 real questions (``scale_corpus``): recall@10 of the
   dense index against exact search, for the old sign-bit shortlist (2,000 candidates)
   and for the HNSW graph (the parameters ``GraphIndex`` uses, exact re-scoring of 100
   candidates). The same on a generated 100k library with generated queries
   (``scale_generator``): the generator is accepted when both indexes' recall there
   matches the real recall (and the neighbour-similarity profiles look alike).
2. ``size N``: a library of N passages (real, then generated beyond 101k) built through
   the public API (index rate per tenth), its graph caught up; then in fresh processes
   (``scale_measure``): cold start with the file cached and evicted
   (``posix_fadvise(DONTNEED)`` on the library and its graph file), and hybrid / dense /
   keyword latency (p50/p95/p99), dense recall on real and generated queries, peak RSS,
   numpy scan, LanceDB and bm25s on the same rows.
3. ``report``: the markdown table and ``benchmarks/scale.png`` (latency and recall
   against size).

    nice -n 10 python -m benchmarks.scale recall
    nice -n 10 python -m benchmarks.scale size 100000
    nice -n 10 python -m benchmarks.scale size 1000000
    python -m benchmarks.scale report
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import log
from benchmarks.scale_corpus import OUT, available
from benchmarks.scale_generator import neighbour_profile

RESULTS = OUT / "results.json"
HERE = Path(__file__).resolve().parent


def _results() -> dict[str, Any]:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def _save(key: str, value: Any) -> None:
    results = _results()
    results[key] = value
    RESULTS.write_text(json.dumps(results, indent=1))


def _exact_top10(matrix: np.ndarray, queries: np.ndarray) -> list[set[int]]:
    """Exact top 10 by cosine (vectors normalised), 32 queries per matrix product."""
    out: list[set[int]] = []
    for start in range(0, len(queries), 32):
        scores = matrix @ np.asarray(queries[start : start + 32], dtype=np.float32).T
        top = np.argpartition(-scores, 10, axis=0)[:10]
        out += [set(top[:, j].tolist()) for j in range(top.shape[1])]
    return out


def _bits_recall(matrix: np.ndarray, queries: np.ndarray, truth: list[set[int]]) -> float:
    """The old dense path: sign-bit shortlist of max(10*100, 2000), exact re-scoring."""
    from agentmaker.retrieval.sqlite.binary_index import BinaryIndex, binary_codes

    index = BinaryIndex(matrix.shape[1], [])
    index.upsert(list(range(len(matrix))), binary_codes(matrix), [()] * len(matrix))
    hits = []
    for q, t in zip(queries, truth, strict=True):
        short = index.shortlist(binary_codes(q)[0], 2000)
        best = short[np.argsort(-(matrix[short] @ q))[:10]]
        hits.append(len(set(best.tolist()) & t) / 10)
    return round(float(np.mean(hits)), 4)


def _graph_recall(
    matrix: np.ndarray, batches: list[tuple[np.ndarray, list[set[int]]]]
) -> list[float]:
    """The new dense path: an index configured as ``GraphIndex`` configures it."""
    from agentmaker.retrieval.sqlite.db import SqliteDatabase
    from agentmaker.retrieval.sqlite.graph_index import GraphIndex

    db = SqliteDatabase()
    config = GraphIndex(db, "v", matrix.shape[1])
    index = config._new_index()
    index.add(np.arange(len(matrix), dtype=np.uint64), matrix, threads=2)
    out = []
    for queries, truth in batches:
        hits = []
        for q, t in zip(queries, truth, strict=True):
            keys = np.asarray(index.search(q, 100, threads=1).keys, dtype=np.int64)
            best = keys[np.argsort(-(matrix[keys] @ q))[:10]]
            hits.append(len(set(best.tolist()) & t) / 10)
        out.append(round(float(np.mean(hits)), 4))
    db.close()
    return out


def recall(model: str) -> dict[str, Any]:
    """Step 1 for one model."""
    from benchmarks.scale_data import generated_passages, generated_queries

    load = os.getloadavg()
    real_p, real_q = available(model)  # e5 may still be embedding: what is there
    real_p = np.ascontiguousarray(real_p, dtype=np.float32)
    gen_p = np.ascontiguousarray(generated_passages(model, len(real_p)), dtype=np.float32)
    gen_q = generated_queries(model)
    log(f"{model}: exact neighbours")
    truth_real = _exact_top10(real_p, real_q)
    truth_gen = _exact_top10(gen_p, gen_q)
    truth_mixed = _exact_top10(gen_p, real_q)
    log(f"{model}: sign-bit shortlist")
    bits = {
        "real": _bits_recall(real_p, real_q, truth_real),
        "generated": _bits_recall(gen_p, gen_q, truth_gen),
        "generated corpus, real queries": _bits_recall(gen_p, real_q, truth_mixed),
    }
    log(f"{model}: graph on real vectors")
    (graph_real,) = _graph_recall(real_p, [(real_q, truth_real)])
    log(f"{model}: graph on generated vectors")
    graph_gen, graph_mixed = _graph_recall(gen_p, [(gen_q, truth_gen), (real_q, truth_mixed)])
    result = {
        "model": model,
        "passages": len(real_p),
        "queries": len(real_q),
        "bits_2000": bits,
        "graph": {
            "real": graph_real,
            "generated": graph_gen,
            "generated corpus, real queries": graph_mixed,
        },
        "profile": {
            "real": neighbour_profile(real_p, real_q[:400]),
            "generated": neighbour_profile(gen_p, gen_q[:400]),
        },
        "load": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    _save(f"recall_{model}", result)
    return result


def small_sizes(
    model: str, sizes: tuple[int, ...] = (2000, 5000, 10000, 20000)
) -> dict[int, float]:
    """The old shortlist's recall on random subsets of the real passages (every third
    question): where a library should switch to the graph."""
    real_p, real_q = available(model)
    queries = np.asarray(real_q)[::3]
    rng = np.random.default_rng(0)
    out = {}
    for n in sizes:
        subset = np.ascontiguousarray(
            np.asarray(real_p)[np.sort(rng.choice(len(real_p), n, replace=False))]
        )
        out[n] = _bits_recall(subset, queries, _exact_top10(subset, queries))
    _save(f"small_{model}", out)
    return out


def _child(args: list[str]) -> dict[str, Any]:
    env = dict(os.environ)
    done = subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    parsed: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return parsed


def size(n: int, model: str = "minilm", *, peers: bool = True) -> dict[str, Any]:
    """Step 2 for one size."""
    log(f"building {n}")
    built = _child(["benchmarks.scale", "build", str(n), "--model", model])
    common = ["--model", model, "--size", str(n)]
    log(f"cold start {n}")
    _child(["benchmarks.scale_measure", "cold", *common])  # brings the file into the cache
    cached = _child(["benchmarks.scale_measure", "cold", *common])
    evicted = _child(["benchmarks.scale_measure", "cold", *common, "--evict"])
    log(f"latency {n}")
    extra = [] if peers else ["--no-peers"]
    measured = _child(["benchmarks.scale_measure", "latency", *common, *extra])
    result = {"build": built, "cold_cached": cached, "cold_evicted": evicted, **measured}
    _save(f"size_{model}_{n}", result)
    return result


def _row(label: str, values: list[str]) -> str:
    return f"| {label} | " + " | ".join(values) + " |"


def report() -> str:
    """The markdown tables of everything measured so far, and the plot."""
    results = _results()
    lines = ["### Real recall@10 of the dense index at ~100k (exact search as truth)", ""]
    lines.append(
        "| model | corpus / queries | sign-bit shortlist 2,000 | HNSW graph (100 re-scored) |"
    )
    lines.append("|---|---|---|---|")
    for model in ("minilm", "e5"):
        r = results.get(f"recall_{model}")
        if not r:
            continue
        for kind in ("real", "generated", "generated corpus, real queries"):
            lines.append(f"| {model} | {kind} | {r['bits_2000'][kind]} | {r['graph'][kind]} |")
        if r["passages"] < 100_000:
            lines.append(f"| {model} | (only the first {r['passages']:,} passages embedded) | | |")
        lines.append(
            f"| {model} | profile real / generated (top1, top10, gap 10-100) | "
            f"{tuple(r['profile']['real'].values())} | "
            f"{tuple(r['profile']['generated'].values())} |"
        )
    sizes = sorted(
        (v for k, v in results.items() if k.startswith("size_minilm_")), key=lambda v: v["n"]
    )
    if sizes:
        lines += ["", "### By size (all-MiniLM-L6-v2 vectors; ms; load = 1-min load average)", ""]
        lines.append("| | " + " | ".join(f"{s['n']:,}" for s in sizes) + " |")
        lines.append("|---|" + "---|" * len(sizes))

        def fmt(d: dict[str, float]) -> str:
            return f"{d['p50']} / {d['p95']} / {d['p99']}"

        lines.append(_row("hybrid p50/p95/p99", [fmt(s["hybrid"]) for s in sizes]))
        before = [s.get("main_before_keyword_copy") for s in sizes]
        lines.append(
            _row(
                "hybrid before the keyword copy (FTS5 only)",
                [fmt(b["hybrid"]) if b else "-" for b in before],
            )
        )
        lines.append(_row("dense leg p50/p95/p99", [fmt(s["dense"]) for s in sizes]))
        for k in ("1w", "3w", "8w"):
            lines.append(_row(f"keyword leg {k}", [fmt(s["keyword"][k]) for s in sizes]))
            lines.append(
                _row(
                    f"keyword leg {k} before the copy (FTS5)",
                    [fmt(b["keyword"][k]) if b else "-" for b in before],
                )
            )
        lines.append(_row("numpy scan p50/p95/p99", [fmt(s["numpy_scan"]) for s in sizes]))
        lines.append(
            _row("dense recall@10 real queries", [str(s["dense_recall@10"]["real"]) for s in sizes])
        )
        lines.append(
            _row(
                "dense recall@10 generated queries",
                [str(s["dense_recall@10"]["generated"]) for s in sizes],
            )
        )
        lines.append(
            _row(
                "old sign-bit shortlist recall@10, real queries",
                [str(s.get("bits_2000_recall@10_real", "-")) for s in sizes],
            )
        )
        lines.append(
            _row(
                "index rate items/s (first / last tenth)",
                [
                    f"{s['build']['rate_first_tenth']} / {s['build']['rate_last_tenth']}"
                    for s in sizes
                ],
            )
        )
        lines.append(
            _row(
                "graph catch-up after ingest (s)",
                [str(s["build"]["graph_catch_up_seconds"]) for s in sizes],
            )
        )
        lines.append(
            _row(
                "file MB (library + graph)",
                [
                    f"{s['build']['library_bytes'] / 1e6:.0f} + "
                    f"{s['build']['graph_bytes'] / 1e6:.0f}"
                    for s in sizes
                ],
            )
        )
        copies = [results.get(f"tantivy_{s['n']}", {}) for s in sizes]
        lines.append(
            _row(
                "keyword copy (tantivy): first build s (rows/s), MB",
                [
                    f"{c['rebuild']['seconds']} ({c['rebuild']['rows_per_s']:,}), {c['cache_mb']}"
                    if c.get("rebuild")
                    else "-"
                    for c in copies
                ],
            )
        )
        lines.append(
            _row(
                "keyword leg served by",
                [s.get("keyword_index", {}).get("served_by", "fts5") for s in sizes],
            )
        )
        lines.append(_row("peak RSS MB (ours)", [str(s["peak_rss_mb"]) for s in sizes]))
        for key, label in (("cold_cached", "cached"), ("cold_evicted", "evicted")):
            lines.append(
                _row(
                    f"open + first search, {label} (s)",
                    [
                        f"{s[key]['first_search_s']} ({s[key]['graph_status_at_first_search']})"
                        for s in sizes
                    ],
                )
            )
        lines.append(
            _row(
                "LanceDB hybrid p50/p95/p99",
                [fmt(s["lancedb"]["hybrid"]) if "lancedb" in s else "-" for s in sizes],
            )
        )
        lines.append(
            _row(
                "LanceDB FTS 8w",
                [fmt(s["lancedb"]["fts_8w"]) if "lancedb" in s else "-" for s in sizes],
            )
        )
        lines.append(
            _row("bm25s 8w", [fmt(s["bm25s"]["8w"]) if "bm25s" in s else "-" for s in sizes])
        )
        lines.append(
            _row(
                "load before / after",
                [f"{s['load_before'][0]} / {s['load_after'][0]}" for s in sizes],
            )
        )
        _plot(sizes)
    text = "\n".join(lines)
    (OUT / "report.md").write_text(text + "\n")
    return text


def _plot(sizes: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = [s["n"] for s in sizes]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for label, get in (
        ("hybrid p50", lambda s: s["hybrid"]["p50"]),
        ("hybrid p95", lambda s: s["hybrid"]["p95"]),
        ("dense p50", lambda s: s["dense"]["p50"]),
        ("keyword 8w p95", lambda s: s["keyword"]["8w"]["p95"]),
        ("numpy scan p50", lambda s: s["numpy_scan"]["p50"]),
        ("LanceDB hybrid p50", lambda s: s.get("lancedb", {}).get("hybrid", {}).get("p50", np.nan)),
    ):
        left.plot(ns, [get(s) for s in sizes], marker="o", label=label)
    left.set(xscale="log", yscale="log", xlabel="passages", ylabel="ms", title="latency")
    left.legend(fontsize=7)
    for label, key in (("real queries", "real"), ("generated queries", "generated")):
        right.plot(ns, [s["dense_recall@10"][key] for s in sizes], marker="o", label=label)
    right.set(
        xscale="log",
        xlabel="passages",
        ylabel="recall@10",
        title="dense recall@10",
        ylim=(0.8, 1.0),
    )
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(HERE / "scale.png", dpi=90)


def run(sizes: list[int]) -> dict[str, Any]:
    """Everything, for ``python -m benchmarks --only scale`` (cached steps are reused)."""
    for model in ("minilm", "e5"):
        if f"recall_{model}" not in _results():
            recall(model)
    for n in sizes:
        if f"size_minilm_{n}" not in _results():
            size(n)
    report()
    return _results()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("step", choices=("recall", "small", "build", "size", "report"))
    parser.add_argument("n", type=int, nargs="?")
    parser.add_argument("--model", default=None)
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    if args.step == "recall":
        for model in [args.model] if args.model else ["minilm", "e5"]:
            print(json.dumps(recall(model), indent=1))
    elif args.step == "small":
        for model in [args.model] if args.model else ["minilm", "e5"]:
            print(model, small_sizes(model))
    elif args.step == "build":
        from agentmaker.retrieval.sqlite import graph_index

        from benchmarks.scale_data import build_library

        graph_index.DEFAULT_THREADS = 2  # the benchmark's build may use both cores
        print(json.dumps(build_library(args.model or "minilm", args.n)))
    elif args.step == "size":
        print(json.dumps(size(args.n, args.model or "minilm", peers=not args.no_peers), indent=1))
    if args.step != "build":
        print(report())


if __name__ == "__main__":
    main()
