"""What the stores built on a library's database need from it, on either backend.

:class:`~agentmaker.retrieval.sqlite.db.SqliteDatabase` (a file) and
:class:`~agentmaker.retrieval.postgres.db.PgDatabase` (a team library on a server) both
satisfy :class:`Database`: statements with ``?`` placeholders, a re-entrant write
transaction, committed-data reads, the key/value metadata and numbered migrations. The
source store, the bookkeeping, the conversations and the linked folders keep one SQL
text where the dialects agree and ask :func:`dialect` where they do not.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]
#: On a team library, the user whose items and documents every login sees: the team's
#: shared collection (``Scope(base="rag", user=SHARED_USER)``).
SHARED_USER = "shared"
_URL_SCHEMES = ("postgresql://", "postgres://")


class Database(Protocol):
    """A library's database (see the module docstring)."""

    path: str

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def executemany(self, sql: str, rows: Any) -> Any: ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    def read_snapshot(self) -> AbstractContextManager[None]: ...

    def transaction(self) -> AbstractContextManager[Any]: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def migrate(self, component: str, migrations: Sequence[Any]) -> None: ...

    def close(self) -> None: ...


def dialect(db: object) -> Dialect:
    """Which SQL the database speaks."""
    return "postgresql" if getattr(db, "dialect", "sqlite") == "postgresql" else "sqlite"


def this_computer(db: object, machine: str | None = None) -> str | None:
    """In a team library, the name of the computer whose files a row names (``machine``,
    or this one's); None in a library file, which one computer uses."""
    if dialect(db) != "postgresql":
        return None
    return platform.node() if machine is None else machine


def own_rows(machine: str | None, alias: str = "") -> tuple[str, tuple[str, ...]]:
    """The condition (and its parameter) that keeps a team library's app to this login's
    rows of this computer (also for the tables' owner, whom row-level security lets see
    all); always true in a library file (``machine`` None)."""
    if machine is None:
        return "1 = 1", ()
    return f"{alias}owner = current_user AND {alias}machine = ?", (machine,)


def is_postgres_url(target: object) -> bool:
    """True when ``target`` names a PostgreSQL server rather than a library file."""
    return isinstance(target, str) and target.startswith(_URL_SCHEMES)


def lock_document(db: object, doc_id: str) -> None:
    """Inside a write transaction, make other writers of ``doc_id`` wait until it ends.

    SQLite's write transaction already excludes every other writer; on PostgreSQL it is
    an advisory lock on the document, so writers of different documents run at once.
    """
    lock_key = getattr(db, "lock_key", None)
    if lock_key is not None and getattr(db, "in_transaction", False):
        lock_key(doc_id)
