"""Settings › Library: the library file on this computer, or a team library on PostgreSQL.

The team library's address and user name are settings; its password goes to the system
keyring when the dialog is saved (never into the settings file). "Test connection" asks
the bridge to connect (off the GUI thread) and shows what it found in plain words: a
translated headline for the kind of problem and the engine's explanation under it, which
names the exact command to run when there is one (``CREATE EXTENSION vector;``, a GRANT).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from agentmaker_desk.settings.library_choice import LibraryChoice, strip_password
from agentmaker_desk.settings.settings import ApiKeyStore

#: Tests a team library: (url, user, password) → an object with ``kind``, ``message``,
#: ``server_version``, ``pgvector_version`` (the bridge's ``TeamCheckOutcome``).
TeamCheck = Callable[[str, str, str | None], Awaitable[Any]]


class LibraryPage(QWidget):
    """Choose where the library lives; test a team library before using it."""

    checkFinished = Signal(object)  # the outcome shown (tests wait for it)

    def __init__(
        self,
        choice: LibraryChoice,
        keys: ApiKeyStore,
        *,
        local_path: str = "",
        check: TeamCheck | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("libraryPage")
        self._keys = keys
        self._check = check
        self._tasks: set[asyncio.Future[Any]] = set()

        self.local_choice = QRadioButton(self.tr("This computer"), self)
        self.local_choice.setObjectName("libraryLocal")
        local_note = QLabel(
            self.tr("Your documents and their index are kept in one file: {path}").format(
                path=local_path or self.tr("(the default library file)")
            ),
            self,
        )
        local_note.setTextFormat(Qt.TextFormat.PlainText)
        local_note.setWordWrap(True)
        self.team_choice = QRadioButton(self.tr("A team library (PostgreSQL server)"), self)
        self.team_choice.setObjectName("libraryTeam")
        group = QButtonGroup(self)
        group.addButton(self.local_choice)
        group.addButton(self.team_choice)
        team_note = QLabel(
            self.tr(
                "Several people search and add to one library on a shared server. Each "
                "person's own documents stay theirs; shared ones are seen by everyone. The "
                "server needs PostgreSQL 13 or newer with the pgvector extension (0.5 or newer)."
            ),
            self,
        )
        team_note.setWordWrap(True)

        self.team_form = QWidget(self)
        column = QVBoxLayout(self.team_form)
        column.setContentsMargins(24, 0, 0, 0)
        form = QFormLayout()
        self.url = QLineEdit(self.team_form)
        self.url.setObjectName("teamUrl")
        self.url.setPlaceholderText("postgresql://db.example.com:5432/library")
        self.url.setAccessibleName(self.tr("Server address"))
        self.url.editingFinished.connect(self._move_password_out_of_url)
        self.url.textChanged.connect(self._update_password_status)
        self.user = QLineEdit(self.team_form)
        self.user.setObjectName("teamUser")
        self.user.setAccessibleName(self.tr("User name"))
        self.user.textChanged.connect(self._update_password_status)
        self.password = QLineEdit(self.team_form)
        self.password.setObjectName("teamPassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setAccessibleName(self.tr("Password"))
        self.password_status = QLabel(self.team_form)
        self.password_status.setObjectName("teamPasswordStatus")
        self.password_status.setWordWrap(True)
        self.password_status.setTextFormat(Qt.TextFormat.PlainText)
        self.test_button = QPushButton(self.tr("Test connection"), self.team_form)
        self.test_button.setObjectName("teamTest")
        self.test_button.clicked.connect(self.test_connection)
        self.test_button.setEnabled(check is not None)
        self.result = QLabel(self.team_form)
        self.result.setObjectName("teamTestResult")
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        # The message may hold a command for the administrator: let people copy it.
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.tr("Server address"), self.url)
        form.addRow(self.tr("User name"), self.user)
        form.addRow(self.tr("Password"), self.password)
        # Wrapped labels below the form, not in it: a spanning form row does not wrap them.
        column.addLayout(form)
        column.addWidget(self.password_status)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        column.addLayout(test_row)
        column.addWidget(self.result)

        layout = QVBoxLayout(self)
        layout.addWidget(self.local_choice)
        layout.addWidget(self._indented(local_note))
        layout.addSpacing(8)
        layout.addWidget(self.team_choice)
        layout.addWidget(self._indented(team_note))
        layout.addWidget(self.team_form)
        layout.addStretch(1)

        self.url.setText(choice.url)
        self.user.setText(choice.user)
        (self.team_choice if choice.kind == "team" else self.local_choice).setChecked(True)
        self.team_choice.toggled.connect(self._kind_changed)
        self._kind_changed()
        self._update_password_status()

    def _indented(self, label: QLabel) -> QWidget:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(24, 0, 0, 0)
        row.addWidget(label)
        return box

    # --- what the page holds ----------------------------------------------------------

    def choice(self) -> LibraryChoice:
        """The library as chosen now (the address never holds a password)."""
        return LibraryChoice(
            kind="team" if self.team_choice.isChecked() else "local",
            url=strip_password(self.url.text())[0],
            user=self.user.text().strip(),
        )

    def typed_password(self) -> str | None:
        """The password typed here (or pasted inside the address), else None."""
        if self.password.text():
            return self.password.text()
        return strip_password(self.url.text())[1]

    def store_password(self) -> bool:
        """Save a typed password in the keyring (on Save); True when there was one."""
        password = self.typed_password()
        if not password or not self.team_choice.isChecked():
            return False
        self._keys.set(self.choice().password_account, password)
        self.password.clear()
        return True

    # --- reactions --------------------------------------------------------------------

    def _kind_changed(self, *_args: Any) -> None:
        self.team_form.setEnabled(self.team_choice.isChecked())

    def _move_password_out_of_url(self) -> None:
        bare, password = strip_password(self.url.text())
        if password is not None:
            self.url.setText(bare)
        if password:  # "user:@host" holds an empty one: keep what was typed
            self.password.setText(password)

    def _update_password_status(self, *_args: Any) -> None:
        stored = self._keys.get(self.choice().password_account) is not None
        if not self._keys.available():
            text = self.tr(
                "No system keyring was found on this computer, so the password cannot be "
                "saved. It is kept in memory until you close the app, and never written to "
                "a file."
            )
        elif stored:
            text = self.tr(
                "A password is saved in the system keyring. Type a new one to replace it."
            )
        else:
            text = self.tr("The password is stored in the system keyring, never in a file.")
        self.password_status.setText(text)

    def test_connection(self) -> asyncio.Future[Any] | None:
        """Test the team library as entered (in the background); the result is shown here."""
        if self._check is None:
            return None
        self._move_password_out_of_url()
        choice = self.choice()
        if not choice.url:
            self.result.setText(self.tr("Type the server address first."))
            return None
        password = self.typed_password() or self._keys.get(choice.password_account)
        self.test_button.setEnabled(False)
        self.result.setText(self.tr("Connecting…"))
        task = asyncio.ensure_future(self._run_check(choice, password))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run_check(self, choice: LibraryChoice, password: str | None) -> None:
        assert self._check is not None
        try:
            outcome = await self._check(choice.url, choice.user, password)
        finally:
            self.test_button.setEnabled(True)
        self.show_outcome(outcome)

    def show_outcome(self, outcome: Any) -> None:
        """Show a test's result: a headline in the interface's language, then the details."""
        kind = getattr(outcome, "kind", "other")
        if kind == "ok":
            if outcome.pgvector_version:
                text = self.tr("Connected: PostgreSQL {server} with pgvector {vector}.").format(
                    server=outcome.server_version, vector=outcome.pgvector_version
                )
            else:
                text = self.tr(
                    "Connected: PostgreSQL {server}. pgvector is installed and will be "
                    "enabled when the library is first opened."
                ).format(server=outcome.server_version)
            self.result.setText(text + " " + self.tr("The team library can be used."))
        else:
            self.result.setText(self._headline(kind) + "\n" + str(outcome.message))
        self.checkFinished.emit(outcome)

    def _headline(self, kind: str) -> str:
        headlines = {
            "address": self.tr("This is not a PostgreSQL address."),
            "unreachable": self.tr("The server cannot be reached."),
            "login": self.tr("The user name or the password is wrong."),
            "no_password": self.tr("The server needs a password."),
            "not_allowed": self.tr("The server does not accept connections from here."),
            "database": self.tr("The database does not exist."),
            "pgvector": self.tr("The pgvector extension is missing."),
            "too_old": self.tr("The server is too old."),
            "permission": self.tr("This user may not create the library's tables."),
        }
        return headlines.get(kind, self.tr("The connection failed."))
