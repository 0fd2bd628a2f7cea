"""Testing a team library's server: each problem is named in plain words, on a real server.

The test server (pgserver) trusts every local login, so for the password tests one role
gets a ``scram-sha-256`` line of its own in pg_hba.conf (``tests/pg_roles.py``): the same
password exchange a networked server does. A server that is too old, or one without
pgvector installed at all, cannot be made from pgserver's binaries; those decisions are
tested on the parsed versions instead.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from agentmaker.errors import (
    PgvectorMissingError,
    TeamDatabaseMissingError,
    TeamLibraryAddressError,
    TeamLoginError,
    TeamPermissionError,
    TeamServerTooOldError,
    TeamServerUnreachableError,
)
from agentmaker.retrieval.postgres import check
from agentmaker.retrieval.postgres.check import (
    check_team_library,
    classify_connect_error,
    parse_extension_version,
    parse_server_version,
    split_password,
    with_credentials,
)

from tests.pg_roles import as_user as _as_user
from tests.pg_roles import database_of
from tests.pg_roles import password_role as make_password_role

PASSWORD = "c0rrect horse:b@ttery/staple"


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def _with_database(dsn: str, database: str) -> str:
    head, _, tail = dsn.partition("?")
    return head.rpartition("/")[0] + "/" + database + "?" + tail


@pytest.fixture
def password_role(pg_server, pg_dsn: str) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A role that must give its password (scram-sha-256), owner of ``pg_dsn``'s database."""
    with make_password_role(pg_server, pg_dsn, PASSWORD) as role:
        yield role


def test_a_working_library_says_what_it_found(pg_dsn: str) -> None:
    result = check_team_library(pg_dsn)
    assert result.ok, result.message
    assert result.server_version is not None and result.server_version.startswith("16.")
    assert result.pgvector_version is not None
    assert parse_extension_version(result.pgvector_version) >= (0, 5, 0)
    assert "the team library can be used" in result.message
    result.raise_for_problem()  # nothing to raise


def test_a_stopped_port_is_server_not_reachable() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = check_team_library(f"postgresql://alice@127.0.0.1:{port}/library")
    assert isinstance(result.problem, TeamServerUnreachableError)
    assert f"127.0.0.1:{port}" in result.message
    assert "Connection refused" in result.message
    with pytest.raises(TeamServerUnreachableError):
        result.raise_for_problem()


def test_a_wrong_or_missing_password_is_named(pg_dsn: str, password_role: str) -> None:
    url = _as_user(pg_dsn, password_role)
    wrong = check_team_library(url, "not the password")
    assert isinstance(wrong.problem, TeamLoginError)
    assert wrong.problem.reason == "password"
    assert f"user name {password_role!r} or its password" in wrong.message
    missing = check_team_library(url)
    assert isinstance(missing.problem, TeamLoginError)
    assert missing.problem.reason == "no_password"
    assert "wants a password" in missing.message
    right = check_team_library(url, PASSWORD)
    assert right.ok, right.message
    assert right.user == password_role
    # The password may also come inside the URL (quoted); the report never repeats it.
    inline = check_team_library(with_credentials(url, password=PASSWORD))
    assert inline.ok, inline.message
    assert PASSWORD not in inline.url and "c0rrect" not in inline.message


def test_an_unknown_user_is_a_login_problem(pg_dsn: str) -> None:
    result = check_team_library(_as_user(pg_dsn, "nobody_here"))
    assert isinstance(result.problem, TeamLoginError)
    assert "'nobody_here'" in result.message


def test_a_missing_database_is_named(pg_dsn: str) -> None:
    result = check_team_library(_with_database(pg_dsn, "no_such_library"))
    assert isinstance(result.problem, TeamDatabaseMissingError)
    assert "no database named 'no_such_library'" in result.message
    assert "CREATE DATABASE no_such_library;" in result.message


def test_a_database_without_pgvector_gives_the_command(pg_server) -> None:  # type: ignore[no-untyped-def]
    database, role = _unique("novec"), _unique("member")
    pg_server.admin(f"CREATE DATABASE {database} TEMPLATE template0")
    pg_server.admin(f"CREATE ROLE {role} LOGIN")
    pg_server.admin(f"GRANT CREATE ON SCHEMA public TO {role}", database=database)
    result = check_team_library(_as_user(pg_server.dsn(database), role))
    assert isinstance(result.problem, PgvectorMissingError)
    assert result.problem.installed_on_server
    assert "CREATE EXTENSION vector;" in result.message
    assert repr(database) in result.message
    # A superuser may enable it: the library does so when first opened.
    as_admin = check_team_library(pg_server.dsn(database))
    assert as_admin.ok, as_admin.message
    assert as_admin.pgvector_version is None
    assert "will be enabled on first use" in as_admin.message


def test_no_right_to_create_tables_is_named(pg_server, pg_dsn: str) -> None:  # type: ignore[no-untyped-def]
    role = _unique("reader")
    pg_server.admin(f"CREATE ROLE {role} LOGIN")  # PostgreSQL 15+: no CREATE on public
    result = check_team_library(_as_user(pg_dsn, role))
    assert isinstance(result.problem, TeamPermissionError)
    assert f"GRANT CREATE, USAGE ON SCHEMA public TO {role};" in result.message
    pg_server.admin(f"GRANT CREATE ON SCHEMA public TO {role}", database=database_of(pg_dsn))
    assert check_team_library(_as_user(pg_dsn, role)).ok
    with psycopg.connect(pg_dsn) as conn:  # the probe left nothing behind
        row = conn.execute("SELECT to_regclass('public.agentmaker_permission_probe')").fetchone()
    assert row == (None,)


