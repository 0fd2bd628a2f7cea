"""Roles on the test server that must give a password, like on a networked server.

pgserver trusts every local login. :func:`password_role` adds a ``scram-sha-256`` line for
one new role at the top of pg_hba.conf and reloads the server (no restart), so that role,
and only it, goes through the real password exchange.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg


def database_of(dsn: str) -> str:
    """The database name in a pgserver DSN (``postgresql://postgres:@/NAME?host=…``)."""
    return dsn.partition("?")[0].rpartition("/")[2]


def as_user(dsn: str, user: str) -> str:
    """``dsn`` logging in as ``user`` (no password)."""
    return dsn.replace("postgresql://postgres:@", f"postgresql://{user}@", 1)


@contextlib.contextmanager
def password_role(server: Any, dsn: str, password: str) -> Iterator[str]:
    """A new role that logs in with ``password`` only; it owns ``dsn``'s database and may
    create tables in its public schema."""
    role = f"pw_{uuid.uuid4().hex[:8]}"
    database = database_of(dsn)
    quoted = password.replace("'", "''")
    server.admin(f"CREATE ROLE {role} LOGIN PASSWORD '{quoted}'")
    server.admin(f"ALTER DATABASE {database} OWNER TO {role}")
    server.admin(f"GRANT CREATE ON SCHEMA public TO {role}", database=database)
    with psycopg.connect(server.dsn("postgres")) as conn:
        row = conn.execute("SHOW hba_file").fetchone()
    assert row is not None
    hba = Path(row[0])
    original = hba.read_text(encoding="utf-8")
    hba.write_text(f"local all {role} scram-sha-256\n" + original, encoding="utf-8")
    server.admin("SELECT pg_reload_conf()")
    try:
        yield role
    finally:
        hba.write_text(original, encoding="utf-8")
        server.admin("SELECT pg_reload_conf()")
