"""Citation quality on corpus/QA.tsv with the real local embedder, through ``Library``.

For each question, ``library.rag.retrieve(question, top_k=5)``. A hit *holds the
answer* when it comes from the expected file and its text contains the expected
substring (whitespace-normalised, case-insensitive, backticks ignored); it *carries the
right location* when its page equals the expected page, its heading path starts with
the expected path, or (``line N`` locations) always - the rules of
``tests/engine/test_corpus.py``.

Reported: answer in the top 1 / top 5, and right location among those, for the
product defaults, with the spec's RRF instead, with a neighbour window of 1, and for
each leg alone.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from agentmaker.retrieval.fusion import LEG_RANK_KEYS, RRFFusion
from agentmaker.retrieval.types import RetrievalResult, Scope

from benchmarks.common import CORPUS, CachedEmbedder, local_embedder

RAG = Scope(base="rag")


def qa_rows() -> list[dict[str, str]]:
    with open(CORPUS / "QA.tsv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def holds_answer(hit: RetrievalResult, row: dict[str, str]) -> bool:
    want = _norm(row["expected_answer_substring"]).strip("`")
    return Path(hit.source).name == Path(row["file"]).name and want in _norm(hit.content).replace(
        "`", ""
    )


def right_location(hit: RetrievalResult, row: dict[str, str]) -> bool:
    location = row["location"]
    if location.startswith("page "):
        return hit.metadata.get("page") == int(location.split()[1])
    if location.startswith("line "):
        return True
    path = location.split(" (")[0]
    return str(hit.metadata.get("heading_path", "")).startswith(path)


def score(hits_per_question: list[list[RetrievalResult]], rows: list[dict[str, str]]) -> dict:
    top1 = top5 = loc1 = loc5 = 0
    misses = []
    for hits, row in zip(hits_per_question, rows, strict=True):
        good = [h for h in hits[:5] if holds_answer(h, row)]
        if hits and holds_answer(hits[0], row):
            top1 += 1
            loc1 += right_location(hits[0], row)
        if good:
            top5 += 1
            loc5 += any(right_location(h, row) for h in good)
        else:
            misses.append(row["question"])
    return {
        "questions": len(rows),
        "answer_top1": top1,
        "answer_top5": top5,
        "located_top1": loc1,
        "located_top5": loc5,
        "misses": misses,
    }


def _leg_hits(library: Any, question: str, leg: str) -> list[RetrievalResult]:
    """One leg alone, completed from the source store like the product's hits."""
    retriever = library.retriever
    if leg == "dense":
        raw = retriever.vector_store.search(
            retriever.embedder.embed_query(question), top_k=8, scope=RAG
        )
    else:
        raw = retriever.keyword_index.search(question, top_k=8, scope=RAG)
    return library.rag._complete(raw, 5)


def run(path: Path) -> dict[str, Any]:
    from agentmaker.library import Library
    from agentmaker.rag.answer.expanders import NeighborWindowExpander
    from agentmaker.rag.config import RagConfig

    rows = qa_rows()
    embedder = CachedEmbedder(local_embedder())
    library = Library.open(path, embedder=embedder, config=RagConfig())
    out: dict[str, Any] = {"library": path.name}
    try:
        out["chunks"] = library.source_store.count_chunks()
        out["documents"] = library.source_store.count_documents()
        results = {}
        results["product default"] = score(
            [library.rag.retrieve(r["question"], top_k=5) for r in rows], rows
        )
        fusion = library.retriever.fusion
        library.retriever.fusion = RRFFusion(60, rank_keys=LEG_RANK_KEYS)
        results["RRF k=60 (the spec's default fusion)"] = score(
            [library.rag.retrieve(r["question"], top_k=5) for r in rows], rows
        )
        library.retriever.fusion = fusion
        saved = library.rag.expander
        library.rag.expander = NeighborWindowExpander(1)
        results["neighbour window 1"] = score(
            [library.rag.retrieve(r["question"], top_k=5) for r in rows], rows
        )
        library.rag.expander = saved
        for leg in ("dense", "keyword"):
            results[f"{leg} leg alone"] = score(
                [_leg_hits(library, r["question"], leg) for r in rows], rows
            )
        out["results"] = results
        out["query_vectors_from_cache"] = embedder.misses == 0
    finally:
        library.close()
    return out
