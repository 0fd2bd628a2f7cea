"""Dropping files ingests them; progress, cancel, passwords, and the loop never stalls."""

from __future__ import annotations

import itertools
import shutil
import time
from pathlib import Path

from agentmaker.rag.ingest.reader_process import ReaderProcess
from agentmaker.rag.source_store import SourceStore
from agentmaker_desk.library.chunk_tree_model import ChunkTreeModel, Roles
from agentmaker_desk.settings.password_dialog import PasswordDialog
from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.helpers import drop_files


def _headings(model: ChunkTreeModel, qloop, doc: QModelIndex) -> list[str]:
    model.fetchMore(doc)
    qloop.until(lambda: model.rowCount(doc) > 0)
    return [model.index(r, 0, doc).data(Roles.HEADING_PATH) for r in range(model.rowCount(doc))]


def test_dropping_files_and_folders_ingests_them_and_shows_headings(
    desk, qloop, good_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    shutil.copy(good_dir / "faq.md", folder / "faq.md")
    assert desk.stack.currentWidget() is desk.empty_view
    assert drop_files(desk, [good_dir / "cli.md", folder])
    qloop.until(lambda: not desk.bridge.tasks)

    assert desk.ingest_panel.isVisible()
    assert desk.ingest_panel.state_of(str(good_dir / "cli.md")) == "indexed"
    assert desk.stack.currentWidget() is desk.main_splitter
    model = desk.browser.model
    titles = {model.index(r, 0).data() for r in range(model.rowCount())}
    assert titles == {"cli.md", "faq.md"}  # file names; the first heading is the tooltip
    cli = next(
        model.index(r, 0) for r in range(model.rowCount()) if model.index(r, 0).data() == "cli.md"
    )
    assert cli.data(Qt.ItemDataRole.ToolTipRole).startswith("<p>Commands<br>")
    headings = _headings(model, qloop, cli)
    assert "Commands > add > Options" in headings
    # The view expands lazily too: expanding a heading loads its chunks (the tree is
    # in the sidebar's Library tab).
    desk.sidebar.setCurrentWidget(desk.browser)
    heading = model.index(headings.index("Commands > add"), 0, cli)
    desk.browser.tree.expand(cli)
    desk.browser.tree.expand(heading)
    qloop.until(lambda: model.rowCount(heading) == 3)


def test_model_over_a_real_library_passes_qtmodeltester(
    desk, qloop, qtmodeltester, good_dir: Path
) -> None:
    qloop.run(desk.bridge.aingest([str(good_dir / "CHANGELOG.md"), str(good_dir / "faq.md")]))
    model = ChunkTreeModel(SourceStore(desk.bridge.library.db))
    model.set_documents(desk.bridge.documents)
    qtmodeltester.check(model)
    for row in range(model.rowCount()):
        doc = model.index(row, 0)
        model.fetchMore(doc)
        for h in range(min(model.rowCount(doc), 40)):
            model.fetchMore(model.index(h, 0, doc))
    qloop.settle()
    qtmodeltester.check(model)
    assert "Version" in model.index(1, 0, model.index(0, 0)).data(Roles.HEADING_PATH)


def test_cancel_stops_ingestion_and_leaves_only_complete_documents(
    desk, qloop, good_dir: Path
) -> None:
    files = [
        good_dir / n
        for n in (
            "faq.md",
            "handbook-872p.docx",
            "GeoTopo-komprimiert.pdf",
            "CHANGELOG.md",
            "cli.md",
        )
    ]
    bridge = desk.bridge

    def cancel_once_embedding(progress) -> None:
        if progress.stage in ("embedding", "indexed") and progress.files_done >= 1:
            desk.ingest_panel.cancel_button.click()

    bridge.ingestProgress.connect(cancel_once_embedding)
    report = qloop.run(bridge.aingest([str(f) for f in files]))
    assert report.cancelled
    statuses = {Path(f.path).name: f.status for f in report.files}
    assert statuses["cli.md"] == "cancelled"
    indexed = {f.doc_id for f in report.files if f.status == "indexed"}
    store = bridge.library.source_store
    documents = store.list_documents()
    assert {d.doc_id for d in documents} == indexed
    for info in documents:  # every listed document is whole
        assert len(store.chunks_of(info.doc_id)) == info.chunk_count > 0
    assert desk.ingest_panel.state_of(str(good_dir / "cli.md")) == "cancelled"
    assert "cancelled" in desk.ingest_panel.summary_label.text()


def test_event_loop_keeps_beating_during_ingestion(desk, qloop, good_dir: Path) -> None:
    beats: list[float] = []
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: beats.append(time.monotonic()))
    timer.start()
    files = [
        good_dir / n
        for n in (
            "GeoTopo-komprimiert.pdf",
            "handbook-872p.docx",
            "multi-column.pdf",
            "CHANGELOG.md",
        )
    ]
    # As in the app: files are read in a child process, so a C parser holding the GIL
    # (lxml on a large Word file) cannot freeze the window.
    desk.bridge.library.pipeline.reader_process = ReaderProcess()
    started = time.monotonic()
    # A long limit: a loaded 2-core machine (the soak runs two CPU burners) needs it.
    report = qloop.run(desk.bridge.aingest([str(f) for f in files]), timeout=180)
    timer.stop()
    elapsed = time.monotonic() - started
    assert {f.status for f in report.files} == {"indexed"}
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    assert elapsed > 1.0 and len(beats) > elapsed / 0.02 * 0.2  # the timer kept firing
    # A freeze detector, not a timing: ingestion on the GUI thread stalls the loop for
    # the whole batch (seconds); scheduling noise on a loaded 2-core machine reaches
    # ~0.5 s. benchmarks/gui_latency.py measures the real stalls (target < 100 ms).
    assert max(gaps) < 2.0, f"the event loop stalled for {max(gaps):.3f} s"


