"""Extractive answers (no language model) on corpus/QA.tsv: does the answer hold the fact?

For each question: ``library.rag.retrieve(question, top_k=5)`` on the corpus library
(real local embedder, product defaults), then the extractive answer over those passages,
exactly as ``RagRetriever.ask`` builds it without a model. Reported per question: the
expected substring appears in the answer (whitespace-normalised, case-insensitive,
Markdown stripped), the answer's length, and signs of noise a reader notices — raw
Markdown (backticks, ``[text](url)``), sentences that are fragments (start lowercase),
and sentences cited from passages other than the best-ranked one that holds the answer.

    python -m benchmarks.extractive_quality TAG   # prints; writes out/extractive_quality_TAG.json
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from benchmarks.common import OUT, CachedEmbedder, local_embedder
from benchmarks.corpus_quality import qa_rows


def _norm(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # Markdown links → their text
    return re.sub(r"\s+", " ", text.replace("`", "").replace("*", "")).strip().lower()


def measure(library: Any) -> dict[str, Any]:
    from agentmaker.rag.answer.extractive import extractive_answer

    rows = qa_rows()
    per_question = []
    for row in rows:
        hits = library.rag.retrieve(row["question"], top_k=5)
        answer = extractive_answer(row["question"], [h.content for h in hits])
        want = _norm(row["expected_answer_substring"]).strip("`")
        sentences = [s for _, s in answer.citations]
        per_question.append(
            {
                "question": row["question"],
                "holds_answer": want in _norm(answer.text),
                "answer_in_passages": any(want in _norm(h.content) for h in hits),
                "chars": len(answer.text),
                "sentences": len(sentences),
                "raw_markdown": bool(re.search(r"`|\]\(", answer.text)),
                "fragments": sum(1 for s in sentences if s[:1].islower()),
                "answer": answer.text,
            }
        )
    n = len(per_question)
    return {
        "questions": n,
        "holds_answer": sum(q["holds_answer"] for q in per_question),
        "answer_in_passages": sum(q["answer_in_passages"] for q in per_question),
        "mean_chars": round(sum(q["chars"] for q in per_question) / n),
        "with_raw_markdown": sum(q["raw_markdown"] for q in per_question),
        "fragment_sentences": sum(q["fragments"] for q in per_question),
        "per_question": per_question,
    }


def main(argv: list[str]) -> None:
    from agentmaker.library import Library

    from benchmarks.ingest_speed import corpus_library

    path, _ = corpus_library(measure=False)
    embedder = CachedEmbedder(local_embedder())
    library = Library.open(path, embedder=embedder)
    try:
        result = measure(library)
    finally:
        library.close()
        embedder.close()
    tag = argv[0] if argv else "current"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"extractive_quality_{tag}.json").write_text(json.dumps(result, indent=1))
    print(
        f"{tag}: answer holds the fact {result['holds_answer']}/{result['questions']} "
        f"(fact in the 5 passages: {result['answer_in_passages']}); mean "
        f"{result['mean_chars']} chars; raw Markdown in {result['with_raw_markdown']}; "
        f"{result['fragment_sentences']} fragment sentences"
    )
    for q in result["per_question"]:
        mark = "ok " if q["holds_answer"] else ("-- " if q["answer_in_passages"] else "xx ")
        print(mark, q["question"][:70], "|", q["answer"][:160].replace("\n", " "))


if __name__ == "__main__":
    main(sys.argv[1:])
