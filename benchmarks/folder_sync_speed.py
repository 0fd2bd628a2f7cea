"""Linked-folder sync speed: first scan, rescans, renames, and search while scanning.

A folder of small Markdown/text files (1–3 KB, 100 subfolders, mtimes a day old as
in a real folder) is linked to a fresh library and scanned:

- first scan: time until the first document is searchable (seen from another
  thread's read connection, as the app's window sees it), time until the listing
  is complete (the total is known), total time, and search latency in a second
  thread while the scan runs (the window's responsiveness);
- rescan of the unchanged folder (stat only);
- rescan after every file was touched (mtime changed, bytes not: one hash each);
- rescan after 10% of the files were renamed or moved (no embedding).

    .venv/bin/python benchmarks/folder_sync_speed.py [--files 10000] [--real 2000]

The 10,000-file run uses a near-free embedder (one hashed unit vector per text), so
the figures are the sync's own cost: listing, hashing, reading, splitting, SQLite
writes. ``--real N`` repeats the first scan on N files with the built-in embedder
(all-MiniLM-L6-v2 int8 on onnxruntime), where the model dominates. Writes
``benchmarks/out/folder_sync.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from agentmaker.library import Library
from agentmaker.rag.folders.sync import FolderSync, SyncProgress
from agentmaker.retrieval.ports import Embedder, ModelFingerprint
from agentmaker.testing import FakeEmbedder

from benchmarks.common import log, machine_info

OUT = Path(__file__).resolve().parent / "out"
WORDS = [
    "policy",
    "travel",
    "hotel",
    "meal",
    "budget",
    "report",
    "invoice",
    "contract",
    "meeting",
    "agenda",
    "project",
    "customer",
    "supplier",
    "delivery",
    "payment",
    "schedule",
    "review",
    "summary",
    "quarterly",
    "annual",
    "risk",
    "audit",
    "compliance",
    "training",
    "safety",
    "vehicle",
    "equipment",
    "office",
    "rent",
    "salary",
    "bonus",
    "tax",
]


class NullEmbedder(FakeEmbedder):
    """A unit vector per text picked by a hash: costs next to nothing."""

    def embed_batch(self, texts: Any) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        dim = self.fingerprint.dimension
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, hash(text) % dim] = 1.0
        return out


class TimedEmbedder(Embedder):
    """Wraps an embedder and adds up the seconds it spends for one thread (the scan's)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts_embedded = 0
        self.thread = threading.get_ident()

    @property
    def fingerprint(self) -> ModelFingerprint:
        return self.inner.fingerprint

    def embed_batch(self, texts: Any) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.inner.embed_batch(texts)
        finally:
            if threading.get_ident() == self.thread:
                self.seconds += time.perf_counter() - started
                self.texts_embedded += len(texts)

    def embed_queries(self, texts: Any) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def close(self) -> None:
        self.inner.close()


def make_folder(root: Path, count: int, seed: int = 5) -> list[Path]:
    rng = random.Random(seed)
    day_ago = time.time() - 86400
    paths = []
    for i in range(count):
        sub = root / f"dept{i % 100:02}"
        sub.mkdir(parents=True, exist_ok=True)
        ext = ".md" if i % 2 else ".txt"
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(150, 450)))
        path = sub / f"file{i:05}{ext}"
        head = f"# File {i}\n\n" if ext == ".md" else f"File {i}\n\n"
        path.write_text(head + words + "\n")
        os.utime(path, (day_ago, day_ago))
        paths.append(path)
    return paths


