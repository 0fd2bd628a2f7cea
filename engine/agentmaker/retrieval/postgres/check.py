"""Test a team library's server before using it: say in plain words what is wrong.

``check_team_library(url, password)`` connects once and looks at what the team library
needs: a reachable server, a login that works, the database, pgvector (enabled, recent
enough for HNSW indexes), a recent PostgreSQL, and the right to create the library's
tables — or, when the library exists already, to read and write them. It never changes
anything: the table probe runs in a transaction that is rolled back.

libpq reports connection failures as text only (no SQLSTATE before the session exists),
so they are sorted by the wording of the server's and libpq's English messages; a
message that matches nothing is passed on as it is.
"""

from __future__ import annotations

import getpass
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from agentmaker.errors import (
    PgvectorMissingError,
    TeamDatabaseMissingError,
    TeamLibraryAddressError,
    TeamLibraryError,
    TeamLoginError,
    TeamPermissionError,
    TeamServerTooOldError,
    TeamServerUnreachableError,
)

#: PostgreSQL 13 is the oldest release still supported upstream when pgvector 0.5 came out
#: and the oldest this library is tested against; older servers are refused.
MIN_SERVER = (13, 0)
#: pgvector 0.5.0 added HNSW indexes, which the team library's vector leg uses.
MIN_PGVECTOR = (0, 5, 0)
SCHEMES = ("postgresql://", "postgres://")
_PROBE_TABLE = "agentmaker_permission_probe"
#: The tables (and the one sequence) every app reads and writes in an existing library.
LIBRARY_TABLES = (
    "schema_versions",
    "library_meta",
    "documents",
    "chunks",
    "items",
    "items_rowid_seq",
    "vec_vectors",
    "kw_postings",
    "kw_docs",
    "kw_terms",
    "kw_stats",
    "sync_state",
    "conversations",
    "conversation_turns",
)


def is_team_url(text: str) -> bool:
    """True when ``text`` is a PostgreSQL URL (a team library), not a file path."""
    return text.strip().lower().startswith(SCHEMES)


def split_password(url: str) -> tuple[str, str | None]:
    """``url`` without its password, and the password (None when it had none)."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.password is None:
        return url.strip(), None
    host = parts.netloc.rpartition("@")[2]
    user = parts.netloc.rpartition("@")[0].partition(":")[0]
    netloc = f"{user}@{host}" if user else host
    password = urllib.parse.unquote(parts.password)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)), password


def with_credentials(url: str, user: str | None = None, password: str | None = None) -> str:
    """``url`` with ``user`` (when given) and ``password`` (when given) in it, quoted."""
    bare, old_password = split_password(url)
    parts = urllib.parse.urlsplit(bare)
    host = parts.netloc.rpartition("@")[2]
    old_user = urllib.parse.unquote(parts.netloc.rpartition("@")[0])
    name = user if user else old_user
    secret = password if password is not None else old_password
    credentials = urllib.parse.quote(name, safe="") if name else ""
    if secret is not None:
        credentials += ":" + urllib.parse.quote(secret, safe="")
    netloc = f"{credentials}@{host}" if credentials else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def parse_server_version(version_num: int | str) -> tuple[int, int]:
    """``server_version_num`` as (major, minor): 160002 → (16, 2), 90624 → (9, 6)."""
    number = int(version_num)
    if number >= 100000:  # 10 and later: major * 10000 + minor
        return number // 10000, number % 10000
    return number // 10000, (number // 100) % 100  # 9.x: 9.6.24 is 90624


def parse_extension_version(text: str) -> tuple[int, ...]:
    """An extension's version as numbers: "0.6.2" → (0, 6, 2), "0.5.0-dev" → (0, 5, 0)."""
    numbers = re.findall(r"\d+", text.split("-")[0])
    if not numbers:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(n) for n in numbers)


@dataclass(frozen=True)
class TeamLibraryCheck:
    """What :func:`check_team_library` found. ``problem`` is None when all is well."""

    url: str  # the address tested, without any password
    problem: TeamLibraryError | None = None
    server_version: str | None = None
    pgvector_version: str | None = None  # None: not enabled in this database (yet)
    user: str | None = None
    database: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """True when the team library can be used as configured."""
        return self.problem is None

    @property
    def message(self) -> str:
        """The result in one or two plain sentences."""
        if self.problem is not None:
            return str(self.problem)
        vector = f"pgvector {self.pgvector_version}" if self.pgvector_version else "pgvector"
        text = (
            f"Connected to PostgreSQL {self.server_version} as {self.user!r}, database "
            f"{self.database!r}, with {vector}: the team library can be used."
        )
        return " ".join((text, *self.notes))

    def raise_for_problem(self) -> None:
        """Raise the problem found, if any."""
        if self.problem is not None:
            raise self.problem


