"""A folder unlinked and linked again before the watcher thread looked is scanned again.

Found by the GUI soak under load (test_linking_in_settings_indexes_follows_and_unlinks):
the watcher compared only ignore lists, so a quick unlink + link looked like no change
and the folder was not scanned until the periodic rescan.
"""

from __future__ import annotations

from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.folders.sync import FolderSync
from agentmaker.rag.folders.watch import FolderWatcher
from agentmaker.testing import FakeEmbedder


def test_a_quick_unlink_and_link_counts_as_a_new_folder(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nZebras.\n")
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        sync = FolderSync(lib)
        sync.link(folder)
        watcher = FolderWatcher(sync, live=False, rescan_interval=None)
        # What the watcher thread does on each refresh (driven here, without the thread).
        assert watcher._reconcile() == [str(folder)]
        assert watcher._reconcile() == []  # nothing changed
        sync.unlink(folder, remove_documents=False)
        sync.link(folder)  # both before the watcher looked again
        assert watcher._reconcile() == [str(folder)]
