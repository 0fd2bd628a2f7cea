"""Linked folders: linking in Settings indexes the folder, the watcher follows it live,
removing the link keeps or removes its documents; dropping a folder offers to keep it in
sync; a locked PDF in a linked folder asks for its password and is retried."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentmaker_desk.library.chunk_tree_model import Roles
from agentmaker_desk.settings.password_dialog import PasswordDialog
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QPushButton

from tests.gui.helpers import drop_files


def _titles(window) -> set[str]:
    """The documents the tree lists, by their own titles (the rows show file names)."""
    model = window.browser.model
    return {model.index(r, 0).data(Roles.PAYLOAD).title for r in range(model.rowCount())}


def _notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "hotel.md").write_text("# Hotel policy\n\nLodging is capped at 200 per night.\n")
    (folder / "sub" / "meals.md").write_text("# Meals\n\nMeal allowance is 50 per day.\n")
    return folder


def _unlink(page, qloop, button: str) -> None:
    box = qloop.call(page.confirm_remove)
    assert isinstance(box, QMessageBox) and box.isVisible()
    qloop.call(lambda: box.findChild(QPushButton, button).click())


def test_linking_in_settings_indexes_follows_and_unlinks(desk, qloop, tmp_path: Path) -> None:
    folder = _notes(tmp_path)
    dialog = desk.open_settings("linked")
    page = dialog.linked_page
    assert dialog.tabs.currentWidget() is page
    assert page.folder_paths() == [] and not page.remove_button.isEnabled()

    qloop.call(page.add_button.click)  # the folder dialog (non-modal)
    chooser = next(d for d in page._dialogs if isinstance(d, QFileDialog))
    chooser.setDirectory(str(folder))  # opened inside the folder, then "Choose"
    qloop.call(chooser.accept)
    qloop.until(lambda: page.folder_paths() == [str(folder)])
    qloop.until(lambda: _titles(desk) == {"Hotel policy", "Meals"})
    qloop.until(lambda: page.folder_list.topLevelItem(0).text(1) == "2")

    # A file created while the window is open appears in the chunk browser.
    (folder / "sub" / "giraffes.md").write_text("# Giraffes\n\nTall giraffes eat acacia.\n")
    qloop.until(lambda: "Giraffes" in _titles(desk))
    qloop.until(lambda: not desk.bridge.folders.scanning and not desk.bridge.tasks)

    # Stop following it but keep its documents …
    _unlink(page, qloop, "keepDocuments")
    qloop.until(lambda: page.folder_paths() == [])
    qloop.until(lambda: not desk.bridge.tasks)
    assert _titles(desk) == {"Hotel policy", "Meals", "Giraffes"}

    # … or link it again and remove the link with its documents.
    qloop.call(lambda: page.link(str(folder)))
    qloop.until(lambda: page.folder_paths() == [str(folder)])
    qloop.until(lambda: page.folder_list.topLevelItem(0).text(1) == "3")
    _unlink(page, qloop, "removeDocuments")
    qloop.until(lambda: page.folder_paths() == [] and _titles(desk) == set())
    assert desk.stack.currentWidget() is desk.empty_view
    dialog.reject()


def test_ignore_list_and_failures_with_retry(desk, qloop, tmp_path: Path) -> None:
    folder = _notes(tmp_path)
    (folder / "empty.md").write_text("")
    dialog = desk.open_settings("linked")
    page = dialog.linked_page
    qloop.call(lambda: page.link(str(folder)))
    qloop.until(lambda: page.failure_paths() == [str(folder / "empty.md")])
    qloop.until(lambda: _titles(desk) == {"Hotel policy", "Meals"})
    reason = page.failure_list.topLevelItem(0).text(1)
    assert "empty" in reason.lower()
    assert page.folder_list.topLevelItem(0).text(2) == "1"

    (folder / "empty.md").write_text("# Filled\n\nNow it has zebra text.\n")
    page.failure_list.topLevelItem(0).setSelected(True)
    qloop.call(page.retry_button.click)
    qloop.until(lambda: page.failure_paths() == [] and "Filled" in _titles(desk))

    page.ignore_edit.setPlainText("sub/\n")
    qloop.call(page.save_ignore_button.click)  # the watcher rescans: sub/ leaves
    qloop.until(lambda: _titles(desk) == {"Hotel policy", "Filled"})
    assert desk.bridge.folders.folders[0].ignore == ("sub/",)
    dialog.reject()


def test_dropping_a_folder_offers_to_keep_it_in_sync(desk, qloop, tmp_path: Path) -> None:
    folder = _notes(tmp_path)
    assert drop_files(desk, [folder])
    assert desk.link_offer.isVisible()
    assert "“notes”" in desk.link_offer.message.text()
    qloop.until(lambda: _titles(desk) == {"Hotel policy", "Meals"})  # added meanwhile
    qloop.call(desk.link_offer.keep_button.click)
    assert not desk.link_offer.isVisible()
    qloop.until(lambda: [f.path for f in desk.bridge.folders.folders] == [str(folder)])
    qloop.until(lambda: desk.bridge.folders.folders[0].files == 2)
    assert _titles(desk) == {"Hotel policy", "Meals"}
    qloop.until(lambda: not desk.bridge.tasks)

    assert drop_files(desk, [folder])  # already followed: no second offer
    assert not desk.link_offer.isVisible()
    qloop.until(lambda: not desk.bridge.tasks)


def test_a_locked_pdf_in_a_linked_folder_asks_for_its_password(
    desk, qloop, tmp_path: Path, bad_dir: Path
) -> None:
    folder = _notes(tmp_path)
    locked = folder / "contract.pdf"
    shutil.copy(bad_dir / "libreoffice-writer-password.pdf", locked)

    def dialog() -> PasswordDialog | None:
        found = [
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, PasswordDialog) and w.isVisible()
        ]
        return found[0] if found else None

    qloop.call(lambda: desk.bridge.folders.link(str(folder)))
    qloop.until(lambda: [f.path for f in desk.bridge.folders.failures] == [str(locked)])
    assert desk.bridge.folders.failures[0].error_kind == "password_required"
    qloop.until(lambda: "Linked folders" in desk.statusBar().currentMessage())
    assert dialog() is None  # no prompt takes the keyboard by itself
    desk.passwords.ask_for(str(locked))  # what the Linked folders page's button does
    qloop.until(lambda: dialog() is not None)
    dialog().password_edit.setText("wrong")
    dialog().accept()
    qloop.until(lambda: dialog() is not None and dialog().error_label.isVisibleTo(dialog()))
    dialog().password_edit.setText("openpassword")
    dialog().accept()
    qloop.until(lambda: desk.bridge.folders.failures == [])
    qloop.until(lambda: not desk.bridge.tasks)
    assert any(d.format == "pdf" for d in desk.bridge.documents)
