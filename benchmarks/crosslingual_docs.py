"""English questions on a German document: all-MiniLM-L6-v2 vs multilingual-e5-small.

``../shared/corpus/good/GeoTopo-komprimiert.pdf`` (117 pages of German lecture notes on
geometry and topology) is ingested as the app does (``Library``, heading context), once
per model; 15 English questions written for this project each name the page that holds
the definition or theorem asked about (found by its German heading, "Definition 16 Ein
topologischer Raum X heißt kompakt ..."). A hit is a chunk on that page. Rows: the
keyword leg, the dense leg and the product default (``Library.rag.retrieve``), nDCG@10
and Recall@100 by page. The corpus has no French document, so French is not measured.

    .venv/bin/python -m benchmarks.crosslingual_docs
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from agentmaker.library import Library
from agentmaker.models.local_embedder import E5_SMALL, LocalEmbedder
from agentmaker.retrieval.types import Scope

from benchmarks.common import CORPUS, OUT
from benchmarks.metrics import evaluate

PDF = CORPUS / "good" / "GeoTopo-komprimiert.pdf"
RAG = Scope(base="rag")
#: English question -> the page (1-based) with the German definition or theorem.
QUESTIONS = {
    "What is the definition of a topological space?": 6,
    "When is a topological space called Hausdorff?": 12,
    "What does it mean for a topological space to be compact?": 18,
    "What does the Heine-Borel theorem say?": 21,
    "When is a space called path-connected?": 22,
    "What does the Jordan curve theorem state?": 23,
    "When is a knot diagram 3-colourable?": 25,
    "What is a simplicial complex?": 38,
    "What is Euler's polyhedron formula?": 42,
    "When are two paths homotopic?": 48,
    "What is a simply connected space?": 53,
    "What does the Seifert-van Kampen theorem say?": 54,
    "What is a covering map?": 55,
    "What does Pasch's axiom (theorem of Pasch) say?": 70,
    "How is the Pythagorean theorem stated in these notes?": 79,
}


def _pages(hits: list[Any]) -> list[str]:
    return list(dict.fromkeys(str(h.metadata.get("page")) for h in hits))


def run_model(model: str, folder: Path) -> dict[str, dict[str, float]]:
    embedder = LocalEmbedder(model=E5_SMALL) if model == "e5" else LocalEmbedder()
    library = Library.open(folder / f"geotopo-{model}.sqlite", embedder=embedder)
    try:
        library.pipeline.ingest_file(PDF)
        qrels = {q: {str(page): 1} for q, page in QUESTIONS.items()}
        retriever = library.retriever
        runs: dict[str, dict[str, list[str]]] = {"keyword": {}, "dense": {}, "product": {}}
        product10: dict[str, list[str]] = {}
        for question in QUESTIONS:
            vector = embedder.embed_query(question)
            dense = retriever.vector_store.search(vector, top_k=100, scope=RAG)
            keyword = retriever.keyword_index.search(question, top_k=100, scope=RAG)
            runs["dense"][question] = _pages(dense)
            runs["keyword"][question] = _pages(keyword)
            runs["product"][question] = _pages(library.rag.retrieve(question, top_k=100))
            product10[question] = _pages(library.rag.retrieve(question, top_k=10))
        out = {}
        for name, run in runs.items():
            ten = product10 if name == "product" else run
            out[name] = {
                "ndcg": evaluate(ten, qrels)["ndcg"],
                "recall": evaluate(run, qrels)["recall"],
            }
        return out
    finally:
        library.close()


def main() -> None:
    result: dict[str, Any] = {"load": os.getloadavg()}
    with tempfile.TemporaryDirectory() as folder:
        for model in ("minilm", "e5"):
            result[model] = run_model(model, Path(folder))
    result["load_after"] = os.getloadavg()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "crosslingual_docs.json").write_text(json.dumps(result, indent=1))
    print("| model | run | nDCG@10 | Recall@100 |\n|---|---|---|---|")
    for model in ("minilm", "e5"):
        for name, m in result[model].items():
            print(f"| {model} | {name} | {m['ndcg']:.3f} | {m['recall']:.3f} |")
    print(f"load average {result['load']} -> {result['load_after']}")


if __name__ == "__main__":
    main()
