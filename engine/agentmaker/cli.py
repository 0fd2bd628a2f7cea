"""The ``agentmaker`` command: the engine's main jobs from a terminal.

agentmaker ingest PATH...        index files and folders into the library
agentmaker search QUERY          show the best passages
agentmaker ask QUESTION          answer with [n] citations (extractive without a model)
agentmaker stats | verify        what the library holds / whether it is consistent
agentmaker demo                  index the bundled samples in a temporary library and ask
agentmaker self-test             the demo, checked; exits 1 on any failure
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

from agentmaker.errors import AgentmakerError
from agentmaker.rag.ingest.batch import IngestProgress


def default_library_path() -> Path:
    """The library file the app uses: the platform's user data folder."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("agentmaker Desk", "agentmaker")) / "Library.agentmaker.sqlite"


def _open(path: str | Path, args: argparse.Namespace):
    from agentmaker.library import Library

    llm = None
    if getattr(args, "llm_url", None):
        from agentmaker.models.openai_llm import OpenAICompatibleLLM

        llm = OpenAICompatibleLLM(
            args.llm_model, base_url=args.llm_url, api_key=os.environ.get("OPENAI_API_KEY")
        )
    return Library.open(path, llm=llm)


def _progress(event: IngestProgress) -> None:
    if event.stage in ("indexed", "unchanged", "failed"):
        mark = {"indexed": "+", "unchanged": "=", "failed": "!"}[event.stage]
        line = f"[{event.files_done}/{event.files_total}] {mark} {Path(event.path).name}"
        if event.error:
            line += f"  — {event.error}"
        print(line, flush=True)


def _print_answer(result) -> None:
    if result.extractive and result.sources:
        print("Extractive answer (no language model configured):\n")
    print(result.answer.strip() + "\n")
    for src in result.sources:
        where = src.location
        print(
            f"  [{src.n}] {src.title or Path(src.source).name}" + (f" — {where}" if where else "")
        )


def _demo(check: bool) -> int:
    from agentmaker.library import Library
    from agentmaker.resources import resource_path

    with tempfile.TemporaryDirectory() as folder:
        library = Library.open(Path(folder) / "demo.sqlite")
        try:
            report = library.pipeline.ingest_paths([resource_path("samples")], progress=_progress)
            question = "Does agentmaker Desk send my documents anywhere?"
            print(f"\nQ: {question}\n")
            result = asyncio.run(library.rag.ask(question))
            _print_answer(result)
            hits = library.rag.retrieve("offline privacy language model server", top_k=3)
        finally:
            library.close()
    if not check:
        return 0
    problems = []
    if not report.by_status("indexed"):
        problems.append("no sample document was indexed")
    if not result.sources or "[1]" not in result.answer:
        problems.append("the answer has no citation")
    if not hits or "offline" not in hits[0].content.lower():
        problems.append("search did not find the privacy passage")
    for problem in problems:
        print(f"SELF-TEST FAILED: {problem}", file=sys.stderr)
    if not problems:
        print("self-test passed")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``agentmaker`` console command."""
    parser = argparse.ArgumentParser(
        prog="agentmaker", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--library", default=None, help="library file (default: the app's)")
    parser.add_argument("--llm-url", default=None, help="OpenAI-compatible server URL")
    parser.add_argument("--llm-model", default="llama3.2", help="model name on that server")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ingest")
    p.add_argument("paths", nargs="+")
    p = sub.add_parser("search")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5)
    p = sub.add_parser("ask")
    p.add_argument("question")
    sub.add_parser("stats")
    sub.add_parser("verify")
    sub.add_parser("demo")
    sub.add_parser("self-test")
    args = parser.parse_args(argv)
    if args.command in ("demo", "self-test"):
        return _demo(check=args.command == "self-test")
    path = Path(args.library) if args.library else default_library_path()
    try:
        library = _open(path, args)
    except AgentmakerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "ingest":
            report = library.pipeline.ingest_paths(args.paths, progress=_progress)
            failed = report.by_status("failed")
            print(
                f"{len(report.by_status('indexed'))} indexed, "
                f"{len(report.by_status('unchanged'))} unchanged, {len(failed)} failed"
            )
            return 1 if failed else 0
        if args.command == "search":
            for n, hit in enumerate(library.rag.retrieve(args.query, top_k=args.k), start=1):
                meta = hit.metadata
                where = f"p. {meta['page']}" if meta.get("page") else meta.get("heading_path", "")
                print(f"[{n}] {meta.get('title', '')} {where}\n    {hit.content[:300]!r}")
            return 0
        if args.command == "ask":
            _print_answer(asyncio.run(library.rag.ask(args.question)))
            return 0
        if args.command == "stats":
            print(json.dumps(library.pipeline.stats(), indent=2, ensure_ascii=False))
            return 0
        if args.command == "verify":
            report = library.pipeline.verify()
            print("consistent" if report.ok else json.dumps(report.__dict__, indent=2))
            return 0 if report.ok else 1
    except AgentmakerError as exc:
        partial = getattr(exc, "report", None)
        if partial is not None:  # e.g. the disk filled mid-batch: say what was kept
            print(f"{len(partial.by_status('indexed'))} indexed before the error")
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