def test_encrypted_pdf_asks_for_its_password_and_retries(desk, qloop, bad_dir: Path) -> None:
    path = str(bad_dir / "libreoffice-writer-password.pdf")
    desk.add_paths([path])

    def dialog() -> PasswordDialog | None:
        found = [
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, PasswordDialog) and w.isVisible()
        ]
        return found[0] if found else None

    qloop.until(lambda: desk.ingest_panel.failed_paths("password_required") == [path])
    qloop.until(lambda: not desk.bridge.tasks)
    # nothing opened by itself (it would take the keyboard from a question being typed)
    assert dialog() is None
    assert "1 file needs a password" in desk.statusBar().currentMessage()
    button = desk.ingest_panel.password_button
    assert button.isVisibleTo(desk)
    button.click()
    qloop.until(lambda: dialog() is not None)
    first = dialog()
    assert not first.error_label.isVisibleTo(first)
    first.password_edit.setText("wrong")
    first.accept()
    qloop.until(lambda: dialog() is not None and dialog().error_label.isVisibleTo(dialog()))
    second = dialog()  # "That password did not open the file. Try again."
    second.password_edit.setText("openpassword")
    second.accept()
    qloop.until(lambda: desk.ingest_panel.state_of(path) == "indexed")
    qloop.until(lambda: not desk.bridge.tasks)
    assert [d.format for d in desk.bridge.documents] == ["pdf"]
    assert not desk.ingest_panel.password_button.isVisibleTo(desk)  # nothing locked now


def test_a_finished_document_is_listed_while_the_batch_goes_on(
    qloop, qtbot, tmp_path: Path, settings_file: Path
) -> None:
    from tests.gui.conftest import make_desk
    from tests.gui.helpers import GatedEmbedder

    embedder = GatedEmbedder()
    window = make_desk(qloop, qtbot, tmp_path / "lib.sqlite", settings_file, embedder=embedder)
    bridge = window.bridge
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    first.write_text("# Hotels\n\nHotels are capped at 500 per night.\n", encoding="utf-8")
    second.write_text("# Trains\n\nTrains are refunded in second class.\n", encoding="utf-8")
    embedder.hold()
    try:
        window.add_paths([str(first), str(second)])
        embedder.release()  # the first file's one batch
        qloop.until(lambda: embedder.waiting == 1)  # the second file waits for its batch
        qloop.until(lambda: [Path(d.source).name for d in bridge.documents] == ["first.md"])
        assert window.ingest_panel.running  # the batch is not over
    finally:
        embedder.release(5)
    qloop.until(lambda: not bridge.tasks)
    assert sorted(Path(d.source).name for d in bridge.documents) == ["first.md", "second.md"]
    qloop.run(bridge.close_library())
