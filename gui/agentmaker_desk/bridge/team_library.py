"""Part of the bridge: team libraries (PostgreSQL + pgvector) — testing and opening one.

Settings › Library asks :func:`check_team_library` to test an address (the check runs in
a worker thread, never on the GUI thread) and gets a :class:`TeamCheckOutcome`, plain data
the page can show without knowing the engine's error classes. :func:`open_team_library`
opens the chosen team library with the password from the system keyring; the password is
put into the address only in memory, never into a setting or a signal.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from agentmaker_desk.settings.library_choice import LibraryChoice
from agentmaker_desk.settings.settings import ApiKeyStore, DeskSettings


@dataclass(frozen=True)
class TeamCheckOutcome:
    """The result of testing a team library, for the settings page.

    ``kind`` is "ok" or the problem: "address", "unreachable", "login", "no_password",
    "not_allowed", "database", "pgvector", "too_old", "permission", "other".
    ``message`` is the engine's plain-words explanation, with the command to run if any.
    """

    kind: str
    message: str
    server_version: str = ""
    pgvector_version: str = ""

    @property
    def ok(self) -> bool:
        """True when the team library can be used."""
        return self.kind == "ok"


def _kind_of(problem: Any) -> str:
    from agentmaker import errors

    if problem is None:
        return "ok"
    if isinstance(problem, errors.TeamLoginError):
        return {"no_password": "no_password", "not_allowed": "not_allowed"}.get(
            problem.reason, "login"
        )
    kinds: tuple[tuple[type[Exception], str], ...] = (
        (errors.TeamLibraryAddressError, "address"),
        (errors.TeamServerUnreachableError, "unreachable"),
        (errors.TeamDatabaseMissingError, "database"),
        (errors.PgvectorMissingError, "pgvector"),
        (errors.TeamServerTooOldError, "too_old"),
        (errors.TeamPermissionError, "permission"),
    )
    return next((kind for cls, kind in kinds if isinstance(problem, cls)), "other")


async def check_team_library(url: str, user: str, password: str | None) -> TeamCheckOutcome:
    """Test the team library at ``url`` as ``user`` (off the GUI thread)."""
    from agentmaker.errors import AgentmakerError
    from agentmaker.retrieval.postgres.check import check_team_library as check
    from agentmaker.retrieval.postgres.check import split_password, with_credentials

    bare, inline = split_password(url)
    try:
        address = with_credentials(bare, user.strip() or None)
    except ValueError as error:  # urllib: a port that is not a number
        return TeamCheckOutcome("address", str(error))
    try:
        result = await asyncio.to_thread(check, address, password or inline)
    except AgentmakerError as error:
        return TeamCheckOutcome("other", str(error))
    return TeamCheckOutcome(
        _kind_of(result.problem),
        result.message,
        result.server_version or "",
        result.pgvector_version or "",
    )


async def open_team_library(
    bridge: Any, choice: LibraryChoice, keys: ApiKeyStore, settings: DeskSettings
) -> bool:
    """Open the team library ``choice`` through ``bridge`` (False and a signal on failure)."""
    from agentmaker.retrieval.postgres.check import with_credentials

    password = keys.get(choice.password_account)
    # The check first: its messages name the problem (server down, password, pgvector…)
    # where a failed open could only say that connecting failed.
    outcome = await check_team_library(choice.url, choice.user, password)
    if not outcome.ok:
        await bridge.close_library()
        bridge.libraryFailed.emit(outcome.message)
        return False
    address = with_credentials(choice.url, choice.user.strip() or None)
    return bool(await bridge.open_library(address, settings=settings, password=password))
