"""The confidence gate per embedder: how similar the best passage is, answerable or not.

Before a local model is asked, :func:`passages_answer_question` checks that some passage
found is close to the question: its embedding at least the embedder's
``related_similarity``, or its words covering :data:`GATE_COVERAGE` of the question's.
Embedders differ in scale (MiniLM rates unrelated text ~0.1-0.4, multilingual-e5
~0.78-0.91), so the similarity level is the embedder's own. This benchmark retrieves
(no model is asked) the tuning questions of ``answer_quality`` — the dev set and the
held-out sets already read (v1-v6) — from the corpus library built with each embedder,
and reports for each the best passage's similarity and coverage, whether a passage
holds the expected answer, and what the gate decides at a range of levels:

- answerable questions whose answer was found but that the gate would close (lost);
- unanswerable ones it closes (abstentions the model is never asked for).

Chinese questions (RGB-zh, multilingual-e5 only) and the 15 English questions on the
German lecture notes of ``crosslingual_docs`` (found by meaning alone: few of their words
are in the text) show what a level costs there.

    python -m benchmarks.gate_calibration [--sets dev,heldout,...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from agentmaker.models.local_embedder import E5_SMALL, MINILM

from benchmarks.answer_quality import question_sets
from benchmarks.common import OUT, CachedEmbedder, local_embedder, log, settled
from benchmarks.crosslingual_docs import QUESTIONS as CROSSLINGUAL

#: Every set read and tuned on so far (benchmarks/data/README.md); v7 is the check.
TUNING_SETS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")
EMBEDDERS = (MINILM, E5_SMALL)
LEVELS = (0.35, 0.4, 0.45, 0.5, 0.8, 0.82, 0.84, 0.85, 0.86, 0.87, 0.88, 0.9)


async def _measure(library: Any, kind: str, set_name: str, rows: list[dict]) -> list[dict]:
    from agentmaker.rag.answer.answer_stream import source_refs
    from agentmaker.rag.answer.extractive import question_coverage
    from agentmaker.rag.answer.names import unmatched_identifiers

    from benchmarks.answer_quality import _holds_loose

    out = []
    for row in rows:
        question = row["question"]
        hits = await library.rag.aretrieve(question, top_k=5)
        sources = source_refs(hits, question)
        passages = [f"{s.heading_path}\n{s.content}" for s in sources]
        sims = [s.metadata.get("vector_similarity") for s in sources]
        page = row.get("page")
        found = (
            any(s.page == page and "GeoTopo" in (s.source or "") for s in sources)
            if page
            else bool(row["answers"]) and _holds_loose(" ".join(passages), row["answers"])
        )
        out.append(
            {
                "set": set_name,
                "kind": kind,
                "question": question,
                "similarity": max((s for s in sims if s is not None), default=0.0),
                "coverage": question_coverage(question, passages, sentence=False)
                if passages
                else 0.0,
                "identifiers_missing": bool(passages and unmatched_identifiers(question, passages)),
                "found": found,
                "no_hits": not passages,
            }
        )
    return out


def _opens(row: dict, level: float, coverage: float) -> bool:
    if row["no_hits"] or row["identifiers_missing"]:
        return False
    return row["similarity"] >= level or row["coverage"] >= coverage


async def run(sets: tuple[str, ...]) -> dict[str, Any]:
    from agentmaker.library import Library

    from benchmarks.answer_quality import _zh_rows
    from benchmarks.ingest_speed import corpus_library

    questions = {name: question_sets(name) for name in sets}
    rows: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for model in EMBEDDERS:
            path, _ = corpus_library(measure=False, model=model)
            copy = Path(folder) / f"{model}.sqlite"
            copy.write_bytes(path.read_bytes())
            library = settled(
                Library.open(copy, embedder=CachedEmbedder(local_embedder(model=model)))
            )
            try:
                for name, (asked, _, _) in questions.items():
                    for kind in ("en", "none"):
                        got = await _measure(library, kind, name, asked[kind])
                        rows.setdefault(model, []).extend(got)
                german = [{"question": q, "page": p} for q, p in CROSSLINGUAL.items()]
                rows[model].extend(await _measure(library, "xl", "crosslingual", german))
            finally:
                library.close()
            log(f"{model}: {len(rows[model])} English questions")
        for name, (asked, zh_asked, zh_distractors) in questions.items():
            zh_rows, docs = _zh_rows(zh_asked, zh_distractors)
            zh = Library.open(
                Path(folder) / f"zh-{name}.sqlite",
                embedder=CachedEmbedder(local_embedder(model=E5_SMALL)),
            )
            try:
                for doc in docs:
                    zh.pipeline.ingest_text(doc["text"], source=f"{doc['id']}.txt")
                rows[E5_SMALL].extend(await _measure(zh, "zh", name, asked.get("zh", zh_rows)))
            finally:
                zh.close()
    return {"sets": list(sets), "rows": rows, "table": _table(rows)}


def _table(rows: dict[str, list[dict]]) -> list[dict[str, Any]]:
    from agentmaker.rag.answer.checked import GATE_COVERAGE

    table = []
    for model, got in rows.items():
        for level in LEVELS:
            entry: dict[str, Any] = {"embedder": model, "level": level}
            for kind in ("en", "xl", "zh", "none"):
                of_kind = [r for r in got if r["kind"] == kind]
                if not of_kind:
                    continue
                closed = [r for r in of_kind if not _opens(r, level, GATE_COVERAGE)]
                entry[f"{kind}_questions"] = len(of_kind)
                entry[f"{kind}_closed"] = len(closed)
                if kind != "none":
                    entry[f"{kind}_found"] = sum(r["found"] for r in of_kind)
                    entry[f"{kind}_found_closed"] = sum(r["found"] for r in closed)
            table.append(entry)
    return table


def report(data: dict[str, Any]) -> str:
    lines = [
        f'Sets: {", ".join(data["sets"])}. A question the gate closes gets "the documents '
        'do not seem to answer this" without the model being asked.',
        "",
        "| embedder | similarity level | en: answer found, gate closes | English on German: "
        "page found, gate closes | zh: answer found, gate closes | none: gate closes |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for e in data["table"]:
        zh = f"{e['zh_found_closed']} of {e['zh_found']}" if "zh_found" in e else "–"
        lines.append(
            f"| {e['embedder']} | {e['level']:.2f} | {e['en_found_closed']} of {e['en_found']} "
            f"| {e['xl_found_closed']} of {e['xl_found']} "
            f"| {zh} | {e['none_closed']} of {e['none_questions']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", default=",".join(TUNING_SETS))
    args = parser.parse_args(argv)
    data = asyncio.run(run(tuple(s for s in args.sets.split(",") if s)))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "gate_calibration.json").write_text(json.dumps(data, indent=1, ensure_ascii=False))
    text = report(data)
    (OUT / "gate_calibration.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
