"""The import panel's history: each batch is a group of its own files under its own
summary ("10:42 · Done: 3 added, 1 could not be read."), newest first.

A file added again in a later batch gets a row there; its older row stays in its batch
(the history says what happened then) but is marked as tried again, so only the newest
row of a file counts as its state.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

#: Batches kept in the panel; older ones are dropped with their rows.
MAX_BATCHES = 20
BATCH_STAGE = "batch"


class BatchHistory:
    """Groups of rows in ``tree``, one per batch; ``stage_role`` marks the group rows."""

    def __init__(self, tree: QTreeWidget, stage_role: int, limit: int = MAX_BATCHES) -> None:
        self._tree = tree
        self._stage_role = stage_role
        self._limit = limit
        self._current: QTreeWidgetItem | None = None

    @property
    def current(self) -> QTreeWidgetItem | None:
        """The group of the batch running or last run (None before the first)."""
        return self._current

    def groups(self) -> list[QTreeWidgetItem]:
        """The batch groups, newest first."""
        return [self._tree.topLevelItem(i) for i in range(self._tree.topLevelItemCount())]

    def start(self, heading: str, *, started: float | None = None) -> list[QTreeWidgetItem]:
        """A new batch: a new expanded group on top, older groups collapsed.

        ``started`` (seconds since the epoch) defaults to now. Returns the rows of groups
        dropped beyond the limit (the caller forgets them).
        """
        for group in self.groups():
            group.setExpanded(False)
        group = QTreeWidgetItem([heading])
        group.setData(0, self._stage_role, BATCH_STAGE)
        group.setData(0, Qt.ItemDataRole.UserRole + 10, started or time.time())
        font = QFont(group.font(0))
        font.setBold(True)
        group.setFont(0, font)
        group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
        self._tree.insertTopLevelItem(0, group)
        group.setFirstColumnSpanned(True)
        group.setExpanded(True)
        self._current = group
        dropped: list[QTreeWidgetItem] = []
        while self._tree.topLevelItemCount() > self._limit:
            old = self._tree.takeTopLevelItem(self._tree.topLevelItemCount() - 1)
            dropped += [old.child(i) for i in range(old.childCount())]
        return dropped

    def ensure_current(self, heading: Callable[[], str]) -> QTreeWidgetItem:
        """The current group, started first when there is none."""
        if self._current is None:
            self.start(heading())
        assert self._current is not None
        return self._current

    def set_heading(self, text: str, group: QTreeWidgetItem | None = None) -> None:
        """Put the batch's own summary on its group row."""
        group = group or self._current
        if group is not None:
            group.setText(0, text)
            group.setToolTip(0, "")

    @staticmethod
    def group_of(item: QTreeWidgetItem) -> QTreeWidgetItem | None:
        """The batch group holding a file row."""
        return item.parent()

    @staticmethod
    def started_at(group: QTreeWidgetItem) -> float:
        """When the batch began (seconds since the epoch)."""
        return float(group.data(0, Qt.ItemDataRole.UserRole + 10) or 0.0)
