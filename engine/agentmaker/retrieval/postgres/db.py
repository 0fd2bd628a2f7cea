"""One team library on a PostgreSQL server: pools, transactions, migrations, metadata.

:class:`PgDatabase` offers what the stores built on :class:`SqliteDatabase` use
(``execute``/``query``/``read`` with ``?`` placeholders, re-entrant ``transaction``,
``get_meta``/``set_meta``, numbered ``migrate``), so the source store, the bookkeeping,
the conversations and the linked folders keep one SQL text where the dialects agree.

Connections come from a psycopg 3 :class:`ConnectionPool` (autocommit outside a
transaction: every read sees committed data only). A transaction binds one pooled
connection to the calling thread until it ends. The async twins of the retrieval
batteries use an :class:`AsyncConnectionPool` that lives on one event loop this database
owns, so callers on any loop (the app's, one ``asyncio.run`` after another) share it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import threading
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from pgvector.psycopg import register_vector, register_vector_async
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from agentmaker.errors import LibraryVersionError, StorageError
from agentmaker.retrieval.database import is_postgres_url
from agentmaker.retrieval.postgres.check import classify_connect_error

log = logging.getLogger(__name__)
T = TypeVar("T")
__all__ = ["Copy", "Many", "PgDatabase", "Plan", "is_postgres_url", "qmark", "redact"]

Migration = str | Callable[["PgDatabase"], None]

#: Statements a plan yields: ``(sql, params)`` runs one statement and sends its rows back;
#: ``Many(sql, rows)`` runs one statement per row and ``Copy(...)`` copies rows in
#: (nothing is sent back for either).
Statement = tuple[str, Sequence[Any]]


class Many:
    """A statement run once per parameter row (``executemany``)."""

    def __init__(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.sql = sql
        self.rows = rows


class Copy:
    """Rows sent by ``COPY … FROM STDIN (FORMAT BINARY)``: one round trip for a whole
    batch, no SQL parsed per row (what bulk writes use instead of ``executemany``)."""

    def __init__(
        self,
        table: str,
        columns: Sequence[str],
        types: Sequence[str],
        rows: Any,
        *,
        cleaned: bool = False,
    ) -> None:
        self.sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
        self.types = list(types)
        self.rows = rows
        #: True when the rows hold no text PostgreSQL refuses (tokens FTS5 made).
        self.cleaned = cleaned


#: A database conversation written once and run on a sync or an async connection: a
#: generator that yields statements and receives their rows (see :func:`run_plan`).
Plan = Generator[Statement | Many | Copy, list[tuple[Any, ...]], T]


def redact(dsn: str) -> str:
    """The URL without its password (for messages and logs)."""
    try:
        parts = urlsplit(dsn)
    except ValueError:
        return "<PostgreSQL URL>"
    if parts.password is None:
        return dsn
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


@functools.lru_cache(maxsize=512)
def qmark(sql: str) -> str:
    """SQLite-style ``?`` placeholders as psycopg's ``%s`` (``%`` doubled), outside quotes."""
    out: list[str] = []
    quote: str | None = None
    for char in sql:
        if quote:
            if char == quote:
                quote = None
            out.append("%%" if char == "%" else char)
        elif char in ("'", '"'):
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        else:
            out.append(char)
    return "".join(out)


_REAL = re.compile(r"\bREAL\b")
_INTEGER = re.compile(r"\bINTEGER\b")


def pg_ddl(sql: str) -> str:
    """A migration written for SQLite, in PostgreSQL's words: ``REAL`` and ``INTEGER`` are
    4 bytes there but 8 in SQLite (file times in nanoseconds need all 8)."""
    return _INTEGER.sub("BIGINT", _REAL.sub("DOUBLE PRECISION", sql))


def _clean_text(value: str) -> str:
    if "\x00" in value:
        value = value.replace("\x00", "\ufffd")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a file name that is not UTF-8)
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value


