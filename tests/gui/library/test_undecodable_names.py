"""A file whose name is not UTF-8 (legal on Linux) is indexed from the window too."""

from __future__ import annotations

import os
from pathlib import Path

from tests.gui.helpers import drop_files


def test_a_dropped_folder_with_a_latin1_file_name_is_indexed(desk, qloop, tmp_path: Path) -> None:
    folder = tmp_path / "menus"
    folder.mkdir()
    path = folder / os.fsdecode(b"caf\xe9.md")
    path.write_text("# Menu\n\nZebra espresso every morning.\n")
    assert drop_files(desk, [folder])
    qloop.until(lambda: desk.ingest_panel.state_of(str(path)) == "indexed")
    qloop.until(lambda: not desk.bridge.tasks)
    assert [d.source for d in desk.bridge.documents] == [str(path)]
    qloop.call(desk.link_offer.keep_button.click)
    qloop.until(lambda: [f.path for f in desk.bridge.folders.folders] == [str(folder)])
    qloop.run(desk.bridge.folders.wait_idle())
    assert desk.bridge.folders.failures == []
