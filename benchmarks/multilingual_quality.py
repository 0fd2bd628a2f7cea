"""Retrieval quality, all-MiniLM-L6-v2 vs multilingual-e5-small: Chinese, English->Chinese,
English (SciFact train).

Data (``../shared/bench``; evaluation only, never shipped):

* ``rgb-zh``: RGB's 150 Chinese questions over 7,337 Chinese news passages (dev qrels);
* ``rgb-en``: 45 of those questions asked in English (``benchmarks/data/``, written
  for this project), over the same Chinese passages;
* ``scifact``: BEIR SciFact train (809 claims, 5,183 abstracts).

Each corpus is ingested as the app does (``IngestionPipeline`` into
``build_sqlite_hybrid``, heading contextualizer; ``beir_quality.open_library``), once
per model. Rows: the keyword leg (FTS5 with CJK bigrams), the dense leg (queries via
``embed_queries``: e5's ``query:`` prefix) and the product default (``ScoreFusion``,
raw cosine x ``dense_weight`` + bm25/best x (1 - ``dense_weight``), pool 20).
Metrics: nDCG@10 and Recall@100 by document (best chunk).

The dense weight is tuned on half A of each dataset's queries (``beir_quality.halves``)
and confirmed on half B. ``--keyword`` also compares the Chinese keyword leg's
tokenisation (bigrams vs jieba, same BM25: ``bm25s``).

Vectors are cached per text in ``$AGENTMAKER_EMBCACHE`` (default ``benchmarks/out``).

    .venv/bin/python -m benchmarks.multilingual_quality [--models minilm,e5] [--keyword]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from agentmaker.models.local_embedder import E5_SMALL, LocalEmbedder
from agentmaker.retrieval import text_analysis

from benchmarks.beir_quality import (
    Beir,
    BeirLibrary,
    dense_leg,
    doc_run,
    fuse_convex,
    halves,
    keyword_leg,
    load_beir,
    open_library,
)
from benchmarks.common import OUT, SCIFACT, CachedEmbedder, embedder_key, log
from benchmarks.metrics import evaluate

BENCH = SCIFACT.parent
RGB = BENCH / "rgb-zh"
RGB_EN = Path(__file__).resolve().parent / "data" / "rgb_zh_en_queries.jsonl"
CACHE = Path(os.environ.get("AGENTMAKER_EMBCACHE", str(OUT)))
#: The product default today (RetrievalConfig): score fusion, pool 20, dense weight 0.7.
POOL, DEPTH, PRODUCT_WEIGHT = 20, 100, 0.7
WEIGHTS = (0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99)
#: How each leg's scores are normalised before weighting: the product's (raw cosine,
#: bm25 / best) and min-max of both (within the pool).
METHODS = {"score": "raw_max", "minmax": "minmax"}


def datasets() -> dict[str, Beir]:
    rgb = load_beir(RGB, "dev")
    english = {}
    with RGB_EN.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            english[row["_id"]] = row["text"]
    rgb_en = Beir(
        "rgb-zh",  # same corpus: the same library
        rgb.docs,
        english,
        {q: rgb.qrels[q] for q in english if q in rgb.qrels},
        rgb.corpus_hash,
    )
    return {"rgb-zh": rgb, "rgb-en": rgb_en, "scifact": load_beir(SCIFACT, "train")}


def make_embedder(model: str) -> CachedEmbedder:
    inner = LocalEmbedder(model=E5_SMALL) if model == "e5" else LocalEmbedder()
    CACHE.mkdir(parents=True, exist_ok=True)
    return CachedEmbedder(inner, path=CACHE / f"embcache_{embedder_key(inner)}.sqlite")


def _metrics(
    lib: BeirLibrary, beir: Beir, run10: dict[str, list[Any]], run100: dict[str, list[Any]]
) -> dict[str, dict[str, float]]:
    out = {}
    qids = beir.query_ids
    a, b = halves(qids)
    for name, queries in (("all", qids), ("A", a), ("B", b)):
        n = evaluate(doc_run(lib, run10), beir.qrels, queries=queries)["ndcg"]
        r = evaluate(doc_run(lib, run100), beir.qrels, queries=queries)["recall"]
        out[name] = {"ndcg": n, "recall": r}
    return out


def study(beir: Beir, lib: BeirLibrary, embedder: CachedEmbedder) -> dict[str, Any]:
    qids = beir.query_ids
    texts = {q: beir.queries[q] for q in qids}
    vectors = dict(zip(qids, embedder.embed_queries([texts[q] for q in qids]), strict=True))
    dense = dense_leg(lib, vectors, DEPTH)
    keyword = keyword_leg(lib, texts, DEPTH)
    rows: dict[str, Any] = {
        "keyword": _metrics(lib, beir, keyword, keyword),
        "dense": _metrics(lib, beir, dense, dense),
    }
    for label, method in METHODS.items():
        for weight in WEIGHTS:
            fused10 = fuse_convex(dense, keyword, pool=POOL, alpha=weight, method=method)
            fused100 = fuse_convex(dense, keyword, pool=DEPTH, alpha=weight, method=method)
            rows[f"{label} w={weight}"] = _metrics(lib, beir, fused10, fused100)
    return rows


def tuned(result: dict[str, Any], model: str, names: Sequence[str]) -> dict[str, Any]:
    """The fusion row with the best mean nDCG@10 over the datasets' half A, and its
    half-B figures (the held-out confirmation)."""
    studies = [result[model][n] for n in names if n in result.get(model, {})]
    if not studies:
        return {}
    candidates = [r for r in studies[0] if r.startswith(tuple(METHODS))]
    best = max(candidates, key=lambda r: float(np.mean([s[r]["A"]["ndcg"] for s in studies])))
    return {
        "row": best,
        "A": {n: result[model][n][best]["A"]["ndcg"] for n in names if n in result[model]},
        "B": {n: result[model][n][best]["B"]["ndcg"] for n in names if n in result[model]},
    }


# --- the Chinese keyword leg: bigrams vs jieba (same BM25) -------------------------------


def _bigram_tokens(text: str) -> list[str]:
    return text_analysis.index_text(text).lower().split()


def _jieba_tokens(text: str) -> list[str]:
    import jieba

    return [t.lower() for t in jieba.cut_for_search(text) if t.strip() and not _punct(t)]


def _punct(token: str) -> bool:
    return all(not ch.isalnum() for ch in token)


def keyword_tokenisers(beir: Beir, queries: Sequence[str]) -> dict[str, dict[str, float]]:
    import bm25s

    out = {}
    ids = [d["id"] for d in beir.docs]
    for name, tokens in (("bigrams", _bigram_tokens), ("jieba", _jieba_tokens)):
        started = time.perf_counter()
        corpus = [tokens(f"{d['title']} {d['text']}") for d in beir.docs]
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        index_seconds = time.perf_counter() - started
        run = {}
        for q in queries:
            terms = [t for t in tokens(beir.queries[q]) if t in retriever.vocab_dict]
            if not terms:
                run[q] = []
                continue
            scores = retriever.get_scores(terms)
            top = np.argsort(-scores)[:DEPTH]
            run[q] = [ids[i] for i in top if scores[i] > 0]
        ndcg = evaluate({q: r[:10] for q, r in run.items()}, beir.qrels, queries=queries)["ndcg"]
        recall = evaluate(run, beir.qrels, queries=queries)["recall"]
        out[name] = {"ndcg": ndcg, "recall": recall, "index_seconds": index_seconds}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="minilm,e5")
    parser.add_argument("--datasets", default="rgb-zh,rgb-en,scifact")
    parser.add_argument("--keyword", action="store_true", help="bigrams vs jieba on rgb-zh")
    parser.add_argument(
        "--before", action="store_true", help="the keyword leg's query split before the fix"
    )
    args = parser.parse_args(argv)
    if args.before:  # "2021年中国" was one unsearchable word
        import re

        cjk = text_analysis._CJK
        text_analysis._WORD = re.compile(rf"[{cjk}]+|[^\W_]+", re.UNICODE)
    data = datasets()
    result: dict[str, Any] = {"load": os.getloadavg()}
    if args.keyword:
        rgb = data["rgb-zh"]
        result["keyword_tokenisers"] = keyword_tokenisers(rgb, rgb.query_ids)
        log(f"keyword tokenisers: {result['keyword_tokenisers']}")
    for model in args.models.split(","):
        embedder = make_embedder(model)
        try:
            libraries: dict[str, BeirLibrary] = {}
            for name in args.datasets.split(","):
                beir = data[name]
                if beir.name not in libraries:
                    libraries[beir.name] = open_library(beir, "heading", embedder)
                log(f"{model} / {name}")
                result.setdefault(model, {})[name] = study(beir, libraries[beir.name], embedder)
            for lib in libraries.values():
                lib.close()
        finally:
            embedder.close()
    result["load_after"] = os.getloadavg()
    names = args.datasets.split(",")
    result["tuned"] = {m: tuned(result, m, names) for m in args.models.split(",")}
    OUT.mkdir(parents=True, exist_ok=True)
    tag = f"{args.models}_{args.datasets}{'_before' if args.before else ''}".replace(",", "+")
    path = OUT / f"multilingual_quality_{tag}.json"
    path.write_text(json.dumps(result, indent=1))
    print(report(result))
    print(json.dumps(result["tuned"], indent=1))


def report(result: dict[str, Any]) -> str:
    lines = []
    for model in ("minilm", "e5"):
        for name, rows in result.get(model, {}).items():
            for row, m in rows.items():
                a, b, everything = m["A"], m["B"], m["all"]
                lines.append(
                    f"| {name} | {model} | {row} | {everything['ndcg']:.3f} | "
                    f"{everything['recall']:.3f} | {a['ndcg']:.3f} | {b['ndcg']:.3f} |"
                )
    header = (
        "| data | model | run | nDCG@10 | Recall@100 | nDCG@10 A | nDCG@10 B |\n"
        "|---|---|---|---|---|---|---|"
    )
    return header + "\n" + "\n".join(lines)


if __name__ == "__main__":
    main()