def clean(params: Any) -> Any:
    """Parameters PostgreSQL can store: text may hold neither NUL nor lone surrogates
    (SQLite takes both), so those characters become U+FFFD / ``?``."""
    if isinstance(params, str):
        return _clean_text(params)
    if isinstance(params, list | tuple):
        return [clean(p) for p in params]
    return params


def run_plan(plan: Plan[T], conn: psycopg.Connection[Any]) -> T:
    """Run a plan on a sync connection."""
    try:
        step = next(plan)
        while True:
            with conn.cursor() as cur:
                rows: list[tuple[Any, ...]] = []
                if isinstance(step, Copy):
                    with cur.copy(step.sql) as copy:
                        copy.set_types(step.types)
                        for row in step.rows:
                            copy.write_row(row if step.cleaned else clean(row))
                elif isinstance(step, Many):
                    if step.rows:
                        cur.executemany(step.sql, clean(step.rows))
                else:
                    cur.execute(step[0], clean(step[1]))
                    rows = cur.fetchall() if cur.description else []
            step = plan.send(rows)
    except StopIteration as stop:
        return stop.value


async def arun_plan(plan: Plan[T], conn: psycopg.AsyncConnection[Any]) -> T:
    """Run a plan on an async connection (psycopg's async API)."""
    try:
        step = next(plan)
        while True:
            async with conn.cursor() as cur:
                rows: list[tuple[Any, ...]] = []
                if isinstance(step, Copy):
                    async with cur.copy(step.sql) as copy:
                        copy.set_types(step.types)
                        for row in step.rows:
                            await copy.write_row(row if step.cleaned else clean(row))
                elif isinstance(step, Many):
                    if step.rows:
                        await cur.executemany(step.sql, clean(step.rows))
                else:
                    await cur.execute(step[0], clean(step[1]))
                    rows = await cur.fetchall() if cur.description else []
            step = plan.send(rows)
    except StopIteration as stop:
        return stop.value


class Result:
    """What :meth:`PgDatabase.execute` returns: the rows and the row count, read before
    the connection went back to the pool."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


class _Bound(threading.local):
    conn: psycopg.Connection[Any] | None = None
    depth = 0
    after_commit: list[Callable[[], None]]
    after_rollback: list[Callable[[], None]]


def _connect_error(dsn: str, exc: Exception) -> StorageError:
    """The typed error the Test connection check gives for the same failure (server
    down, wrong password, missing database…), never showing the password."""
    text = str(exc).strip() or type(exc).__name__
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.Error:
        params = {}
    return classify_connect_error(text, params)


def _ensure_pgvector(dsn: str) -> None:
    """Create the pgvector extension when it is missing (the type must exist before the
    pool's connections register it)."""
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=15) as conn:
            row = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
            if row is not None:
                return
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.errors.UniqueViolation:
                return  # another app created it at the same moment
            except psycopg.Error as exc:
                raise StorageError(
                    f"The database {redact(dsn)} has no pgvector extension and this login "
                    f"may not add it ({exc.diag.message_primary or exc}). Ask the server's "
                    "administrator to run: CREATE EXTENSION vector;"
                ) from exc
    except psycopg.OperationalError as exc:
        raise _connect_error(dsn, exc) from exc


async def _shutdown(apool: AsyncConnectionPool[Any] | None) -> None:
    """Close the async pool and end what is left on its loop (the pool's workers)."""
    if apool is not None:
        await apool.close()
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