def team_url_params(url: str) -> dict[str, Any]:
    """The connection parameters in ``url``; a clear error when it is not a PostgreSQL URL."""
    bare, _ = split_password(url)
    if not is_team_url(url):
        raise TeamLibraryAddressError(bare, "it must start with postgresql://")
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError as exc:
        raise TeamLibraryError(
            "Team libraries need the psycopg package: pip install 'agentmaker-desk[team]'."
        ) from exc
    try:
        params = conninfo_to_dict(url.strip())
    except Exception as exc:  # psycopg.ProgrammingError: libpq's parser said no
        raise TeamLibraryAddressError(bare, _first_line(str(exc))) from exc
    if not params.get("dbname"):
        raise TeamLibraryAddressError(bare, "the database name after the last / is missing")
    return params


def describe_server(params: dict[str, Any]) -> str:
    """Where the server is, for messages: "db.example.com:5432" or a local socket."""
    host = str(params.get("host") or "")
    port = str(params.get("port") or "5432")
    if not host or host.startswith("/"):
        return f"the local socket {host or '(default)'} port {port}"
    return f"{host}:{port}"


def classify_connect_error(message: str, params: dict[str, Any]) -> TeamLibraryError:
    """The typed error for a libpq connection failure ``message``."""
    where = describe_server(params)
    user = str(params.get("user") or _os_user())
    database = str(params.get("dbname") or user)
    text = message.lower()
    if "password authentication failed" in text or re.search(r"role .* does not exist", text):
        return TeamLoginError(user, where)
    if "no password supplied" in text:
        return TeamLoginError(user, where, reason="no_password")
    if "no pg_hba.conf entry" in text:
        return TeamLoginError(user, where, reason="not_allowed")
    if re.search(r"database .* does not exist", text):
        return TeamDatabaseMissingError(database, where)
    unreachable = (
        "connection refused",
        "no such file or directory",
        "timeout expired",
        "could not translate host name",
        "failed to resolve host",
        "name or service not known",
        "network is unreachable",
        "no route to host",
        "the database system is starting up",
        "the database system is shutting down",
    )
    if any(marker in text for marker in unreachable):
        return TeamServerUnreachableError(where, _reason(message))
    return TeamLibraryError(f"The server at {where} could not be used: {_reason(message)}")


def check_team_library(
    url: str, password: str | None = None, *, timeout: float = 5.0
) -> TeamLibraryCheck:
    """Connect to the team library at ``url`` and report what, if anything, is wrong.

    ``password`` overrides one in the URL. Nothing is changed on the server. Problems are
    returned (``result.problem``), not raised; ``result.raise_for_problem()`` raises them.
    """
    bare = split_password(url)[0]
    try:
        params = team_url_params(url)
    except TeamLibraryError as error:
        return TeamLibraryCheck(bare, error)
    import psycopg

    extra: dict[str, Any] = {"connect_timeout": max(1, round(timeout))}
    if password is not None:
        extra["password"] = password
    try:
        conn = psycopg.connect(url.strip(), **extra)
    except psycopg.OperationalError as exc:
        return TeamLibraryCheck(bare, classify_connect_error(str(exc), params))
    with conn:
        try:
            return _inspect(conn, bare)
        except psycopg.Error as exc:  # e.g. a pooler or a server that refuses a query
            where = describe_server(params)
            refused = TeamLibraryError(f"The server at {where} answered with an error: {exc}")
            return TeamLibraryCheck(bare, refused)


