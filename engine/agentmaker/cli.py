"""The ``agentmaker`` command: the engine's main jobs from a terminal (see ``USAGE``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from agentmaker import cli_models, cli_output
from agentmaker.errors import AgentmakerError
from agentmaker.rag.ingest.batch import IngestProgress
from agentmaker.retrieval.database import is_postgres_url

USAGE = """\
Ask your documents from a terminal. Everything stays on this computer.

  agentmaker ingest PATH...      add files and folders to the library (scans are read by OCR)
  agentmaker search QUERY        show the passages that match best
  agentmaker ask QUESTION        answer with [n] citations (quoted from the passages when
                                 no language model is set up)
  agentmaker ask --model NAME Q  answer with a language model on this computer
  agentmaker models list|download|import|remove   the local language models
  agentmaker stats | verify      what the library holds / whether it is consistent
  agentmaker demo                index the bundled samples in a temporary library and ask
  agentmaker self-test           the demo, checked, and one file of each office and e-mail
                                 format read back; exits 1 on any failure

The library is the app's own (in your user data folder) unless --library names another
file; a file that does not exist yet is created only with --create. Add --json to
search, ask, stats and ingest for output a script can read.
"""


def default_library_path() -> Path:
    """The library file the app uses: the platform's user data folder."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("agentmaker Desk", "agentmaker")) / "Library.agentmaker.sqlite"


class LibraryNotFoundError(AgentmakerError):
    """``--library`` names a file that does not exist (and ``--create`` was not given)."""


def _check_library_path(path: Path, *, explicit: bool, create: bool) -> None:
    """A mistyped ``--library`` is an error, not a new empty library in a new folder."""
    if path.exists() or not explicit or create:
        if create and not path.parent.is_dir():
            path.parent.mkdir(parents=True, exist_ok=True)
        return
    hint = "Check the path, or add --create to make a new library there."
    if not path.parent.is_dir():
        raise LibraryNotFoundError(f"There is no folder {path.parent} for the library. {hint}")
    raise LibraryNotFoundError(f"There is no library at {path}. {hint}")


def _open(path: str | Path, args: argparse.Namespace):
    from agentmaker.library import Library

    llm = None
    if getattr(args, "model", None):
        from agentmaker.cli_models import llm_for

        llm = llm_for(args.model)
    elif getattr(args, "llm_url", None):
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
    cli_output.print_answer(result)


def _attach_ocr(library) -> Any:
    """Scanned PDFs and pictures are read by OCR, as in the app (None: OCR unavailable)."""
    try:
        from agentmaker.ocr import OcrQueue
    except ImportError:  # the OCR models are an optional part of some installs
        return None
    queue = OcrQueue(library.db)
    library.pipeline.ocr = queue
    return queue


def _run_ocr(library, queue, *, quiet: bool) -> Any:
    """Read the scanned pages queued by the batch, printing progress per page."""
    from agentmaker.ocr import OcrWorker

    if queue is None or not queue.pending():
        return None

    def progress(event) -> None:
        if not quiet and event.page:
            name = Path(event.path).name
            print(f"  OCR {name}: page {event.pages_done} of {event.pages_total}", flush=True)

    if not quiet:
        print("Reading scanned pages (OCR)…", flush=True)
    return OcrWorker(queue, library.pipeline).run_pending(progress=progress)


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
            formats: list[str] = []
            if check:
                from agentmaker.format_samples import check_formats

                samples = Path(folder) / "formats"
                samples.mkdir()
                formats = check_formats(library, samples)
                from agentmaker.native_check import check_search_libraries

                formats += check_search_libraries(Path(folder))
        finally:
            library.close()
    if not check:
        return 0
    problems = list(formats)
    if not report.by_status("indexed"):
        problems.append("no sample document was indexed")
    if not result.sources or not re.search(r"\[\d+\]", result.answer):
        problems.append("the answer has no citation")
    if not hits or "offline" not in hits[0].content.lower():
        problems.append("search did not find the privacy passage")
    for problem in problems:
        print(f"SELF-TEST FAILED: {problem}", file=sys.stderr)
    if not problems:
        print("self-test passed")
    return 1 if problems else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentmaker",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--library",
        default=None,
        help="library file (default: the app's), or a team library's postgresql:// URL",
    )
    parser.add_argument(
        "--create", action="store_true", help="create the --library file if it does not exist"
    )
    parser.add_argument("--llm-url", default=None, help="OpenAI-compatible server URL")
    parser.add_argument("--llm-model", default="llama3.2", help="model name on that server")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("ingest", help="add files and folders")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--password",
        default=None,
        help="password of the locked (encrypted) files named on the command line",
    )
    p.add_argument("--no-ocr", action="store_true", help="do not read scanned pages by OCR")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p = sub.add_parser("search", help="show the best passages")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5, help="how many passages (default 5)")
    p.add_argument("--json", action="store_true", help="print the passages as JSON")
    p = sub.add_parser("ask", help="answer a question with citations")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument("--model", default=None, help="a local model's name or a .gguf path")
    cli_models.add_parser(sub)
    p = sub.add_parser("stats", help="what the library holds")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    sub.add_parser("verify", help="check that the index and the stored text agree")
    sub.add_parser("demo", help="try it on the bundled samples")
    sub.add_parser("self-test", help="the demo and the file formats, checked")
    return parser


