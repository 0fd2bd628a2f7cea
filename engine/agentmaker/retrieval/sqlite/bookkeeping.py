"""Bookkeeping of an index in the library file: :class:`SqliteBookkeeping`.

Content fingerprints (for idempotent skips) and the pending set (for self-healing)
persist beside the indexes, so they survive a restart and other processes see them.
"""

from __future__ import annotations

from agentmaker.retrieval.database import Database
from agentmaker.retrieval.sync import Bookkeeping


class SqliteBookkeeping(Bookkeeping):
    """Bookkeeping persisted in the library file (survives restarts and processes)."""

    def __init__(self, db: Database, *, namespace: str = "rag") -> None:
        self.db = db
        self.namespace = namespace
        db.migrate(
            "bookkeeping",
            [
                "CREATE TABLE sync_state (namespace TEXT NOT NULL, key TEXT NOT NULL, "
                "fingerprint TEXT, pending INTEGER NOT NULL DEFAULT 0, "
                "PRIMARY KEY (namespace, key))"
            ],
        )

    def fingerprint(self, key: str) -> str | None:
        rows = self.db.query(
            "SELECT fingerprint FROM sync_state WHERE namespace = ? AND key = ?",
            (self.namespace, key),
        )
        return rows[0][0] if rows else None

    def set_fingerprint(self, key: str, fingerprint: str | None) -> None:
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO sync_state(namespace, key, fingerprint) VALUES (?, ?, ?) "
                "ON CONFLICT(namespace, key) DO UPDATE SET fingerprint = excluded.fingerprint",
                (self.namespace, key, fingerprint),
            )
            self._collect(key)

    def mark_pending(self, key: str) -> None:
        self.db.execute(
            "INSERT INTO sync_state(namespace, key, pending) VALUES (?, ?, 1) "
            "ON CONFLICT(namespace, key) DO UPDATE SET pending = 1",
            (self.namespace, key),
        )

    def clear_pending(self, key: str) -> None:
        with self.db.transaction():
            self.db.execute(
                "UPDATE sync_state SET pending = 0 WHERE namespace = ? AND key = ?",
                (self.namespace, key),
            )
            self._collect(key)

    def _collect(self, key: str) -> None:
        self.db.execute(
            "DELETE FROM sync_state WHERE namespace = ? AND key = ? "
            "AND fingerprint IS NULL AND pending = 0",
            (self.namespace, key),
        )

    def pending(self) -> set[str]:
        rows = self.db.query(
            "SELECT key FROM sync_state WHERE namespace = ? AND pending = 1", (self.namespace,)
        )
        return {r[0] for r in rows}

    def keys(self) -> set[str]:
        rows = self.db.query(
            "SELECT key FROM sync_state WHERE namespace = ? AND fingerprint IS NOT NULL",
            (self.namespace,),
        )
        return {r[0] for r in rows}
