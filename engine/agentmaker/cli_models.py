"""``agentmaker models list|download|import|remove`` and the ``--model`` of ``ask``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentmaker.errors import AgentmakerError, StorageError
from agentmaker.models.llm import LLMClient

GB = 1_000_000_000


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``models`` subcommand and its actions."""
    p = sub.add_parser("models", help="local language models: list, download, import, remove")
    p.add_argument("--models-dir", default=None, help="folder of the models (default: the app's)")
    actions = p.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="installed models, then the catalog")
    d = actions.add_parser("download", help="download a catalog model (resumes if interrupted)")
    d.add_argument("name", nargs="?", default=None, help="catalog id (default: recommended)")
    i = actions.add_parser("import", help="use a .gguf file from this computer where it is")
    i.add_argument("path")
    r = actions.add_parser("remove", help="delete a downloaded model, or forget an imported one")
    r.add_argument("name")


def _store(args: argparse.Namespace):
    from agentmaker.models.model_store import ModelStore

    return ModelStore(getattr(args, "models_dir", None))


def run(args: argparse.Namespace) -> int:
    """Carry out ``agentmaker models ACTION``; the exit code."""
    from agentmaker.models.model_catalog import find_model, load_catalog, recommend

    store = _store(args)
    try:
        if args.action == "list":
            installed = store.list()
            print("Installed:" if installed else "No model installed.")
            for m in installed:
                where = " (imported, used where it is)" if m.linked else ""
                print(f"  {m.name:28} {m.size_bytes / GB:5.2f} GB  {m.path}{where}")
            best = recommend()
            print("\nCatalog:")
            for c in load_catalog():
                mark = "*" if c.id == best.id else " "
                print(
                    f" {mark}{c.id:28} {c.size_text:>7}  needs {c.ram_bytes / GB:.1f} GB RAM  "
                    f"{c.licence}  [{', '.join(c.languages[:6])}]"
                )
            print("\n* recommended for this computer")
            return 0
        if args.action == "download":
            entry = find_model(args.name) if args.name else recommend()
            if entry is None:
                print(f"error: no catalog model is called {args.name!r}", file=sys.stderr)
                return 2
            return _download(entry, store)
        if args.action == "import":
            model, info = store.link(args.path)
            print(
                f"Using {model.path} ({info.architecture}, {info.quantization}, "
                f"context {info.context_length}). Ask with: agentmaker ask --model {model.name}"
            )
            return 0
        if args.action == "remove":
            model = store.remove(args.name)
            print(f"Removed {model.name}" + (" (the file itself was kept)" if model.linked else ""))
            return 0
    except AgentmakerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2


def _download(entry, store) -> int:
    from agentmaker.models.model_download import DownloadProgress, ModelDownload

    def show(p: DownloadProgress) -> None:
        eta = f", {p.eta_s:.0f} s left" if p.eta_s else ""
        frac = f"{p.fraction * 100:5.1f} % " if p.fraction is not None else ""
        print(
            f"\r{frac}{p.done / GB:.2f} GB at {p.speed / 1e6:.1f} MB/s{eta}   ",
            end="",
            flush=True,
        )

    print(f"Downloading {entry.display_name} ({entry.size_text}) from {entry.url}")
    job = ModelDownload.for_catalog(entry, store.folder, progress=show)
    try:
        path = job.run()
    except KeyboardInterrupt:
        job.cancel()
        print("\ncancelled; run the same command to resume")
        return 130
    print(f"\nSaved {path}")
    return 0


def llm_for(name: str, models_dir: str | None = None) -> LLMClient:
    """The local model ``name`` (an installed model's name, or a path to a .gguf)."""
    from agentmaker.models.gguf import read_gguf
    from agentmaker.models.llama_cpp import LlamaCppLLM
    from agentmaker.models.model_store import ModelStore

    path = Path(name)
    if not (path.suffix.lower() == ".gguf" and path.is_file()):
        found = ModelStore(models_dir).find(name)
        if found is None:
            raise StorageError(
                f"No installed model is called {name!r}. See `agentmaker models list`, then "
                "`agentmaker models download` or `agentmaker models import FILE.gguf`."
            )
        path = found.path
    info = read_gguf(path)
    return LlamaCppLLM(path, train_context=info.context_length, name=info.name)
