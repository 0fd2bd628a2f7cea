"""The import panel keeps a history per batch, its failures reachable after Hide; it
follows the current file and can be made taller."""

from __future__ import annotations

from pathlib import Path

from agentmaker.rag.ingest.batch import IngestProgress
from agentmaker_desk.library.ingest_panel import IngestPanel

from tests.gui.helpers import drop_files, save_shot


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_each_batch_has_its_own_summary_and_failures_stay_reachable(
    desk, qloop, tmp_path: Path
) -> None:
    rent = _write(tmp_path, "rent.md", "# Rent\nThe rent is 950 EUR a month.\n")
    heat = _write(tmp_path, "heating.md", "# Heating\nSet the dial to 20 degrees.\n")
    empty = _write(tmp_path, "notes.txt", "")  # cannot be indexed: nothing in it
    assert drop_files(desk, [rent, heat, empty])
    qloop.until(lambda: not desk.bridge.tasks)
    panel = desk.ingest_panel
    assert panel.state_of(str(empty)) == "failed"

    travel = _write(tmp_path, "travel.txt", "Train travel is preferred under 600 km.")
    assert drop_files(desk, [travel])
    qloop.until(lambda: not desk.bridge.tasks)

    newest, older = panel.batch_headings()
    assert "Done: 1 added" in newest and "could not be read" not in newest
    assert "Done: 2 added, 1 could not be read" in older
    assert panel.batch_files(0) == [str(travel)]
    assert sorted(panel.batch_files(1)) == sorted([str(rent), str(heat), str(empty)])
    assert panel.summary_label.text() == "1 added."  # the header is the newest batch's
    save_shot(desk, "07-import-history.png")

    # Hidden, the failure is one click away in the library view.
    panel.close_button.click()
    assert not panel.isVisible()
    desk.sidebar.setCurrentWidget(desk.browser)
    button = desk.browser.failures_button
    assert button.isVisible()
    assert button.text() == "Files that could not be added (1)"
    save_shot(desk, "07-failed-files-button.png")
    button.click()
    assert panel.isVisible()
    selected = [i.text(0) for i in panel.files.selectedItems()]
    assert selected == ["notes.txt"]
    assert panel.files.currentItem().text(0) == "notes.txt"

    # Fixed and retried: a row in a new batch; the old row says it was tried again.
    empty.write_text("Now the notes have some text.", encoding="utf-8")
    qloop.call(lambda: panel.retryRequested.emit(panel.failed_paths()))
    qloop.until(lambda: not desk.bridge.tasks)
    assert panel.state_of(str(empty)) == "indexed"
    assert panel.batch_files(0) == [str(empty)]
    first = panel.history.groups()[2]
    rows = {first.child(i).text(0): first.child(i).text(1) for i in range(first.childCount())}
    assert rows == {"rent.md": "Added", "heating.md": "Added", "notes.txt": "Tried again"}
    assert panel.failed_paths() == []
    assert not button.isVisible()


def test_the_empty_library_offers_the_failures_too(desk, qloop, tmp_path: Path) -> None:
    empty = _write(tmp_path, "blank.md", "   \n")
    assert drop_files(desk, [empty])
    qloop.until(lambda: not desk.bridge.tasks)
    desk.ingest_panel.close_button.click()
    assert desk.stack.currentWidget() is desk.empty_view
    button = desk.empty_view.failures_button
    assert button.isVisible() and button.text() == "Files that could not be added (1)"
    save_shot(desk, "07-empty-library-failures.png")
    button.click()
    assert desk.ingest_panel.isVisible()


def test_the_panel_follows_the_current_file_and_grows_with_its_splitter(desk, qtbot, qloop) -> None:
    panel: IngestPanel = desk.ingest_panel
    desk.resize(1280, 800)
    paths = [f"/docs/file-{i:02}.md" for i in range(40)]
    desk._ingest_started([])
    for path in paths:
        panel.update_progress(IngestProgress(path, "queued", 0, len(paths), 0, 0))
    qloop.settle()
    current = panel.history.current.child(35)
    panel.update_progress(IngestProgress(paths[35], "reading", 35, len(paths), 0, 0))
    qloop.settle()
    view = panel.files.viewport().rect()
    assert view.intersects(panel.files.visualItemRect(current))  # scrolled to it

    splitter = desk.outer_splitter
    before = panel.files.viewport().height()
    total = sum(splitter.sizes())
    splitter.setSizes([total - 360, 360])  # what dragging the handle does
    qloop.settle()
    assert panel.height() >= 340, (splitter.sizes(), desk.height())
    assert panel.files.viewport().height() > before + 100  # more rows show
    assert splitter.handleWidth() >= 5 and not splitter.childrenCollapsible()
    save_shot(desk, "07-import-panel-taller.png")
