"""Settings › Linked folders: the folders the library follows, their problems, their rules.

Unlike the other settings pages, changes here apply at once (linking a folder starts
indexing it). The page talks to the bridge's
:class:`~agentmaker_desk.bridge.folder_links.FolderLinks`;
dialogs are opened with ``open()``, never ``exec()``.
"""

from __future__ import annotations

import html
import os
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDateTime, QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.engine_messages import KIND_CODES, engine_text
from agentmaker_desk.widgets.icons import icon

_PATH_ROLE = Qt.ItemDataRole.UserRole + 1
_KIND_ROLE = Qt.ItemDataRole.UserRole + 2


def display_path(path: str) -> str:
    """``~/Documents/Notes`` for a folder in the home folder, else the path itself."""
    home = os.path.expanduser("~")
    if home and home != os.sep and path.startswith(home.rstrip(os.sep) + os.sep):
        return "~" + path[len(home.rstrip(os.sep)) :]
    return path


class LinkedFoldersPage(QWidget):
    """List of linked folders (path, files, problems, last sync) with their actions."""

    passwordRequested = Signal(str)  # a locked file of a linked folder

    def __init__(self, links: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("linkedFoldersPage")
        self._links = links
        self._dialogs: set[QWidget] = set()
        self._ignore: dict[str, tuple[str, ...]] = {}

        intro = QLabel(
            self.tr(
                "The library follows these folders while the app runs: new and changed files "
                "are added, deleted ones are removed. Changes on this page apply at once."
            ),
            self,
        )
        intro.setWordWrap(True)
        self.folder_list = QTreeWidget(self)
        self.folder_list.setObjectName("linkedFolders")
        self.folder_list.setAccessibleName(self.tr("Linked folders"))
        self.folder_list.setColumnCount(4)
        self.folder_list.setHeaderLabels(
            [self.tr("Folder"), self.tr("Files"), self.tr("Problems"), self.tr("Last sync")]
        )
        self.folder_list.setRootIsDecorated(False)
        self.folder_list.setUniformRowHeights(True)
        self.folder_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.folder_list.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        self.folder_list.currentItemChanged.connect(self._selected)

        self.add_button = QPushButton(icon("folder"), self.tr("Add folder…"), self)
        self.add_button.setObjectName("linkFolder")
        self.add_button.clicked.connect(self.choose_folder)
        self.remove_button = QPushButton(self.tr("Remove…"), self)
        self.remove_button.setObjectName("unlinkFolder")
        self.remove_button.clicked.connect(self.confirm_remove)
        self.sync_button = QPushButton(icon("sync"), self.tr("Sync now"), self)
        self.sync_button.setObjectName("syncNow")
        self.sync_button.clicked.connect(self.sync_now)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("linkStatus")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.sync_button)
        buttons.addStretch(1)

        self.ignore_edit = QPlainTextEdit(self)
        self.ignore_edit.setObjectName("ignorePatterns")
        self.ignore_edit.setAccessibleName(self.tr("Files to skip"))
        self.ignore_edit.setPlaceholderText(
            self.tr("One pattern per line, for example:\n*.tmp\ndrafts/\nold-*.pdf")
        )
        self.ignore_edit.setTabChangesFocus(True)
        self.save_ignore_button = QPushButton(self.tr("Save list"), self)
        self.save_ignore_button.setObjectName("saveIgnore")
        self.save_ignore_button.clicked.connect(self.save_ignore)
        ignore_box = QGroupBox(self.tr("Skip these files"), self)
        ignore_layout = QVBoxLayout(ignore_box)
        ignore_layout.addWidget(self.ignore_edit, 1)
        ignore_layout.addWidget(self.save_ignore_button, 0, Qt.AlignmentFlag.AlignRight)

        self.failure_list = QTreeWidget(self)
        self.failure_list.setObjectName("folderFailures")
        self.failure_list.setAccessibleName(self.tr("Files that could not be read"))
        self.failure_list.setColumnCount(2)
        self.failure_list.setHeaderLabels([self.tr("File"), self.tr("Reason")])
        self.failure_list.setRootIsDecorated(False)
        self.failure_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.failure_list.header().resizeSection(0, 170)
        self.failure_list.itemSelectionChanged.connect(self._update_buttons)
        self.failure_list.itemDoubleClicked.connect(self._failure_activated)
        self.retry_button = QPushButton(self.tr("Retry"), self)
        self.retry_button.setObjectName("retryFailures")
        self.retry_button.setToolTip(self.tr("Try the selected files again (all when none is)"))
        self.retry_button.clicked.connect(self.retry)
        self.password_button = QPushButton(self.tr("Enter password…"), self)
        self.password_button.clicked.connect(self._ask_password)
        failure_box = QGroupBox(self.tr("Files that could not be read"), self)
        failure_layout = QVBoxLayout(failure_box)
        failure_layout.addWidget(self.failure_list, 1)
        failure_buttons = QHBoxLayout()
        failure_buttons.addStretch(1)
        failure_buttons.addWidget(self.password_button)
        failure_buttons.addWidget(self.retry_button)
        failure_layout.addLayout(failure_buttons)

        details = QHBoxLayout()
        details.addWidget(failure_box, 2)
        details.addWidget(ignore_box, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.folder_list, 2)
        layout.addLayout(buttons)
        layout.addWidget(self.status_label)
        layout.addLayout(details, 3)

        links.foldersChanged.connect(self.show_folders)
        links.failuresChanged.connect(self.show_failures)
        links.syncProgress.connect(self._sync_progress)
        links.syncFinished.connect(self._sync_finished)
        links.linkFailed.connect(self.status_label.setText)
        self.show_folders(list(links.folders))
        self.show_failures(list(links.failures))
        if links.folders:
            self.status_label.setText(
                self.tr("Syncing…") if links.scanning else self.tr("Up to date.")
            )
        self._update_buttons()

    # --- showing -----------------------------------------------------------------

    def current_folder(self) -> str | None:
        item = self.folder_list.currentItem()
        return item.data(0, _PATH_ROLE) if item is not None else None

    def folder_paths(self) -> list[str]:
        """The folders listed, in order."""
        count = self.folder_list.topLevelItemCount()
        return [self.folder_list.topLevelItem(i).data(0, _PATH_ROLE) for i in range(count)]

    def show_folders(self, folders: list[Any]) -> None:
        current = self.current_folder()
        unwatched = self._links.unwatched
        self._ignore = {f.path: tuple(f.ignore) for f in folders}
        # Rebuilt with signals blocked: no slot runs while the old items are destroyed.
        self.folder_list.blockSignals(True)
        self.folder_list.clear()
        for info in folders:
            item = QTreeWidgetItem(
                [
                    display_path(info.path),
                    f"{info.files:,}",
                    f"{info.failed:,}" if info.failed else "—",
                    self._when(info.last_scan_at),
                ]
            )
            item.setData(0, _PATH_ROLE, info.path)
            tip = info.path
            if info.path in unwatched:
                tip += "\n" + self.tr(
                    "Changes in this folder are not seen at once here; it is checked every "
                    "minute instead."
                )
            item.setToolTip(0, f"<p>{html.escape(tip)}</p>")
            self.folder_list.addTopLevelItem(item)
            if info.path == current:
                self.folder_list.setCurrentItem(item)
        if self.folder_list.currentItem() is None and folders:
            self.folder_list.setCurrentItem(self.folder_list.topLevelItem(0))
        self.folder_list.blockSignals(False)
        if self.current_folder() != current:
            self._selected()
        if not folders:
            self.status_label.setText(
                self.tr("No folder is linked yet. Add one to keep the library in step with it.")
            )
            self.ignore_edit.clear()
        self._update_buttons()

    def show_failures(self, failures: list[Any]) -> None:
        folder = self.current_folder()
        self.failure_list.blockSignals(True)
        self.failure_list.clear()
        for failure in failures:
            if folder is not None and failure.folder != folder:
                continue
            name = Path(failure.path).name
            text = engine_text(
                code=KIND_CODES.get(failure.error_kind or ""),
                params={"file": name},
                fallback=failure.error,
            )
            # The name is in its own column.
            reason = text.removeprefix(f"{name}: ").removeprefix(f"{name}：")
            item = QTreeWidgetItem([name, reason[:1].upper() + reason[1:]])
            item.setData(0, _PATH_ROLE, failure.path)
            item.setData(0, _KIND_ROLE, failure.error_kind)
            item.setToolTip(0, f"<p>{html.escape(failure.path)}</p>")
            item.setToolTip(1, f"<p>{html.escape(text)}</p>")
            self.failure_list.addTopLevelItem(item)
        self.failure_list.blockSignals(False)
        self._update_buttons()

    def failure_paths(self) -> list[str]:
        count = self.failure_list.topLevelItemCount()
        return [self.failure_list.topLevelItem(i).data(0, _PATH_ROLE) for i in range(count)]

    def _when(self, timestamp: float | None) -> str:
        if not timestamp:
            return self.tr("not yet")
        seconds = time.time() - timestamp
        if seconds < 60:
            return self.tr("just now")
        if seconds < 3600:
            return self.tr("{n} min ago").format(n=int(seconds // 60))
        moment = QDateTime.fromSecsSinceEpoch(int(timestamp))
        return QLocale().toString(moment, QLocale.FormatType.ShortFormat)

    def _selected(self, *_args: Any) -> None:
        folder = self.current_folder()
        self.ignore_edit.setPlainText("\n".join(self._ignore.get(folder or "", ())))
        self.show_failures(list(self._links.failures))

    def _update_buttons(self) -> None:
        has_folder = self.current_folder() is not None
        self.remove_button.setEnabled(has_folder)
        self.sync_button.setEnabled(bool(self._ignore))
        self.ignore_edit.setEnabled(has_folder)
        self.save_ignore_button.setEnabled(has_folder)
        self.retry_button.setEnabled(self.failure_list.topLevelItemCount() > 0)
        locked = [
            i
            for i in self.failure_list.selectedItems()
            if i.data(0, _KIND_ROLE) == "password_required"
        ]
        self.password_button.setEnabled(len(locked) == 1)

    def _sync_progress(self, progress: Any) -> None:
        if progress.action == "done":
            return
        name = Path(progress.folder).name or progress.folder
        self.status_label.setText(
            self.tr(
                "Syncing “{name}”: {done} of %n file(s) looked at…", "", progress.files_total
            ).format(name=name, done=progress.files_done)
        )

    def _sync_finished(self, report: Any) -> None:
        if report.missing_folders:
            self.status_label.setText(
                self.tr("Cannot reach {folders}; its documents are kept until it is back.").format(
                    folders=", ".join(report.missing_folders)
                )
            )
            return
        self.status_label.setText(
            self.tr("Up to date: {added} added, {updated} updated, {removed} removed.").format(
                added=len(report.added) + len(report.copied),
                updated=len(report.updated) + len(report.renamed),
                removed=len(report.removed),
            )
            if report.changed
            else self.tr("Up to date.")
        )

    # --- actions -------------------------------------------------------------------

    def choose_folder(self) -> None:
        """Pick a folder to link (non-modal)."""
        dialog = QFileDialog(self, self.tr("Choose a folder to keep in sync"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.link)
        self._open(dialog)

    def link(self, folder: str) -> Any:
        self.status_label.setText(self.tr("Linking “{name}”…").format(name=Path(folder).name))
        return self._links.link(folder)

    def confirm_remove(self) -> QMessageBox | None:
        """Ask whether the folder's documents stay in the library (non-modal)."""
        folder = self.current_folder()
        if folder is None:
            return None
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Stop following this folder"),
            self.tr(
                "Stop following “{folder}”? Its files themselves are not touched. Should its "
                "documents stay in the library?"
            ).format(folder=folder),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("unlinkQuestion")
        box.setTextFormat(Qt.TextFormat.PlainText)
        keep = box.addButton(self.tr("Keep its documents"), QMessageBox.ButtonRole.AcceptRole)
        remove = box.addButton(
            self.tr("Remove its documents"), QMessageBox.ButtonRole.DestructiveRole
        )
        keep.setObjectName("keepDocuments")
        remove.setObjectName("removeDocuments")

        def clicked(button: Any) -> None:
            if button is keep or button is remove:
                self._links.unlink(folder, remove_documents=button is remove)

        box.buttonClicked.connect(clicked)
        self._open(box)
        return box

    def sync_now(self) -> None:
        self.status_label.setText(self.tr("Syncing…"))
        self._links.sync_now(None)

    def save_ignore(self) -> Any:
        folder = self.current_folder()
        if folder is None:
            return None
        patterns = [line.strip() for line in self.ignore_edit.toPlainText().splitlines()]
        self.status_label.setText(self.tr("The list is saved; the folder is synced again."))
        return self._links.set_ignore(folder, [p for p in patterns if p])

    def retry(self) -> Any:
        selected = [i.data(0, _PATH_ROLE) for i in self.failure_list.selectedItems()]
        paths = selected or self.failure_paths()
        if not paths:
            return None
        self.status_label.setText(self.tr("Trying again…"))
        locked = [
            i.data(0, _PATH_ROLE)
            for i in self.failure_list.selectedItems()
            if i.data(0, _KIND_ROLE) == "password_required"
        ]
        if len(selected) == 1 and locked:
            self.passwordRequested.emit(locked[0])
            return None
        return self._links.retry(paths)

    def _ask_password(self) -> None:
        for item in self.failure_list.selectedItems():
            if item.data(0, _KIND_ROLE) == "password_required":
                self.passwordRequested.emit(item.data(0, _PATH_ROLE))
                return

    def _failure_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        path = item.data(0, _PATH_ROLE)
        if item.data(0, _KIND_ROLE) == "password_required":
            self.passwordRequested.emit(path)
        else:
            self._links.retry([path])

    def _open(self, dialog: QWidget) -> None:
        self._dialogs.add(dialog)
        dialog.finished.connect(lambda _r: self._dialogs.discard(dialog))
        dialog.open()