@pytest.mark.parametrize(
    "url",
    ["http://db.example.com/library", "db.example.com:5432/library", "postgresql://db.example.com"],
)
def test_an_address_that_is_not_a_postgres_url_is_refused(url: str) -> None:
    result = check_team_library(url)
    assert isinstance(result.problem, TeamLibraryAddressError)
    assert "postgresql://host:5432/database" in result.message


def test_server_and_extension_versions_are_parsed() -> None:
    assert parse_server_version(160002) == (16, 2)
    assert parse_server_version("130015") == (13, 15)
    assert parse_server_version(90624) == (9, 6)
    assert parse_extension_version("0.6.2") == (0, 6, 2)
    assert parse_extension_version("0.5.0-dev") == (0, 5, 0)
    with pytest.raises(ValueError):
        parse_extension_version("dev")


def test_too_old_servers_and_extensions_say_what_is_needed() -> None:
    old = check._version_problem(120017, "12.17")
    assert isinstance(old, TeamServerTooOldError)
    assert "PostgreSQL 12.17 is too old" in str(old) and "PostgreSQL 13 or newer" in str(old)
    assert check._version_problem(130000, "13.0") is None
    enabled_old = check._pgvector_problem("0.4.4", "0.4.4", True, "lib")
    assert isinstance(enabled_old, TeamServerTooOldError)
    assert "0.5.0 or newer (for HNSW" in str(enabled_old)
    assert "ALTER EXTENSION vector UPDATE;" in str(enabled_old)
    packaged_old = check._pgvector_problem(None, "0.4.1", True, "lib")
    assert isinstance(packaged_old, TeamServerTooOldError)
    not_installed = check._pgvector_problem(None, None, True, "lib")
    assert isinstance(not_installed, PgvectorMissingError)
    assert "postgresql-16-pgvector" in str(not_installed)
    assert "pgvector/pgvector:pg16" in str(not_installed)


def test_connection_messages_are_sorted() -> None:
    params = {"host": "db.example.com", "port": "6543", "user": "alice", "dbname": "lib"}
    hba = classify_connect_error(
        'FATAL:  no pg_hba.conf entry for host "10.0.0.7", user "alice", database "lib"', params
    )
    assert isinstance(hba, TeamLoginError) and hba.reason == "not_allowed"
    assert "pg_hba.conf" in str(hba)
    timeout = classify_connect_error("connection failed: timeout expired", params)
    assert isinstance(timeout, TeamServerUnreachableError)
    assert "db.example.com:6543" in str(timeout)
    dns = classify_connect_error("failed to resolve host 'db.example.com': [Errno -2]", params)
    assert isinstance(dns, TeamServerUnreachableError)
    other = classify_connect_error("FATAL:  sorry, too many clients already", params)
    assert type(other).__name__ == "TeamLibraryError"
    assert "too many clients" in str(other)


def test_passwords_are_split_out_of_urls_and_put_back() -> None:
    bare, secret = split_password("postgresql://alice:p%40ss%3Aword@db:5432/lib?sslmode=require")
    assert bare == "postgresql://alice@db:5432/lib?sslmode=require"
    assert secret == "p@ss:word"
    assert split_password("postgresql://db/lib") == ("postgresql://db/lib", None)
    full = with_credentials("postgresql://db:5432/lib", "bob smith", "p@ss:word/")
    assert full == "postgresql://bob%20smith:p%40ss%3Aword%2F@db:5432/lib"
    assert split_password(full) == ("postgresql://bob%20smith@db:5432/lib", "p@ss:word/")
    assert with_credentials("postgresql://alice@db/lib") == "postgresql://alice@db/lib"


def test_an_existing_library_needs_its_tables_not_the_right_to_create(
    pg_server, pg_dsn: str
) -> None:  # type: ignore[no-untyped-def]
    from agentmaker.library import Library
    from agentmaker.testing import FakeEmbedder

    with Library.open(pg_dsn, embedder=FakeEmbedder()) as lib:  # the owner sets it up
        lib.pipeline.ingest_text("# Handbook\nThe office opens at eight.", source="h.md")
    role = _unique("member")
    pg_server.admin(f"CREATE ROLE {role} LOGIN")  # no CREATE on public, no table rights
    result = check_team_library(_as_user(pg_dsn, role))
    assert isinstance(result.problem, TeamPermissionError)
    assert result.problem.tables and "library_meta" in result.problem.tables
    assert "may not read and change the library's tables" in result.message
    assert f"ON ALL TABLES IN SCHEMA public TO {role};" in result.message
    pg_server.admin(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}; "
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
        database=database_of(pg_dsn),
    )
    assert check_team_library(_as_user(pg_dsn, role)).ok  # no CREATE needed any more
    # And the engine agrees: that member can open it and add a document.
    with Library.open(_as_user(pg_dsn, role), embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_text("# Mine\nMy own note.", source="mine.md")
