"""What the ``agentmaker`` command prints: readable text for people, JSON for scripts.

Passages are shown as a person reads them (whitespace collapsed, cut at a word, the
document's file name and where in it), never as Python reprs.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, TextIO

_SPACE = re.compile(r"\s+")
PREVIEW_CHARS = 300


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters."""
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut + " …"


def where(metadata: dict[str, Any]) -> str:
    """A hit's location in words: "p. 4", "slide 7", a heading path, a row."""
    if metadata.get("location"):
        return str(metadata["location"])
    if metadata.get("page"):
        return f"p. {metadata['page']}"
    parts = [str(metadata[k]) for k in ("heading_path", "record") if metadata.get(k)]
    return " · ".join(parts)


def document_name(source: str, title: str = "") -> str:
    """The file name people know, the title beside it when it says something else."""
    name = Path(source).name if source else ""
    if title and title != name and name:
        return f"{name} ({title})"
    return name or title


def hit_record(n: int, hit: Any) -> dict[str, Any]:
    meta = hit.metadata
    return {
        "n": n,
        "document": Path(hit.source).name if hit.source else meta.get("title", ""),
        "title": meta.get("title", ""),
        "source": hit.source,
        "where": where(meta),
        "score": hit.score,
        "text": hit.content,
    }


def print_hits(hits: list[Any], *, as_json: bool, out: TextIO | None = None) -> None:
    out = out or sys.stdout  # looked up per call: tests and callers may redirect it
    records = [hit_record(n, h) for n, h in enumerate(hits, start=1)]
    if as_json:
        json.dump(records, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return
    if not records:
        out.write("No passage matches.\n")
    for r in records:
        label = document_name(r["source"], r["title"])
        out.write(f"[{r['n']}] {label}" + (f" — {r['where']}" if r["where"] else "") + "\n")
        body = textwrap.fill(preview(r["text"]), width=88, initial_indent="    ")
        out.write(textwrap.indent(body.strip(), "    ") + "\n\n")


def answer_record(result: Any) -> dict[str, Any]:
    return {
        "answer": result.answer.strip(),
        "extractive": bool(result.extractive),
        "abstained": bool(getattr(result, "abstained", False)),
        "error": str(getattr(result, "error", "") or ""),
        # Why the answer is not (only) the model's text, and its unchecked draft.
        "note": str(getattr(result, "note", "") or ""),
        "draft": str(getattr(result, "draft", "") or ""),
        "sources": [
            {
                "n": s.n,
                "document": Path(s.source).name if s.source else s.title,
                "title": s.title,
                "source": s.source,
                "where": s.location,
            }
            for s in result.sources
        ],
    }


def print_answer(result: Any, *, as_json: bool = False, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    record = answer_record(result)
    if as_json:
        json.dump(record, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return
    if record["error"]:
        out.write(f"The language model failed ({record['error']}); quoting the documents.\n\n")
    elif record["note"].startswith("quoted_"):
        out.write("The model's answer is not in the passages; quoting the documents:\n\n")
    elif record["extractive"] and record["sources"]:
        out.write("Extractive answer (no language model configured):\n\n")
    out.write(textwrap.fill(record["answer"], width=88) + "\n\n")
    if record["note"] == "unsupported" and record["draft"]:
        out.write(f"(The model's unchecked draft, in no passage: {record['draft']})\n\n")
    if record["abstained"]:
        out.write("The documents do not seem to answer this. Passages looked at:\n")
    for src in record["sources"]:
        label = document_name(src["source"], src["title"])
        out.write(f"  [{src['n']}] {label}" + (f" — {src['where']}" if src["where"] else "") + "\n")


def print_json(value: Any, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    json.dump(value, out, ensure_ascii=False, indent=2, default=str)
    out.write("\n")