def _ingest(library, args: argparse.Namespace) -> int:
    queue = None if args.no_ocr else _attach_ocr(library)
    passwords = {}
    if args.password is not None:
        for name in args.paths:
            passwords[str(Path(name).expanduser().absolute())] = args.password
            passwords[name] = args.password
    quiet = args.json
    report = library.pipeline.ingest_paths(
        args.paths, progress=None if quiet else _progress, passwords=passwords
    )
    ocr_report = _run_ocr(library, queue, quiet=quiet)
    failed = report.by_status("failed")
    ocr_done = ocr_report.by_status("indexed") if ocr_report is not None else []
    if args.json:
        cli_output.print_json(
            {
                "files": [
                    {"path": f.path, "status": f.status, "chunks": f.chunks, "error": f.error}
                    for f in report.files
                ],
                "ocr": [
                    {"path": j.path, "status": j.status, "pages_read": j.pages_read}
                    for j in (ocr_report.jobs if ocr_report is not None else [])
                ],
            }
        )
    else:
        line = (
            f"{len(report.by_status('indexed'))} indexed, "
            f"{len(report.by_status('unchanged'))} unchanged, {len(failed)} failed"
        )
        if ocr_report is not None:
            line += f", {len(ocr_done)} read by OCR"
        elif report.by_status("ocr_queued"):
            line += f", {len(report.by_status('ocr_queued'))} scanned (OCR off)"
        print(line)
        if any(f.error_kind == "password_required" for f in failed):
            print("Locked files: run the command again with --password PASSWORD.")
    return 1 if failed else 0


def _stats(library, args: argparse.Namespace) -> int:
    stats = library.pipeline.stats()
    if args.json:
        cli_output.print_json(stats)
        return 0
    print(f"{stats['documents']} documents, {stats['chunks']} passages")
    for kind, count in sorted(stats["formats"].items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:>6}  {kind}")
    print(f"Embedding model: {stats['embedding_model']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``agentmaker`` console command."""
    args = _parser().parse_args(argv)
    if args.command == "models":
        return cli_models.run(args)
    if args.command in ("demo", "self-test"):
        return _demo(check=args.command == "self-test")
    team = is_postgres_url(args.library)  # a team library: postgresql://user@host/db
    path = Path(args.library).expanduser() if args.library and not team else default_library_path()
    try:
        if not team:
            _check_library_path(path, explicit=args.library is not None, create=args.create)
        library = _open(args.library if team else path, args)
    except AgentmakerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "ingest":
            return _ingest(library, args)
        if args.command == "search":
            hits = library.rag.retrieve(args.query, top_k=args.k)
            cli_output.print_hits(hits, as_json=args.json)
            return 0
        if args.command == "ask":
            result = asyncio.run(library.rag.ask(args.question))
            cli_output.print_answer(result, as_json=args.json)
            return 0
        if args.command == "stats":
            return _stats(library, args)
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
