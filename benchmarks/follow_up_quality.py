"""Follow-up questions: top-5 retrieval of the second turn's answer passage.

``benchmarks/follow_up_dialogues.tsv`` holds two-turn dialogues on corpus/good whose
second question only makes sense after the first ("And on Windows?"). For each, the
first question is asked in a real conversation (``library.conversations``, extractive
answer), then the follow-up is searched as:

- *raw follow-up*: the words as typed (what the app did before conversations);
- *rule (no model)*: :func:`condense_by_rule`, the product's no-model path;
- *model*: :func:`condense_with_model` with the model given by ``--llm`` (skipped without);
- *hand-written standalone*: the dialogue's own rewrite by a person, for reference.

A top-5 hit holds the answer when it comes from the expected file and contains the
expected text (whitespace-normalised, case-insensitive), as in ``corpus_quality``.

    PYTHONPATH=engine:. .venv/bin/python -m benchmarks.follow_up_quality [--llm module:factory]

``--llm`` names a callable returning an ``LLMClient`` (for instance the local llama.cpp
model). Writes ``benchmarks/out/follow_ups.json`` and ``benchmarks/out/follow_ups.md``
(included in REPORT.md by ``run.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import importlib
import os
import re
import time
from pathlib import Path
from typing import Any

from agentmaker.conversations import Exchange, condense_by_rule, condense_with_model
from agentmaker.models.llm import LLMClient
from agentmaker.retrieval.types import RetrievalResult

from benchmarks.common import (
    HERE,
    OUT,
    CachedEmbedder,
    load_json,
    local_embedder,
    log,
    save_json,
)

DIALOGUES = HERE / "follow_up_dialogues.tsv"


def dialogues() -> list[dict[str, str]]:
    with open(DIALOGUES, encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def holds_answer(hit: RetrievalResult, row: dict[str, str]) -> bool:
    """The hit comes from the expected file and holds the expected text."""
    want = _norm(row["expected_answer_substring"])
    return Path(hit.source).name == row["file"] and want in _norm(hit.content)


def _load_llm(spec: str | None) -> LLMClient | None:
    if not spec:
        return None
    module, _, name = spec.partition(":")
    factory = getattr(importlib.import_module(module), name)
    llm = factory()
    assert isinstance(llm, LLMClient), f"{spec} did not return an LLMClient"
    return llm


def run(path: Path, llm: LLMClient | None = None) -> dict[str, Any]:
    from agentmaker.library import Library

    rows = dialogues()
    embedder = CachedEmbedder(local_embedder())
    library = Library.open(path, embedder=embedder)
    # First turns are answered extractively (fast, deterministic); a model given only
    # rewrites the follow-ups.
    library.set_llm(None)
    strategies = ["raw follow-up", "rule (no model)"]
    if llm is not None:
        strategies.append(f"model ({llm.name})")
    strategies.append("hand-written standalone")
    found = {s: 0 for s in [*strategies, "first question"]}
    details: list[dict[str, Any]] = []
    condense_seconds: list[float] = []
    try:
        for number, row in enumerate(rows, start=1):
            log(f"dialogue {number}/{len(rows)}: {row['follow_up']}")
            chat = library.conversations.create()
            first = asyncio.run(
                library.conversations.ask(chat.conversation_id, row["first_question"])
            )
            history = [Exchange(first.question, first.query, first.answer)]
            queries = {
                "raw follow-up": row["follow_up"],
                "rule (no model)": condense_by_rule(history, row["follow_up"]),
                "hand-written standalone": row["standalone"],
            }
            if llm is not None:
                started = time.perf_counter()
                queries[f"model ({llm.name})"] = asyncio.run(
                    condense_with_model(llm, history, row["follow_up"])
                )
                condense_seconds.append(time.perf_counter() - started)
            entry: dict[str, Any] = {"follow_up": row["follow_up"], "queries": queries, "hit": {}}
            for name, query in queries.items():
                hits = library.rag.retrieve(query, top_k=5)
                ok = any(holds_answer(h, row) for h in hits)
                found[name] += ok
                entry["hit"][name] = ok
            found["first question"] += any(holds_answer(h, row) for h in first.sources)
            details.append(entry)
            library.conversations.delete(chat.conversation_id)
    finally:
        library.close()
    return {
        "dialogues": len(rows),
        "strategies": strategies,
        "found": found,
        "details": details,
        "condense_seconds": condense_seconds,
        "model": llm.name if llm is not None else None,
        "load": os.getloadavg(),
        "finished": time.strftime("%Y-%m-%d %H:%M"),
    }


def markdown(data: dict[str, Any]) -> str:
    n = data["dialogues"]
    out = [
        f"{n} two-turn dialogues on corpus/good (`benchmarks/follow_up_dialogues.tsv`), "
        "library with the app's defaults and the local embedder. Top-5 retrieval of the "
        "second turn's answer passage (expected file + expected text):",
        "",
        "| follow-up searched as | answer in top 5 |",
        "| --- | ---: |",
    ]
    for name in data["strategies"]:
        out.append(f"| {name} | {data['found'][name]}/{n} |")
    if data["model"] is None:
        out += [
            "",
            "No language model was available to this run, so model condensing was not "
            "measured: the table compares the no-model rule with the raw follow-up (and a "
            "person's rewrite for reference). Rerun with `--llm module:factory`.",
        ]
    else:
        secs = sorted(data["condense_seconds"])
        out += ["", f"Model rewrite: median {secs[len(secs) // 2]:.2f} s per follow-up."]
    load = ", ".join(f"{x:.2f}" for x in data["load"])
    out += [
        "",
        "For comparison, the second answer's passage was already among the first turn's "
        f"five passages in {data['found']['first question']}/{n} dialogues: most follow-ups "
        "ask about the same section, so a rewrite mostly has to keep the search there "
        "rather than find a new place.",
        "",
        f"Measured {data['finished']}, load average {load} (retrieval counts do not depend "
        "on load).",
        "",
    ]
    missed = [d for d in data["details"] if not d["hit"]["rule (no model)"]]
    if missed:
        out += ["Missed by the rule (what it searched):", ""]
        out += [f"- {d['follow_up']} → `{d['queries']['rule (no model)']}`" for d in missed]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    from benchmarks.ingest_speed import corpus_library

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--llm", help="module:factory returning an LLMClient")
    parser.add_argument(
        "--render", action="store_true", help="only re-write the Markdown from the last JSON"
    )
    args = parser.parse_args(argv)
    if args.render:
        text = markdown(load_json("follow_ups"))
        (OUT / "follow_ups.md").write_text(text, encoding="utf-8")
        print(text)
        return
    path, _ = corpus_library(measure=False)
    log(f"follow-ups on {path.name}")
    data = run(path, _load_llm(args.llm))
    save_json("follow_ups", data)
    text = markdown(data)
    (OUT / "follow_ups.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