class SearchProbe:
    """Searches every 100 ms in another thread while a scan runs: latency samples."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self.latencies: list[float] = []
        self.first_visible: float | None = None
        self.started = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SearchProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            started = time.perf_counter()
            hits = self.lib.rag.retrieve("hotel meal budget", top_k=5)
            self.latencies.append(time.perf_counter() - started)
            if hits and self.first_visible is None:
                self.first_visible = time.perf_counter() - self.started


def first_scan(lib: Library, folder: Path) -> dict[str, Any]:
    sync = FolderSync(lib)
    sync.link(folder)
    marks: dict[str, float] = {}
    started = time.perf_counter()

    def progress(update: SyncProgress) -> None:
        now = time.perf_counter() - started
        if update.action == "added":
            marks.setdefault("first_added", now)
        if update.listing_done:
            marks.setdefault("listing_done", now)
            marks.setdefault("files_total", update.files_total)

    with SearchProbe(lib) as probe:
        probe.started = started
        report = sync.scan(progress=progress)
    total = time.perf_counter() - started
    lat = sorted(probe.latencies)
    return {
        "sync": sync,
        "files": len(report.added),
        "first_added": marks.get("first_added", float("nan")),
        "first_visible": probe.first_visible or float("nan"),
        "listing_done": marks.get("listing_done", float("nan")),
        "total": total,
        "search_median_ms": statistics.median(lat) * 1000 if lat else float("nan"),
        "search_p95_ms": lat[int(len(lat) * 0.95)] * 1000 if lat else float("nan"),
        "search_max_ms": lat[-1] * 1000 if lat else float("nan"),
        "searches": len(lat),
    }


def timed_scan(sync: FolderSync, embedder: Any) -> tuple[float, Any, int]:
    before = embedder.texts_embedded if hasattr(embedder, "texts_embedded") else 0
    started = time.perf_counter()
    report = sync.scan()
    seconds = time.perf_counter() - started
    after = embedder.texts_embedded if hasattr(embedder, "texts_embedded") else 0
    return seconds, report, after - before


def run(files: int, embedder: Embedder, label: str, rescans: bool) -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="folder_sync_", dir=OUT))
    try:
        log(f"{label}: writing {files} files")
        folder = work / "docs"
        paths = make_folder(folder, files)
        lib = Library.open(work / "lib.sqlite", embedder=embedder)
        try:
            log(f"{label}: first scan")
            first = first_scan(lib, folder)
            lines = [
                f"### {label}: first scan of {first['files']:,} files",
                "",
                "| measure | value |",
                "|---|---|",
                f"| first document indexed (progress 'added') | {first['first_added']:.3f} s |",
                f"| first search hit from another thread | {first['first_visible']:.2f} s "
                "(searched every 100 ms) |",
                f"| listing complete (total known) | {first['listing_done']:.2f} s |",
                f"| total | {first['total']:.1f} s "
                f"({first['files'] / first['total']:.0f} files/s) |",
                f"| search latency during the scan | median {first['search_median_ms']:.0f} ms, "
                f"p95 {first['search_p95_ms']:.0f} ms, max {first['search_max_ms']:.0f} ms "
                f"({first['searches']} searches) |",
                "",
            ]
            if isinstance(embedder, TimedEmbedder):
                lines[-2:-2] = [
                    f"| of which in the embedder | {embedder.seconds:.1f} s "
                    f"({embedder.texts_embedded} chunks, "
                    f"{embedder.seconds / max(1, embedder.texts_embedded) * 1000:.0f} ms each) |"
                ]
            if not rescans:
                return lines
            sync = first["sync"]
            rows = []
            seconds, report, embedded = timed_scan(sync, embedder)
            rows.append(("unchanged folder", seconds, report.summary(), embedded))
            later = time.time() - 3600
            for path in paths:
                os.utime(path, (later, later))
            seconds, report, embedded = timed_scan(sync, embedder)
            rows.append(("every file touched (mtime only)", seconds, report.summary(), embedded))
            seconds, report, embedded = timed_scan(sync, embedder)
            rows.append(("unchanged again", seconds, report.summary(), embedded))
            moved = paths[:: max(1, len(paths) // (len(paths) // 10 or 1))][: len(paths) // 10]
            for i, path in enumerate(moved):
                target = folder / f"moved{i % 10}" / f"r-{path.name}"
                target.parent.mkdir(exist_ok=True)
                path.rename(target)
            seconds, report, embedded = timed_scan(sync, embedder)
            rows.append(
                (f"{len(moved):,} files renamed/moved", seconds, report.summary(), embedded)
            )
            assert lib.pipeline.verify().ok
            lines += [
                f"### {label}: rescans of {files:,} files",
                "",
                "| rescan | seconds | result | texts embedded |",
                "|---|---|---|---|",
            ]
            lines += [f"| {r[0]} | {r[1]:.2f} | {r[2]} | {r[3]} |" for r in rows]
            lines.append("")
            return lines
        finally:
            lib.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--real", type=int, default=0, help="files for the real-embedder run")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    info = machine_info()
    lines = [
        "# Linked-folder sync speed",
        "",
        f"Machine: {info.get('cpu')}, {info.get('logical_cores')} logical cores, "
        f"{info.get('os')}; load average before: {info.get('load_average')}.",
        "Files: 1–3 KB Markdown/text, 100 subfolders, mtimes a day old; one chunk each.",
        "",
    ]
    lines += run(args.files, NullEmbedder(384, name="null"), "near-free embedder", rescans=True)
    if args.real:
        from agentmaker.library import default_embedder

        real = TimedEmbedder(default_embedder())
        lines += run(args.real, real, "built-in embedder (MiniLM int8)", False)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    lines.append(
        f"Load average after: {load}. Other work shared the machine, so wall times are "
        "upper bounds. Generated by `benchmarks/folder_sync_speed.py`."
    )
    out = OUT / "folder_sync.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
