"""One SQLite library file: connection, lock, transactions and numbered migrations.

The standard ``sqlite3`` module of many Python builds cannot load extensions, so the
connection comes from ``sqlean`` (a drop-in ``sqlite3`` with extension loading), and
sqlite-vec is loaded into it. All writes go through one connection under one
re-entrant lock; a write that touches several tables is one transaction.
Reads from other threads can use :meth:`SqliteDatabase.read`, which gives each thread
its own connection so browsing never waits behind an ingestion (WAL mode).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import sqlean as sqlite3
import sqlite_vec

from agentmaker.errors import DiskFullError, LibraryVersionError, StorageError
from agentmaker.unicode_text import escape, maybe_escaped, unescape

log = logging.getLogger(__name__)

Migration = str | Callable[["SqliteDatabase"], None]


def _connect(target: str, *, uri: bool = False, readonly: bool = False) -> Any:
    try:
        conn = sqlite3.connect(
            target, uri=uri, check_same_thread=False, isolation_level=None, timeout=30.0
        )
    except sqlite3.Error as exc:
        raise StorageError(
            f"Could not open the library file {target}: {exc}. Check that the folder exists "
            "and that you may write to it."
        ) from exc
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except (AttributeError, sqlite3.Error) as exc:
        conn.close()
        raise StorageError(
            f"Could not load the sqlite-vec extension ({exc}). Reinstall the app."
        ) from exc
    conn.execute("PRAGMA busy_timeout = 30000")
    if readonly:
        conn.execute("PRAGMA query_only = 1")
    return conn


#: Below this much free space an I/O error is taken for a full disk (SQLite reports
#: ENOSPC on its -shm/-wal files as a plain "disk I/O error").
LOW_SPACE_BYTES = 1 << 20
# SQLite's primary result codes for a full disk and for a file that is not a database.
_SQLITE_FULL, _SQLITE_IOERR, _SQLITE_NOTADB = 13, 10, 26


def _escape_params(params: Any) -> Any:
    if isinstance(params, dict):
        return {k: escape(v) if isinstance(v, str) else v for k, v in params.items()}
    return tuple(escape(v) if isinstance(v, str) else v for v in params)


def _unescape_rows(rows: list[Any]) -> list[Any]:
    return [
        tuple(unescape(v) if isinstance(v, str) and maybe_escaped(v) else v for v in row)
        for row in rows
    ]


def _files(path: str) -> list[str]:
    return [path, path + "-wal", path + "-shm", path + "-journal"]


def _remove_empty(files: Sequence[str]) -> None:
    """Remove the files a failed open created, when they hold nothing."""
    for name in files:
        with contextlib.suppress(OSError):
            if os.path.getsize(name) <= 32 * 1024:  # an empty header, a -shm stub
                os.remove(name)


def _low_space(folder: str) -> bool:
    try:
        stat = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs (Windows): trust the error code only
        return False
    return stat.f_bavail * stat.f_frsize < LOW_SPACE_BYTES


def _disk_full(exc: sqlite3.Error, path: str | None) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary == _SQLITE_FULL or "disk is full" in str(exc):
        return True
    io_error = primary == _SQLITE_IOERR or "disk I/O error" in str(exc)
    return io_error and path is not None and _low_space(os.path.dirname(os.path.abspath(path)))


def _open_error(path: str, exc: sqlite3.Error, *, new: bool) -> StorageError:
    """The error for a library file that could not be opened, named for its cause."""
    if _disk_full(exc, path):
        what = "created" if new else "opened"
        return DiskFullError(
            f"The disk is full: the library {path} could not be {what}. Free some space "
            "on that disk and open it again; nothing in the library was lost."
        )
    code = getattr(exc, "sqlite_errorcode", None)
    if (isinstance(code, int) and code & 0xFF == _SQLITE_NOTADB) or "not a database" in str(exc):
        return StorageError(f"{path} is not a library file this app can open ({exc}).")
    return StorageError(
        f"The library {path} could not be opened ({exc}). Check that the disk is connected "
        "and that you may write to the file's folder, then try again."
    )


#: How long opening waits for another app that is creating the same library.
WAL_SWITCH_SECONDS = 30.0


class SqliteDatabase:
    """A library file (or an in-memory database) shared by the stores built on it."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self.in_memory = self.path == ":memory:" or self.path == ""
        if not self.in_memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # Files this open creates: removed again when it fails (never a 0-byte library).
        created = [] if self.in_memory else [f for f in _files(self.path) if not os.path.exists(f)]
        self.lock = threading.RLock()
        try:
            self._conn = _connect(":memory:" if self.in_memory else self.path)
        except StorageError:
            _remove_empty(created)
            raise
        self._depth = 0
        self._owner: int | None = None
        self._after_commit: list[Callable[[], None]] = []
        self._after_rollback: list[Callable[[], None]] = []
        self._before_close: list[Callable[[], None]] = []
        self._readers = threading.local()
        self._reader_conns: list[Any] = []
        self._closed = False
        self._escaped = False
        try:
            self._set_up()
            self._escaped = bool(
                self._conn.execute(
                    "SELECT 1 FROM library_meta WHERE key = 'escaped_text' AND value = '1'"
                ).fetchall()
            )
        except sqlite3.Error as exc:
            self._conn.close()
            _remove_empty(created)
            raise _open_error(self.path, exc, new=self.path in created) from exc
        except BaseException:
            self._conn.close()
            _remove_empty(created)
            raise

    def _enable_wal(self) -> str:
        """Switch the file to WAL (it stays so). Two apps creating one library at once
        can make the switch fail with "locked" at once (SQLite does not wait there for
        the other connection's lock), so it is retried for as long as the busy timeout."""
        deadline = time.monotonic() + WAL_SWITCH_SECONDS
        while True:
            try:
                mode = str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])
                if mode.lower() != "wal":
                    mode = str(self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
                return mode
            except sqlite3.OperationalError as exc:
                busy = "locked" in str(exc).lower() or "busy" in str(exc).lower()
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _set_up(self) -> None:
        if not self.in_memory:
            mode = self._enable_wal()
            if str(mode).lower() != "wal":
                log.warning("WAL mode unavailable for %s (got %s)", self.path, mode)
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA mmap_size = 268435456")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_versions "
            "(component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS library_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )

    # --- statements ---------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """Run one statement on the writer connection (under the lock)."""
        with self.lock:
            return self._translate(lambda: self._bind(self._conn, sql, params))

    def executemany(self, sql: str, rows: Any) -> Any:
        """Run one statement for many rows on the writer connection."""
        with self.lock:
            return self._translate(lambda: self._bind_many(sql, rows))

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Fetch all rows of a query on the writer connection (sees uncommitted writes)."""
        with self.lock:
            rows = self._translate(lambda: self._bind(self._conn, sql, params).fetchall())
        return _unescape_rows(rows) if self._escaped else rows

    def read(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Fetch rows on this thread's own read connection (never waits for a writer).

        Sees only committed data. In-memory databases have one connection, so reads
        fall back to :meth:`query`.
        """
        if self.in_memory:
            return self.query(sql, params)
        conn = self._reader()
        rows = self._translate(lambda: self._bind(conn, sql, params).fetchall())
        return _unescape_rows(rows) if self._escaped else rows

    # Text that is not valid Unicode (a file name with bytes that are not UTF-8) cannot
    # be bound: it is stored escaped (agentmaker.unicode_text), and once a library holds
    # escaped text (a flag in library_meta), what is read is unescaped. Other libraries
    # pay nothing: the escaping starts only when binding fails.

    def _bind(self, conn: Any, sql: str, params: Any) -> Any:
        try:
            return conn.execute(sql, params)
        except UnicodeEncodeError:
            escaped = _escape_params(params)
            if conn is self._conn and not self._escaped:
                self._mark_escaped()
            return conn.execute(sql, escaped)

    def _bind_many(self, sql: str, rows: Any) -> Any:
        rows = list(rows)
        try:
            return self._conn.executemany(sql, rows)
        except UnicodeEncodeError:
            # The rows before the first one with such text went in; the rest go escaped.
            first = next(i for i, row in enumerate(rows) if _escape_params(row) != row)
            if not self._escaped:
                self._mark_escaped()
            return self._conn.executemany(sql, [_escape_params(r) for r in rows[first:]])

    def _mark_escaped(self) -> None:
        self._escaped = True
        self._conn.execute(
            "INSERT OR REPLACE INTO library_meta (key, value) VALUES ('escaped_text', '1')"
        )

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Everything :meth:`read` runs on this thread inside the block sees one snapshot
        (a read transaction; in-memory databases hold the writer's lock instead).
        """
        if self.in_memory:
            with self.lock:
                yield
            return
        conn = self._reader()
        if conn.in_transaction:  # nested: the outer block's snapshot
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        finally:
            conn.execute("COMMIT")

    def _reader(self) -> Any:
        conn = getattr(self._readers, "conn", None)
        if conn is None:
            conn = _connect(self.path, readonly=True)
            self._readers.conn = conn
            with self.lock:
                self._reader_conns.append(conn)
        return conn

    @staticmethod
    def _translate(run: Callable[[], Any]) -> Any:
        try:
            return run()
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if _disk_full(exc, None):
                raise DiskFullError(
                    "The disk is full: the library could not be saved. Free some space and "
                    "try again; nothing already in the library was lost."
                ) from exc
            if "readonly" in text or "read-only" in text:
                raise StorageError(
                    "The library file is read-only: nothing can be added. Check the file's "
                    "permissions, or open a copy elsewhere."
                ) from exc
            raise

    # --- transactions -------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[SqliteDatabase]:
        """A re-entrant write transaction: nested blocks join the outermost one."""
        with self.lock:
            outermost = self._depth == 0
            if outermost:
                self._translate(lambda: self._conn.execute("BEGIN IMMEDIATE"))
                self._owner = threading.get_ident()
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth -= 1
                if outermost:
                    self._rollback()
                    self._finish(committed=False)
                raise
            self._depth -= 1
            if outermost:
                try:
                    self._translate(lambda: self._conn.execute("COMMIT"))
                except BaseException:
                    self._rollback()
                    self._finish(committed=False)
                    raise
                self._finish(committed=True)

    def _rollback(self) -> None:
        # SQLite rolls back by itself after some errors (a full disk, for one).
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    def _finish(self, *, committed: bool) -> None:
        self._owner = None
        hooks = self._after_commit if committed else self._after_rollback
        self._after_commit, self._after_rollback = [], []
        for hook in hooks:
            hook()

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` once the current transaction commits (now, outside one)."""
        with self.lock:
            if self._depth:
                self._after_commit.append(hook)
            else:
                hook()

    def after_rollback(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` if the current transaction rolls back (never, outside one)."""
        with self.lock:
            if self._depth:
                self._after_rollback.append(hook)

    @property
    def in_transaction(self) -> bool:
        """True while the calling thread is inside :meth:`transaction`."""
        return self._depth > 0 and self._owner == threading.get_ident()

    # --- metadata and migrations ---------------------------------------------

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
        """Apply the numbered migrations of ``component`` that this file has not seen.

        Migration i (from 1) is ``migrations[i-1]``. A file whose version is newer than
        the code knows is refused rather than changed.
        """
        with self.transaction():
            rows = self.query(
                "SELECT version FROM schema_versions WHERE component = ?", (component,)
            )
            current = rows[0][0] if rows else 0
            if current > len(migrations):
                raise LibraryVersionError(
                    f"The library {self.path} was written by a newer version of the app "
                    f"({component} schema {current}, this version knows {len(migrations)}). "
                    "Update the app to open it; the file was not changed."
                )
            for number in range(current + 1, len(migrations) + 1):
                step = migrations[number - 1]
                if isinstance(step, str):
                    for statement in step.split(";\n"):
                        if statement.strip():
                            self.execute(statement)
                else:
                    step(self)
                self.execute(
                    "INSERT INTO schema_versions(component, version) VALUES (?, ?) "
                    "ON CONFLICT(component) DO UPDATE SET version = excluded.version",
                    (component, number),
                )

    def data_version(self) -> int:
        """Changes when another connection commits (``PRAGMA data_version``)."""
        return int(self.query("PRAGMA data_version")[0][0])

    # --- lifetime -------------------------------------------------------------

    def before_close(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` when :meth:`close` is called, before the connections close (the
        stores' background threads stop there, whoever closes the file)."""
        self._before_close.append(hook)

    def close(self) -> None:
        """Close every connection this database opened. Safe to call twice."""
        if self._closed:
            return
        hooks, self._before_close = self._before_close, []
        for hook in hooks:  # outside the lock: a hook may wait for a thread that takes it
            try:
                hook()
            except Exception:
                log.exception("a close hook of %s failed", self.path)
        with self.lock:
            if self._closed:
                return
            self._closed = True
            for conn in self._reader_conns:
                with contextlib.suppress(Exception):
                    conn.close()
            self._reader_conns.clear()
            if not self.in_memory:
                with contextlib.suppress(Exception):
                    self._conn.execute("PRAGMA optimize")
            self._conn.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed

    def __enter__(self) -> SqliteDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
