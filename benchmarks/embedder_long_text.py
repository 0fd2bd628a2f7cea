"""Long texts and the 256-token window of the local embedder, measured on BEIR SciFact.

Compares ``LocalEmbedder(long_text="truncate")`` (first 256 tokens) with
``long_text="mean"`` (overlapping 256-token windows, mean of the normalised window
vectors, renormalised) by brute-force dense retrieval (numpy dot products) over the
SciFact corpus (title + text) with the train queries and qrels.

    .venv/bin/python benchmarks/embedder_long_text.py            # full run, ~15 min on 2 cores
    .venv/bin/python benchmarks/embedder_long_text.py --limit 300  # smoke run

Vectors are cached in ``benchmarks/out/`` (gitignored) and reused; the report goes to
``benchmarks/out/embedder_long_text.md``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.models.local_embedder import MAX_TOKENS, LocalEmbedder
from agentmaker.rag.answer.extractive import split_sentences

DATA = Path(os.environ.get("SCIFACT_DIR", "/work/shared/bench/scifact"))
OUT = Path(__file__).resolve().parent / "out"


def load_scifact(
    limit: int | None,
) -> tuple[list[str], list[str], dict[str, str], dict, dict[str, dict]]:
    docs = [json.loads(line) for line in (DATA / "corpus.jsonl").open(encoding="utf-8")]
    raw_queries = [json.loads(line) for line in (DATA / "queries.jsonl").open(encoding="utf-8")]
    queries = {q["_id"]: q["text"] for q in raw_queries}
    # SciFact's evidence: {doc id: [{"sentences": [i, ...], "label": ...}]} per query.
    evidence = {q["_id"]: q.get("metadata") or {} for q in raw_queries}
    qrels: dict[str, dict[str, int]] = {}
    with (DATA / "qrels" / "train.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    if limit is not None:
        # Keep every document relevant to the first queries, pad with others.
        keep_q = sorted(qrels, key=int)[: max(1, limit // 4)]
        wanted = {d for q in keep_q for d in qrels[q]}
        chosen = [d for d in docs if d["_id"] in wanted]
        chosen += [d for d in docs if d["_id"] not in wanted][: max(0, limit - len(chosen))]
        docs = chosen
        qrels = {q: qrels[q] for q in keep_q}
    doc_ids = [d["_id"] for d in docs]
    texts = [f"{d.get('title', '')} {d['text']}".strip() for d in docs]
    queries = {q: queries[q] for q in qrels if q in queries}
    return doc_ids, texts, queries, qrels, evidence


def embed_cached(
    name: str, embedder: LocalEmbedder, texts: list[str], batch: int = 256
) -> tuple[np.ndarray, float]:
    """Embed ``texts`` (or load the cached vectors); returns vectors and seconds spent."""
    key = hashlib.sha256(
        (str(embedder.fingerprint) + "\x00" + "\x00".join(texts)).encode()
    ).hexdigest()[:16]
    path = OUT / f"vectors_{name}_{key}.npy"
    if path.exists():
        return np.load(path), 0.0
    started = time.perf_counter()
    parts = []
    for i in range(0, len(texts), batch):
        parts.append(embedder.embed_batch(texts[i : i + batch]))
        done = min(i + batch, len(texts))
        rate = done / (time.perf_counter() - started)
        print(f"  {name}: {done}/{len(texts)} ({rate:.1f} texts/s)", file=sys.stderr, flush=True)
    vectors = np.concatenate(parts) if parts else np.zeros((0, 384), np.float32)
    np.save(path, vectors)
    return vectors, time.perf_counter() - started


def ndcg_at_k(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    """Standard nDCG@k: gains from qrels, discount 1/log2(rank + 1)."""
    dcg = sum(rels.get(d, 0) / math.log2(r + 2) for r, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def evaluate(
    doc_vecs: np.ndarray,
    doc_ids: list[str],
    query_vecs: np.ndarray,
    query_ids: list[str],
    qrels: dict,
    subset: set[str] | None = None,
) -> dict[str, Any]:
    scores = query_vecs @ doc_vecs.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, :100]
    ndcgs, recalls = [], []
    for row, qid in enumerate(query_ids):
        if subset is not None and qid not in subset:
            continue
        ranked = [doc_ids[j] for j in top[row]]
        rels = qrels[qid]
        ndcgs.append(ndcg_at_k(ranked, rels))
        relevant = {d for d, g in rels.items() if g > 0}
        recalls.append(len(relevant & set(ranked)) / len(relevant))
    return {
        "ndcg@10": float(np.mean(ndcgs)) if ndcgs else float("nan"),
        "recall@100": float(np.mean(recalls)) if recalls else float("nan"),
        "queries": len(ndcgs),
        "per_query": ndcgs,
    }


def evidence_start_tokens(
    embedder: LocalEmbedder, title: str, text: str, sentence: int
) -> int | None:
    """Token offset (in the embedded "title text") where evidence sentence ``sentence``
    starts, by re-splitting the abstract into sentences (approximate alignment)."""
    sentences = split_sentences(text)
    if sentence >= len(sentences):
        return None
    before = " ".join([title, *sentences[:sentence]]).strip()
    return embedder.count_tokens(before)


def tail_evidence_queries(
    embedder: LocalEmbedder,
    docs_by_id: dict[str, tuple[str, str]],
    evidence: dict[str, dict],
    query_ids: list[str],
    content: int,
) -> set[str]:
    """Queries whose every evidence sentence starts beyond the first window."""
    tail = set()
    for qid in query_ids:
        starts = []
        for doc_id, entries in evidence.get(qid, {}).items():
            if doc_id not in docs_by_id:
                continue
            title, text = docs_by_id[doc_id]
            for entry in entries:
                for index in entry.get("sentences", []):
                    starts.append(evidence_start_tokens(embedder, title, text, index))
        if starts and all(s is not None and s >= content for s in starts):
            tail.add(qid)
    return tail


def paired_bootstrap(a: list[float], b: list[float], rounds: int = 5000) -> tuple[float, float]:
    """95% confidence interval of mean(b - a) over queries (paired bootstrap)."""
    diff = np.asarray(b) - np.asarray(a)
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), size=(rounds, len(diff)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="documents to use (smoke run)")
    parser.add_argument("--overlap", type=int, default=32, help="window overlap in tokens")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)

    doc_ids, texts, queries, qrels, evidence = load_scifact(args.limit)
    query_ids = list(queries)
    truncate = LocalEmbedder(long_text="truncate")
    mean = LocalEmbedder(long_text="mean", window_overlap=args.overlap)

    lengths = np.array([truncate.count_tokens(t) for t in texts])
    content = MAX_TOKENS - 2
    stride = content - args.overlap
    is_long = lengths > content
    print(
        f"{len(texts)} docs, {int(is_long.sum())} longer than {content} tokens, "
        f"{len(query_ids)} queries",
        file=sys.stderr,
    )
    # Tokens the model processes in each mode (windows incl. [CLS]/[SEP]).
    trunc_tokens = int(np.minimum(lengths, content).sum() + 2 * len(lengths))
    mean_tokens = 0
    for n in lengths:
        windows = 1 if n <= content else len([*range(0, n - content, stride)]) + 1
        mean_tokens += int(n) + 2 if windows == 1 else windows * MAX_TOKENS

    query_vecs, _ = embed_cached("queries", truncate, [queries[q] for q in query_ids])
    trunc_vecs, trunc_s = embed_cached("docs_truncate", truncate, texts)
    # Texts that fit in one window get the same vector either way: embed only long ones.
    long_idx = np.flatnonzero(is_long)
    long_vecs, mean_s = embed_cached(
        f"docs_long_mean_o{args.overlap}", mean, [texts[i] for i in long_idx]
    )
    mean_vecs = trunc_vecs.copy()
    mean_vecs[long_idx] = long_vecs

    long_docs = {doc_ids[i] for i in long_idx}
    long_queries = {q for q, rels in qrels.items() if any(d in long_docs for d in rels)}
    corpus = {
        json.loads(line)["_id"]: json.loads(line)
        for line in (DATA / "corpus.jsonl").open(encoding="utf-8")
    }
    docs_by_id = {d: (corpus[d].get("title", ""), corpus[d]["text"]) for d in doc_ids}
    tail_queries = tail_evidence_queries(truncate, docs_by_id, evidence, query_ids, content)
    subsets: list[tuple[str, set[str] | None]] = [
        ("all queries", None),
        ("a relevant doc is longer than the window", long_queries),
        ("all evidence sentences start after token 254", tail_queries),
    ]

    results: dict[str, list[dict]] = {}
    for label, vecs in (("truncate", trunc_vecs), ("mean", mean_vecs)):
        results[label] = [
            evaluate(vecs, doc_ids, query_vecs, query_ids, qrels, subset) for _, subset in subsets
        ]

    winner = (
        "mean"
        if results["mean"][0]["ndcg@10"] > results["truncate"][0]["ndcg@10"]
        else ("truncate")
    )
    lines = [
        "# Local embedder: long texts (BEIR SciFact, train queries)",
        "",
        f"- model: `{truncate.fingerprint}`, window {MAX_TOKENS} tokens incl. [CLS]/[SEP]; "
        f"`mean`: windows every {stride} tokens (overlap ≥ {args.overlap}), the last one "
        "aligned to the text's end, mean of the normalised window vectors, renormalised",
        f"- corpus: {len(texts)} docs (title + text), {int(is_long.sum())} "
        f"({is_long.mean():.0%}) longer than {content} content tokens; "
        f"median {int(np.median(lengths))} tokens, p90 {int(np.percentile(lengths, 90))}",
        f"- queries: {len(query_ids)} (qrels/train.tsv)",
        "- retrieval: exact cosine (numpy brute force); nDCG@10 with qrels gains and "
        "1/log2(rank+1) discount; recall@100; Δ = mean − truncate with a 95% paired "
        "bootstrap interval over queries",
        f"- cost: truncate embeds {trunc_tokens:,} tokens, mean {mean_tokens:,} "
        f"(×{mean_tokens / trunc_tokens:.2f})"
        + (
            f"; wall time {trunc_s:.0f} s (all docs) vs {mean_s:.0f} s (long docs only) "
            "on a shared, heavily loaded machine"
            if trunc_s and mean_s
            else ""
        ),
        "",
        "| queries | n | nDCG@10 truncate | nDCG@10 mean | Δ nDCG@10 [95% CI] "
        "| recall@100 truncate | recall@100 mean |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for i, (name, _) in enumerate(subsets):
        t, m = results["truncate"][i], results["mean"][i]
        if not t["queries"]:
            continue
        low, high = paired_bootstrap(t["per_query"], m["per_query"])
        lines.append(
            f"| {name} | {t['queries']} | {t['ndcg@10']:.4f} | {m['ndcg@10']:.4f} | "
            f"{m['ndcg@10'] - t['ndcg@10']:+.4f} [{low:+.4f}, {high:+.4f}] | "
            f"{t['recall@100']:.4f} | {m['recall@100']:.4f} |"
        )
    lines += ["", f"Higher nDCG@10 over all queries: **{winner}**.", ""]
    report = "\n".join(lines)
    suffix = "" if args.limit is None else f"_limit{args.limit}"
    (OUT / f"embedder_long_text{suffix}.md").write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
