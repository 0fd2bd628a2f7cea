"""Asking for the passwords of locked files and trying them again, one dialog at a time.

Prompts open only when the person asks (a row's "Enter password…", the Linked folders
page): a dialog opening by itself would take the keyboard from what is being typed.
A locked file added by hand is ingested again with its password; a locked file of a
linked folder is retried through the folder sync (``retry_failed(paths=[p],
passwords={p: pw})``), so the folder stops listing it as failed. A wrong password
asks again, saying so; "Skip this file" leaves it as it is.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from agentmaker_desk.settings.password_dialog import ask_password

if TYPE_CHECKING:
    from agentmaker_desk.bridge.bridge import EngineBridge


class PasswordFlow(QObject):
    """One prompt per file at a time; the retry's own failure never opens a second one."""

    def __init__(self, bridge: EngineBridge, window: QWidget) -> None:
        super().__init__(window)
        self._bridge = bridge
        self._window = window
        self._asking: set[str] = set()
        self._lock = asyncio.Lock()

    @property
    def asking(self) -> set[str]:
        """Files whose password is being asked for (or waits to be)."""
        return set(self._asking)

    def ingest_finished(self, report: Any) -> None:
        """After a batch: say which files are locked. No prompt opens by itself (it would
        take the keyboard from whatever the person is typing); their rows offer one."""
        locked = [f.path for f in report.files if f.error_kind == "password_required"]
        if locked:
            self._announce(
                self.tr(
                    "%n file(s) need a password: use “Enter password…” on its row.", "", len(locked)
                )
            )

    def announce(self, paths: list[str]) -> None:
        """Linked folders found locked files: say where their passwords are entered."""
        if paths:
            self._announce(
                self.tr(
                    "%n file(s) in linked folders need a password: enter it in "
                    "Settings → Linked folders.",
                    "",
                    len(paths),
                )
            )

    def _announce(self, message: str) -> None:
        status = getattr(self._window, "statusBar", None)
        if status is not None:
            status().showMessage(message, 30_000)

    def ask_all(self, paths: list[str]) -> None:
        """Ask for each file's password in turn (skipping files already being asked for)."""
        wanted = [p for p in paths if p not in self._asking]
        if wanted:
            self._asking.update(wanted)
            self._bridge.spawn(self._ask_all(wanted), "passwords")

    def ask_for(self, path: str) -> None:
        """Ask for one file's password (double-click, context menu, Linked folders page)."""
        self.ask_all([path])

    async def _ask_all(self, paths: list[str]) -> None:
        try:
            async with self._lock:  # one dialog at a time, whoever asked
                for path in paths:
                    await self._retry_with_password(path)
        finally:
            self._asking.difference_update(paths)

    async def _retry_with_password(self, path: str) -> None:
        wrong = False
        while True:
            password = await ask_password(path, wrong=wrong, parent=self._window)
            if password is None:
                return
            folders = self._bridge.folders
            if folders.is_failure(path):
                report = await folders.aretry([path], {path: password})
                failed = getattr(report, "failed", None) or []
            else:
                report = await self._bridge.aingest([path], {path: password})
                failed = getattr(report, "files", None) or []
            if report is None:
                return
            if not any(f.error_kind == "password_required" for f in failed):
                return
            wrong = True
