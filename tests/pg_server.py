"""A real PostgreSQL with pgvector for the team-library tests.

``pgserver`` (PyPI) bundles PostgreSQL 16 and the pgvector extension. One server runs per
test session in a temporary folder; each test that asks for ``pg_dsn`` gets a database of
its own (created from a template that already has the extension), so tests never see each
other's rows and need no cleanup.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_TEMPLATE = "agentmaker_template"
_counter = itertools.count()


class PgTestServer:
    """A running server: ``dsn(db)`` names a database on it, ``fresh_database()`` makes one."""

    def __init__(self, root: Path) -> None:
        import pgserver

        self._server = pgserver.get_server(root, cleanup_mode="stop")
        self.base_uri: str = self._server.get_uri()
        # A throwaway server: nothing needs to survive a crash, and without these every
        # commit and the shutdown checkpoint wait for the disk (tens of seconds when the
        # machine is busy, one database a test).
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            self.admin(f"ALTER SYSTEM SET {setting}")
        self.admin("SELECT pg_reload_conf()")
        self.admin("CREATE DATABASE " + _TEMPLATE)
        self.admin("CREATE EXTENSION IF NOT EXISTS vector", database=_TEMPLATE)

    def dsn(self, database: str) -> str:
        return str(self._server.get_uri(database))

    def admin(self, sql: str, *, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.dsn(database), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def fresh_database(self) -> str:
        name = f"t{os.getpid()}_{next(_counter)}"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {_TEMPLATE}")
        return self.dsn(name)

    def stop(self) -> None:
        self._server.cleanup()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgTestServer]:
    """One PostgreSQL + pgvector server for the session (skips loudly if pgserver is missing)."""
    try:
        import pgserver  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:  # pragma: no cover - the dev extra installs both
        if os.environ.get("CI"):
            raise
        pytest.skip(f"team-library tests need the dev extra (pgserver, psycopg): {exc}")
    with tempfile.TemporaryDirectory(prefix="agentmaker-pg-") as root:
        server = PgTestServer(Path(root))
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture
def pg_dsn(pg_server: PgTestServer) -> str:
    """A connection URL to an empty database of this test's own, pgvector installed."""
    return pg_server.fresh_database()
