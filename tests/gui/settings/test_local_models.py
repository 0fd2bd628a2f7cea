"""Settings → Language model: the models on this computer (list, choose, delete, download)."""

from __future__ import annotations

from pathlib import Path

from agentmaker_desk.bridge.model_downloads import ModelDownloads
from agentmaker_desk.settings.dialog import SettingsDialog
from agentmaker_desk.settings.local_models import LocalModelsPanel
from agentmaker_desk.settings.settings import ApiKeyStore, DeskSettings
from PySide6.QtWidgets import QMessageBox

from tests.gguf_files import write_gguf
from tests.gui.helpers import serve_slowly


def _downloads(tmp_path: Path) -> ModelDownloads:
    for folder in ("models", "elsewhere", "their folder"):
        (tmp_path / folder).mkdir(exist_ok=True)
    return ModelDownloads(str(tmp_path / "models"))


def _labels(panel: LocalModelsPanel) -> list[str]:
    return [panel.models.item(i).text() for i in range(panel.models.count())]


def test_lists_downloaded_and_chosen_models_with_sizes(qtbot, tmp_path: Path) -> None:
    downloads = _downloads(tmp_path)
    write_gguf(tmp_path / "models" / "mine.gguf", elements=512 * 1024)  # ~2 MB
    elsewhere = write_gguf(tmp_path / "elsewhere" / "theirs.gguf")
    assert downloads.use_file(str(elsewhere))[1] == ""
    panel = LocalModelsPanel(downloads)
    qtbot.addWidget(panel)
    labels = _labels(panel)
    assert labels[0] == "mine — 0.00 GB"
    assert labels[1].startswith("theirs — 0.00 GB · your file, used where it is")
    assert panel.delete_button.isEnabled() is False  # nothing selected yet
    with qtbot.waitSignal(panel.chosen) as chosen:
        panel.models.setCurrentRow(1)
    assert chosen.args == [str(elsewhere.resolve())]
    assert panel.delete_button.text() == "Remove from the list"  # their file is never deleted
    # The catalog offers what is not installed, the recommended one first in view.
    assert panel.catalog.count() >= 3
    assert "(recommended for this computer)" in panel.catalog.currentText()


def test_choosing_a_model_in_settings_saves_it_as_the_answer_model(qtbot, tmp_path: Path) -> None:
    downloads = _downloads(tmp_path)
    model = write_gguf(tmp_path / "models" / "answerer.gguf")
    dialog = SettingsDialog(DeskSettings(), ApiKeyStore(), downloads=downloads)
    qtbot.addWidget(dialog)
    panel = dialog.local_models
    assert panel is not None and panel.isHidden()  # only for "a model on this computer"
    dialog._select(dialog.llm_kind, "local")
    assert not panel.isHidden()
    panel.models.setCurrentRow(0)
    saved = dialog.result_settings().llm
    assert (saved.kind, saved.model) == ("local", str(model))
    # Deleting the chosen model (after the confirmation) leaves no stale choice.
    panel.confirm_delete()
    box = dialog.findChild(QMessageBox, "confirmDeleteModel")
    assert box is not None and "frees 0.00 GB" in box.text()
    box.button(QMessageBox.StandardButton.Yes).click()
    assert not model.exists()
    assert panel.models.count() == 0 and not panel.empty.isHidden()
    assert dialog.result_settings().llm.kind == "none"


def test_removing_a_chosen_file_forgets_it_but_keeps_the_file(qtbot, tmp_path: Path) -> None:
    downloads = _downloads(tmp_path)
    theirs = write_gguf(tmp_path / "their folder" / "theirs.gguf")
    panel = LocalModelsPanel(downloads)
    qtbot.addWidget(panel)
    assert panel.use_file(str(theirs))
    assert panel.selected_path() == str(theirs.resolve())
    panel.confirm_delete()  # no question asked: nothing is deleted
    assert theirs.exists() and panel.models.count() == 0
    png = tmp_path / "cat.gguf"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    assert not panel.use_file(str(png))
    assert "it looks like a PNG image" in panel.note.text()


def test_downloading_from_settings_shows_progress_and_selects_the_model(
    qtbot, tmp_path: Path
) -> None:
    downloads = _downloads(tmp_path)
    panel = LocalModelsPanel(downloads)
    qtbot.addWidget(panel)
    panel.show()
    payload = write_gguf(tmp_path / "src.gguf", elements=1024 * 1024).read_bytes()
    entry = panel.catalog.currentData()
    plain = type(entry)(**{**entry.__dict__, "size_bytes": None, "sha256": None,
                           "architecture": "llama"})  # fmt: skip
    with serve_slowly(payload) as url:
        start = downloads.start
        downloads.start = lambda e, url=url: start(e, url=url)  # type: ignore[method-assign]
        panel.catalog.setItemData(panel.catalog.currentIndex(), plain)
        with qtbot.waitSignal(panel.chosen, timeout=60000) as chosen:
            panel.download_button.click()
            qtbot.waitUntil(
                lambda: " GB at " in panel.download_progress.status.text(), timeout=20000
            )
            assert not panel.download_button.isEnabled()  # one download at a time
            assert panel.download_progress.cancel_button.isVisible()
        downloads.wait(20)
    path = Path(chosen.args[0])
    assert path.parent == tmp_path / "models" and path.read_bytes() == payload
    assert panel.selected_path() == str(path)
    assert panel.download_progress.status.text() == (
        "The model is ready. Answers are now written by it."
    )