class PgDatabase:
    """A team library's database, shared by the stores built on it."""

    dialect = "postgresql"
    in_memory = False

    def __init__(self, dsn: str, *, max_connections: int = 8) -> None:
        self.dsn = dsn
        #: What messages call the library (the URL without its password).
        self.path = redact(dsn)
        _ensure_pgvector(dsn)
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max_connections,
            kwargs={"autocommit": True},
            configure=register_vector,
            open=False,
            name="agentmaker",
        )
        try:
            self.pool.open(wait=True, timeout=30)
        except Exception as exc:
            self.pool.close()
            raise _connect_error(dsn, exc) from exc
        self.lock = threading.RLock()  # for callers that serialise with SqliteDatabase.lock
        self._bound = _Bound()
        self._closed = False
        self._max_connections = max_connections
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._apool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] | None = None
        self._async_lock = threading.Lock()
        try:
            self._set_up()
        except BaseException:
            self.pool.close()
            raise

    def _set_up(self) -> None:
        # A person's login may lack CREATE on the schema (an administrator made the
        # library): CREATE ... IF NOT EXISTS is checked against that right even when the
        # table is there, so it runs only for a new library.
        made = self.query_pg(
            "SELECT to_regclass('schema_versions') IS NOT NULL "
            "AND to_regclass('library_meta') IS NOT NULL"
        )[0][0]
        if not made:
            self._create_meta_tables()
        #: The login this connection uses (people's private documents are scoped by it).
        self.login: str = str(self.query("SELECT current_user")[0][0])

    def _create_meta_tables(self) -> None:
        with self.transaction():
            self._migration_lock()
            self.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions "
                "(component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
            )
            self.execute(
                "CREATE TABLE IF NOT EXISTS library_meta "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )

    def _migration_lock(self) -> None:
        # Two apps opening a new library at once: one creates the tables, the other waits.
        self.execute("SELECT pg_advisory_xact_lock(hashtext('agentmaker:migrate'))")

    # --- statements ----------------------------------------------------------------

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The calling thread's transaction connection, or a pooled autocommit one."""
        if self._bound.conn is not None:
            yield self._bound.conn
            return
        with self.pool.connection() as conn:
            yield conn

    def run(self, plan: Plan[T]) -> T:
        """Run a plan (see :func:`run_plan`) on :meth:`connection`."""
        with self.connection() as conn:
            return run_plan(plan, conn)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        """Run one statement with ``?`` placeholders (inside this thread's transaction
        when there is one)."""
        return self.execute_pg(qmark(sql), params)

    def execute_pg(self, sql: str, params: Sequence[Any] = ()) -> Result:
        """Run one statement with psycopg's ``%s`` placeholders."""
        with self.connection() as conn, conn.cursor() as cur:
            cur.execute(sql, clean(params))
            rows = cur.fetchall() if cur.description else []
            return Result(rows, cur.rowcount)

    def executemany(self, sql: str, rows: Any) -> Result:
        """Run one statement for many rows."""
        rows = list(rows)
        with self.connection() as conn, conn.cursor() as cur:
            if rows:
                cur.executemany(qmark(sql), clean(rows))
            return Result([], cur.rowcount)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Fetch all rows of a query with ``?`` placeholders."""
        return self.execute(sql, params).rows

    def query_pg(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Fetch all rows of a query with ``%s`` placeholders."""
        return self.execute_pg(sql, params).rows

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Like :meth:`query`: outside a transaction every statement sees committed data."""
        return self.query(sql, params)

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Everything read on this thread inside the block sees one snapshot."""
        if self._bound.conn is not None:
            yield
            return
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            self._bind(conn)
            try:
                yield
            finally:
                self._unbind()

    # --- transactions ----------------------------------------------------------------

    def _bind(self, conn: psycopg.Connection[Any]) -> None:
        self._bound.conn = conn
        self._bound.depth = 1
        self._bound.after_commit = []
        self._bound.after_rollback = []

    def _unbind(self) -> None:
        self._bound.conn = None
        self._bound.depth = 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator[PgDatabase]:
        """A re-entrant write transaction on one connection: nested blocks join it."""
        bound = self._bound
        if bound.conn is not None:
            bound.depth += 1
            try:
                yield self
            finally:
                bound.depth -= 1
            return
        with self.pool.connection() as conn:
            self._bind(conn)
            committed = False
            try:
                with conn.transaction():
                    yield self
                committed = True
            finally:
                hooks = bound.after_commit if committed else bound.after_rollback
                self._unbind()
                for hook in hooks:
                    hook()

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` once the current transaction commits (now, outside one)."""
        if self._bound.conn is not None:
            self._bound.after_commit.append(hook)
        else:
            hook()

    def after_rollback(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` if the current transaction rolls back (never, outside one)."""
        if self._bound.conn is not None:
            self._bound.after_rollback.append(hook)

    @property
    def in_transaction(self) -> bool:
        """True while the calling thread is inside :meth:`transaction`."""
        return self._bound.conn is not None

    def lock_key(self, key: str) -> None:
        """Hold a transaction-scoped advisory lock on ``key`` (a doc_id) until commit:
        writers of one document in different processes take turns."""
        if self._bound.conn is None:
            raise StorageError("lock_key needs a transaction.")
        self.execute_pg("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    # --- async ----------------------------------------------------------------------

    def _async_loop(self) -> asyncio.AbstractEventLoop:
        with self._async_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="agentmaker-pg-async", daemon=True
                )
                thread.start()
                self._loop, self._loop_thread = loop, thread
            return self._loop

    async def _open_apool(self) -> AsyncConnectionPool[psycopg.AsyncConnection[Any]]:
        if self._apool is None:
            pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] = AsyncConnectionPool(
                self.dsn,
                min_size=1,
                max_size=self._max_connections,
                kwargs={"autocommit": True},
                configure=register_vector_async,
                open=False,
                name="agentmaker-async",
            )
            await pool.open(wait=True, timeout=30)
            self._apool = pool
        return self._apool

    async def arun(self, plan: Plan[T], *, transaction: bool = False) -> T:
        """Run a plan on a pooled async connection (in one transaction if asked).

        The pool lives on this database's own event loop; the caller's loop awaits it.
        """
        if self._closed:
            raise StorageError(f"The team library {self.path} is closed.")

        async def go() -> T:
            pool = await self._open_apool()
            async with pool.connection() as conn:
                if transaction:
                    async with conn.transaction():
                        return await arun_plan(plan, conn)
                return await arun_plan(plan, conn)

        return await self._on_own_loop(go())

    async def _on_own_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._async_loop())
        return await asyncio.wrap_future(future)

    async def gather(self, *plans: Plan[Any]) -> list[Any]:
        """Run plans concurrently, each on its own async connection."""
        runs: list[Awaitable[Any]] = [self.arun(p) for p in plans]
        return list(await asyncio.gather(*runs))

    # --- metadata and migrations -----------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """A value from the library's key/value table."""
        rows = self.query("SELECT value FROM library_meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        """Store a value in the library's key/value table."""
        self.execute(
            "INSERT INTO library_meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def migrate(self, component: str, migrations: Sequence[Migration]) -> None:
        """Apply the numbered migrations of ``component`` this database has not seen.

        String steps are SQLite-era DDL, adapted by :func:`pg_ddl`. A database whose
        version is newer than the code knows is refused rather than changed.
        """
        with self.transaction():
            self._migration_lock()
            rows = self.query(
                "SELECT version FROM schema_versions WHERE component = ?", (component,)
            )
            current = rows[0][0] if rows else 0
            if current > len(migrations):
                raise LibraryVersionError(
                    f"The team library {self.path} was written by a newer version of the app "
                    f"({component} schema {current}, this version knows {len(migrations)}). "
                    "Update the app to open it; nothing was changed."
                )
            for number in range(current + 1, len(migrations) + 1):
                step = migrations[number - 1]
                if isinstance(step, str):
                    for statement in step.split(";\n"):
                        if statement.strip():
                            self.execute_pg(pg_ddl(statement))
                else:
                    step(self)
                self.execute(
                    "INSERT INTO schema_versions(component, version) VALUES (?, ?) "
                    "ON CONFLICT(component) DO UPDATE SET version = excluded.version",
                    (component, number),
                )

    def size_bytes(self) -> int:
        """How much disk the database takes on the server."""
        return int(self.query_pg("SELECT pg_database_size(current_database())")[0][0])

    # --- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Close both pools and the async loop. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        loop, apool = self._loop, self._apool
        if loop is not None:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(_shutdown(apool), loop).result(timeout=10)
            loop.call_soon_threadsafe(loop.stop)
            if self._loop_thread is not None:
                self._loop_thread.join(timeout=10)
            loop.close()
        self.pool.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed

    def __enter__(self) -> PgDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
