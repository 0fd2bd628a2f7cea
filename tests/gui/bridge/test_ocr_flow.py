"""Scanned documents: they wait for OCR, are read page by page, cited as read by OCR;
Cancel pauses OCR and the next window on the same library resumes where it stopped.

The OCR engine is a stub (the real one costs seconds per page); rendering, the queue,
the worker and the library are real.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from agentmaker_desk.library.chunk_tree_model import Roles

from tests.gui.conftest import make_desk
from tests.gui.helpers import StubOcrEngine, drop_files, make_scan


def _titles(window) -> set[str]:
    """The documents the tree lists, by their own titles (the rows show file names)."""
    model = window.browser.model
    return {model.index(r, 0).data(Roles.PAYLOAD).title for r in range(model.rowCount())}


def test_a_dropped_scan_waits_for_ocr_is_read_page_by_page_and_cited_as_ocr(
    desk, qloop, tmp_path: Path
) -> None:
    scan = str(make_scan(tmp_path / "zebra survey.pdf", pages=3))
    engine: StubOcrEngine = desk.bridge.ocr._engine
    engine.hold()
    panel = desk.ingest_panel
    after_batch: list[tuple[str | None, str | None]] = []
    desk.bridge.ingestFinished.connect(
        lambda _report: after_batch.append((panel.state_of(scan), panel.label_of(scan)))
    )
    seen: list[str | None] = []
    desk.bridge.ocr.progress.connect(lambda _p: seen.append(panel.label_of(scan)))

    assert drop_files(desk, [scan])
    qloop.until(lambda: after_batch)
    assert after_batch == [("ocr_queued", "Waiting for OCR")]
    qloop.until(lambda: panel.label_of(scan) == "Reading scanned page 1 of 3…")
    assert panel.title_label.text() == "Reading scanned pages"
    assert panel.cancel_button.isVisible() and panel.cancel_button.isEnabled()
    assert "zebra survey" not in _titles(desk)  # nothing searchable before OCR

    engine.release(3)
    qloop.until(lambda: not desk.bridge.tasks)
    assert "Reading scanned page 2 of 3…" in seen and "Reading scanned page 3 of 3…" in seen
    assert panel.state_of(scan) == "indexed"
    assert panel.label_of(scan) == "Added (read by OCR)"
    assert panel.title_label.text() == "Done" and not panel.cancel_button.isVisible()
    assert "zebra survey" in _titles(desk)

    desk.ask("zebra migration survey")  # no language model: an extractive, cited answer
    qloop.until(lambda: not desk.bridge.tasks)
    first = desk._sources[1]
    assert "zebra survey" in first.title
    assert "read by OCR" in desk.transcript.browser.toPlainText()
    desk.show_source(1)
    qloop.until(lambda: desk.browser.current_chunk() is not None)
    qloop.until(lambda: not desk.bridge.tasks)
    assert "read by OCR" in desk.browser.origin_label.text()
    assert desk.browser.tree.currentIndex().data(Roles.DOC_ID) == desk._sources[1].doc_id


def test_cancel_pauses_ocr_and_the_next_window_resumes_without_rereading(
    desk, qloop, qtbot, tmp_path: Path, settings_file: Path
) -> None:
    scan = str(make_scan(tmp_path / "long scan.pdf", pages=5))
    library = Path(desk.bridge.library.path)
    engine: StubOcrEngine = desk.bridge.ocr._engine
    engine.hold()
    panel = desk.ingest_panel
    desk.add_paths([scan])
    qloop.until(lambda: panel.label_of(scan) == "Reading scanned page 1 of 5…")
    engine.release(1)
    qloop.until(lambda: panel.label_of(scan) == "Reading scanned page 2 of 5…")
    # The label changes before the worker starts page 2: under load a click in between
    # would stop OCR before page 2 (found by scripts/soak-gui.sh).
    qloop.until(lambda: engine.waiting == 1)

    qloop.call(panel.cancel_button.click)  # while page 2 is being read
    assert "Pausing" in panel.summary_label.text()
    engine.release(1)  # page 2 finishes (it is kept), then OCR stops
    qloop.until(lambda: not desk.bridge.tasks)
    assert engine.calls == 2
    assert panel.state_of(scan) == "ocr_paused"
    assert "2 of 5 pages" in panel.detail_of(scan)
    assert panel.title_label.text() == "Paused"
    assert "long scan" not in _titles(desk)

    # A new window on the same library: OCR resumes by itself, at page 3.
    desk.close()
    qloop.run(desk.bridge.close_library())
    second_engine = StubOcrEngine()
    second_engine.hold()
    second = make_desk(qloop, qtbot, library, settings_file, ocr=second_engine)
    try:
        qloop.until(lambda: second.ingest_panel.label_of(scan) == "Reading scanned page 3 of 5…")
        assert second.ingest_panel.isVisible()
        # Closing the window mid-page stops OCR cleanly (no traceback) …
        token = second.bridge.ocr._token
        second.close()

        async def quit_while_reading() -> None:  # what the app does once its window closed
            closing = asyncio.ensure_future(second.bridge.close_library())
            while not token.cancelled:
                await asyncio.sleep(0.01)
            second_engine.release(1)  # the page being read is finished and kept
            await closing

        qloop.run(quit_while_reading())
        assert second_engine.calls == 1
    finally:
        qloop.run(second.bridge.close_library())

    # … and the next start reads only the pages still missing.
    third_engine = StubOcrEngine()
    third = make_desk(qloop, qtbot, library, settings_file, ocr=third_engine)
    try:
        qloop.until(lambda: third.ingest_panel.state_of(scan) == "indexed")
        qloop.until(lambda: not third.bridge.tasks)
        assert third_engine.calls == 2  # pages 4 and 5
        assert "long scan" in _titles(third)
        store = third.bridge.library.source_store
        [info] = [d for d in store.list_documents() if d.title == "long scan"]
        assert info.metadata["ocr_pages"] == [1, 2, 3, 4, 5]
    finally:
        qloop.run(third.bridge.close_library())


def test_adding_another_scan_after_a_pause_reads_both(desk, qloop, tmp_path: Path) -> None:
    first = str(make_scan(tmp_path / "first.pdf", pages=3))
    second = str(make_scan(tmp_path / "second.pdf", pages=1))
    engine: StubOcrEngine = desk.bridge.ocr._engine
    engine.hold()
    desk.add_paths([first])
    qloop.until(lambda: desk.ingest_panel.label_of(first) == "Reading scanned page 1 of 3…")
    qloop.call(desk.ingest_panel.cancel_button.click)
    engine.release(1)
    qloop.until(lambda: not desk.bridge.tasks)
    assert desk.ingest_panel.state_of(first) == "ocr_paused"

    engine.release(10)
    qloop.run(desk.bridge.aingest([second]))  # new scans resume the paused one too
    qloop.until(lambda: not desk.bridge.tasks)
    assert desk.ingest_panel.state_of(first) == "indexed"
    assert desk.ingest_panel.state_of(second) == "indexed"
    assert engine.calls == 4


def test_turning_ocr_off_leaves_scans_waiting(desk, qloop, tmp_path: Path) -> None:
    dialog = desk.open_settings()
    dialog.ocr_check.setChecked(False)
    qloop.call(dialog._save)
    assert desk.bridge.ocr.enabled is False
    scan = str(make_scan(tmp_path / "later.pdf", pages=1))
    qloop.run(desk.bridge.aingest([scan]))
    qloop.until(lambda: not desk.bridge.tasks)
    assert desk.ingest_panel.state_of(scan) == "ocr_queued"
    assert "turned off" in desk.ingest_panel.detail_of(scan)
    assert desk.bridge.ocr._engine.calls == 0

    dialog = desk.open_settings()
    dialog.ocr_check.setChecked(True)
    qloop.call(dialog._save)  # turning it on reads what waited
    qloop.until(lambda: desk.ingest_panel.state_of(scan) == "indexed")
    qloop.until(lambda: not desk.bridge.tasks)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("AGENTMAKER_REAL_OCR"),
    reason="the real OCR engine takes 3-20 s per page here; set AGENTMAKER_REAL_OCR=1",
)
def test_real_ocr_reads_a_real_scan(qloop, qtbot, tmp_path, settings_file, bad_dir) -> None:
    from agentmaker.ocr import OcrEngine

    window = make_desk(qloop, qtbot, tmp_path / "lib.sqlite", settings_file, ocr=OcrEngine())
    try:
        scan = str(bad_dir / "loremipsum-flat.pdf")
        window.add_paths([scan])
        qloop.until(lambda: window.ingest_panel.state_of(scan) == "indexed", timeout=120)
        qloop.until(lambda: not window.bridge.tasks, timeout=60)
        hits = window.bridge.library.rag.retrieve("lorem ipsum dolor", top_k=1)
        assert hits and hits[0].metadata.get("ocr") is True
    finally:
        qloop.run(window.bridge.close_library())
