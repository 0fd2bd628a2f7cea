"""Cancelled background jobs (ingestion, OCR, re-embedding) end before their task does.

Before, the task ended at once while its worker thread went on writing to the library
(and reporting progress), so closing the library right after raced with that thread.
Real library files, real scans from the shared corpus, a fake embedder that can be held.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from agentmaker.library import Library
from agentmaker.ocr import OcrLine, OcrPage, OcrQueue, OcrWorker
from agentmaker.ocr.engine import OcrEngine
from agentmaker.rag.ingest.pipeline import doc_id_for_path
from agentmaker.testing import FakeEmbedder

from tests.paths import CORPUS

SCAN = CORPUS / "good" / "Seige_of_Vicksburg_Sample_OCR.pdf"


class HeldEmbedder(FakeEmbedder):
    """Each batch waits (up to a while) for ``release``; ``inside`` says one waits."""

    def __init__(self, name: str = "fake-embedder") -> None:
        super().__init__(name=name)
        self.inside = threading.Event()
        self.release = threading.Event()
        self.active = 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.active += 1
        try:
            self.inside.set()
            self.release.wait(0.5)
            return super().embed_batch(texts)
        finally:
            self.active -= 1


class HeldOcr(OcrEngine):
    """One line per page after a short read; ``inside`` says a page is being read."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = threading.Event()
        self.active = 0

    def read_image(self, image: Any) -> OcrPage:
        self.active += 1
        try:
            self.inside.set()
            threading.Event().wait(0.4)
            return OcrPage(
                [OcrLine("scanned words", 0.97, (1.0, 1.0, 9.0, 9.0))], "scanned words", 0.97
            )
        finally:
            self.active -= 1


async def _cancel_twice_when(event: threading.Event, task: asyncio.Task[Any]) -> None:
    await asyncio.to_thread(event.wait, 10)
    task.cancel()
    await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def test_a_cancelled_ingestion_has_stopped_when_its_task_ends(tmp_path: Path) -> None:
    embedder = HeldEmbedder()
    files = []
    for n in range(5):
        path = tmp_path / f"note{n}.md"
        path.write_text(f"# Note {n}\n\nZebras and giraffes, part {n}.\n")
        files.append(path)
    with Library.open(tmp_path / "lib.sqlite", embedder=embedder) as lib:

        async def main() -> None:
            task = asyncio.ensure_future(lib.pipeline.aingest_paths(files))
            await _cancel_twice_when(embedder.inside, task)
            assert task.cancelled()
            assert embedder.active == 0, "the batch still ran after its task ended"

        asyncio.run(main())
        assert len(lib.source_store.list_documents()) < len(files)


def test_a_cancelled_reembed_has_stopped_when_its_task_ends(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nZebras.\n")
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_paths([tmp_path / "a.md"])
        other = HeldEmbedder(name="fake-embedder-2")

        async def main() -> None:
            task = asyncio.ensure_future(lib.areembed(other))
            await _cancel_twice_when(other.inside, task)
            assert other.active == 0, "re-embedding still ran after its task ended"

        asyncio.run(main())


@pytest.mark.skipif(not SCAN.is_file(), reason="shared corpus not available")
def test_a_cancelled_ocr_run_has_stopped_when_its_task_ends(tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    shutil.copy(SCAN, scan)
    engine = HeldOcr()
    seen: list[Any] = []
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        queue = OcrQueue(lib.db)
        queue.schedule(scan, doc_id_for_path(scan), None)

        async def main() -> None:
            worker = OcrWorker(queue, lib.pipeline, engine)
            task = asyncio.ensure_future(worker.arun_pending(progress=seen.append))
            await _cancel_twice_when(engine.inside, task)
            assert engine.active == 0, "a page was still being read after the task ended"
            reported = len(seen)
            await asyncio.sleep(0.6)
            assert len(seen) == reported  # nothing reported after the end

        asyncio.run(main())
        assert queue.job(doc_id_for_path(scan)).status == "pending"  # resumed next time