def _inspect(conn: Any, url: str) -> TeamLibraryCheck:
    row = conn.execute(
        "SELECT current_setting('server_version_num'), current_setting('server_version'),"
        " current_user, current_database(), current_schema(),"
        " (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),"
        " (SELECT extversion FROM pg_extension WHERE extname = 'vector'),"
        " (SELECT default_version FROM pg_available_extensions WHERE name = 'vector')"
    ).fetchone()
    version_num, version, user, database, schema, superuser, enabled, available = row
    found = TeamLibraryCheck(
        url, None, str(version).split(" ")[0], enabled, str(user), str(database)
    )
    problem = _version_problem(int(version_num), found.server_version or "")
    if problem is None:
        problem = _pgvector_problem(enabled, available, bool(superuser), str(database))
    if problem is None:
        problem = _table_problem(conn, str(user), str(database), schema)
    notes: tuple[str, ...] = ()
    if problem is None and enabled is None:
        notes = (f"pgvector {available} is installed and will be enabled on first use.",)
    return TeamLibraryCheck(
        url, problem, found.server_version, enabled, found.user, found.database, notes
    )


def _version_problem(version_num: int, version: str) -> TeamLibraryError | None:
    if parse_server_version(version_num) >= MIN_SERVER:
        return None
    return TeamServerTooOldError(
        "PostgreSQL",
        version,
        f"PostgreSQL {MIN_SERVER[0]} or newer",
        "Upgrade the server (for example to the pgvector/pgvector:pg16 image).",
    )


def _pgvector_problem(
    enabled: str | None, available: str | None, superuser: bool, database: str
) -> TeamLibraryError | None:
    needed = ".".join(str(n) for n in MIN_PGVECTOR)
    if enabled is not None:
        if parse_extension_version(enabled) >= MIN_PGVECTOR:
            return None
        return TeamServerTooOldError(
            "pgvector",
            enabled,
            f"pgvector {needed} or newer (for HNSW indexes)",
            "Install a newer pgvector on the server, then run in the database as a superuser: "
            "ALTER EXTENSION vector UPDATE;",
        )
    if available is None:
        return PgvectorMissingError(database, installed_on_server=False)
    if parse_extension_version(available) < MIN_PGVECTOR:
        return TeamServerTooOldError(
            "pgvector",
            available,
            f"pgvector {needed} or newer (for HNSW indexes)",
            "Install a newer pgvector package on the server (postgresql-16-pgvector, or the "
            "pgvector/pgvector:pg16 image).",
        )
    if not superuser:  # pgvector is not a trusted extension: only a superuser enables it
        return PgvectorMissingError(database, installed_on_server=True)
    return None


def _table_problem(
    conn: Any, user: str, database: str, schema: str | None
) -> TeamLibraryError | None:
    import psycopg

    if schema is None:  # nothing on the search_path exists
        return TeamPermissionError(user, database, "public")
    made = conn.execute(
        "SELECT to_regclass('schema_versions') IS NOT NULL"
        " AND to_regclass('library_meta') IS NOT NULL"
    ).fetchone()[0]
    if made:  # an existing library: its tables are opened, not created
        return _use_problem(conn, user, database, str(schema))
    try:
        with conn.transaction(force_rollback=True):
            conn.execute(f'CREATE TABLE "{_PROBE_TABLE}" (id integer)')
    except psycopg.errors.InsufficientPrivilege:
        return TeamPermissionError(user, database, str(schema))
    return None


def _use_problem(conn: Any, user: str, database: str, schema: str) -> TeamLibraryError | None:
    # has_table_privilege() with several privileges is true when ANY is held: ask each.
    rows = conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relname = ANY(%s) AND ("
        "  (c.relkind IN ('r', 'p') AND NOT (has_table_privilege(c.oid, 'SELECT')"
        "   AND has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE')"
        "   AND has_table_privilege(c.oid, 'DELETE')))"
        "  OR (c.relkind = 'S' AND NOT has_sequence_privilege(c.oid, 'USAGE')))"
        " ORDER BY c.relname",
        (list(LIBRARY_TABLES),),
    ).fetchall()
    if not rows:
        return None
    return TeamPermissionError(user, database, schema, tuple(str(r[0]) for r in rows))


def _reason(message: str) -> str:
    """libpq's message without its prefix and hints: the part a person can act on."""
    line = _first_line(message)
    line = re.sub(r"^connection (failed|is bad):\s*", "", line)
    line = re.sub(r'^connection to server (at|on socket) "[^"]*"(, port \d+)? failed:\s*', "", line)
    return re.sub(r"^FATAL:\s*", "", line).strip()


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (containers); libpq would fail too
        return "(unknown)"
