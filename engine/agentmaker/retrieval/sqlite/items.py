"""The item table that the SQLite vector store and keyword index share.

One row per indexed item: its id, text, source label, JSON metadata, the five scope
dimensions and one column per declared metadata field. Both indexes key their rows by
this table's rowid, so one filter clause serves both legs (pre-filtering, never
top-k-then-filter).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agentmaker.errors import ConfigurationError, UnknownFilterFieldError
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.types import (
    SCOPE_DIMENSIONS,
    MetadataFilter,
    RetrievalResult,
    Scope,
    check_scope,
)

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")
_MAX_PARAMS = 30000


def chunked(values: Sequence[Any], size: int = _MAX_PARAMS) -> Iterable[Sequence[Any]]:
    """Split a long parameter list so no statement exceeds SQLite's variable limit."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _sql_value(value: Any) -> Any:
    if value is None or isinstance(value, int | float | str | bytes):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class ItemTable:
    """Rows of indexed items with their scope and declared metadata columns."""

    def __init__(
        self, db: SqliteDatabase, *, table: str = "items", metadata_columns: Sequence[str] = ()
    ) -> None:
        if not _IDENTIFIER.match(table):
            raise ConfigurationError(f"Invalid table name {table!r}.")
        for column in metadata_columns:
            if not _IDENTIFIER.match(column):
                raise ConfigurationError(
                    f"Metadata column {column!r} must be a plain identifier "
                    "(letters, digits, underscore)."
                )
        self.db = db
        self.table = table
        self.metadata_columns = tuple(dict.fromkeys(metadata_columns))
        scope_cols = ",\n".join(f"  s_{d} TEXT NOT NULL DEFAULT ''" for d in SCOPE_DIMENSIONS)
        db.migrate(
            f"items:{table}",
            [
                f"CREATE TABLE {table} (\n"
                "  rowid INTEGER PRIMARY KEY,\n"
                "  id TEXT NOT NULL UNIQUE,\n"
                "  content TEXT NOT NULL,\n"
                "  source TEXT NOT NULL DEFAULT '',\n"
                "  metadata TEXT NOT NULL DEFAULT '{}',\n"
                f"{scope_cols}\n);\n"
                f"CREATE INDEX {table}_scope ON {table}(s_base, s_user, s_agent)",
            ],
        )
        self._ensure_metadata_columns()

    def _ensure_metadata_columns(self) -> None:
        # Read the columns inside the write transaction: another app opening the same new
        # library adds them at the same moment, and only one of the two may.
        with self.db.transaction():
            existing = {row[1] for row in self.db.query(f"PRAGMA table_info({self.table})")}
            for field in self.metadata_columns:
                column = f"m_{field}"
                if column in existing:
                    continue
                self.db.execute(f"ALTER TABLE {self.table} ADD COLUMN {column}")
                self.db.execute(
                    f"UPDATE {self.table} SET {column} = json_extract(metadata, '$.{field}')"
                )
                self.db.execute(f"CREATE INDEX {self.table}_{column} ON {self.table}({column})")

    # --- writes -------------------------------------------------------------

    def upsert(self, items: Sequence[RetrievalResult], scope: Scope | None) -> list[int]:
        """Insert or update items by id; returns their rowids in order."""
        scope_values = (scope or Scope()).values()
        cols = ["id", "content", "source", "metadata"]
        cols += [f"s_{d}" for d in SCOPE_DIMENSIONS]
        cols += [f"m_{f}" for f in self.metadata_columns]
        updates = ", ".join(f"{c} = excluded.{c}" for c in cols[1:])
        sql = (
            f"INSERT INTO {self.table} ({', '.join(cols)}) "
            f"VALUES ({', '.join('?' * len(cols))}) "
            f"ON CONFLICT(id) DO UPDATE SET {updates} RETURNING rowid"
        )
        rowids = []
        with self.db.transaction():
            for item in items:
                if not item.id:
                    raise ConfigurationError("Every item written to an index needs an id.")
                meta = {k: v for k, v in item.metadata.items() if not k.startswith("_")}
                row: list[Any] = [
                    item.id,
                    item.content,
                    item.source,
                    json.dumps(meta, ensure_ascii=False, default=str),
                ]
                row += [scope_values[d] for d in SCOPE_DIMENSIONS]
                row += [_sql_value(item.metadata.get(f)) for f in self.metadata_columns]
                rowids.append(int(self.db.query(sql, row)[0][0]))
        return rowids

    def delete_rows(self, rowids: Sequence[int]) -> None:
        """Delete rows by rowid."""
        for part in chunked(list(rowids)):
            self.db.execute(
                f"DELETE FROM {self.table} WHERE rowid IN ({','.join('?' * len(part))})", part
            )

    # --- reads --------------------------------------------------------------

    def where(
        self,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
        *,
        alias: str = "",
    ) -> tuple[str, list[Any]]:
        """A WHERE fragment (``"1"`` when unrestricted) and its parameters."""
        prefix = f"{alias}." if alias else ""
        clauses: list[str] = []
        params: list[Any] = []
        for name, value in (scope or Scope()).items():
            clauses.append(f"{prefix}s_{name} = ?")
            params.append(value)
        for flt in filters or ():
            if flt.field not in self.metadata_columns:
                raise UnknownFilterFieldError(flt.field, self.metadata_columns)
            values = [_sql_value(v) for v in flt.values]
            clauses.append(f"{prefix}m_{flt.field} IN ({','.join('?' * len(values))})")
            params.extend(values)
        return (" AND ".join(clauses) or "1"), params

    def check_filters(self, filters: Sequence[MetadataFilter] | None) -> None:
        """Raise for a filter on an undeclared field."""
        for flt in filters or ():
            if flt.field not in self.metadata_columns:
                raise UnknownFilterFieldError(flt.field, self.metadata_columns)

    def rowids_for(
        self,
        ids: Sequence[str] | None,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
    ) -> list[int]:
        """Rowids of the items matching ids (when given), scope and filters."""
        where, params = self.where(scope, filters)
        if ids is None:
            return [
                r[0] for r in self.db.query(f"SELECT rowid FROM {self.table} WHERE {where}", params)
            ]
        out: list[int] = []
        for part in chunked(list(ids), 10000):
            out += [
                r[0]
                for r in self.db.query(
                    f"SELECT rowid FROM {self.table} WHERE id IN ({','.join('?' * len(part))}) "
                    f"AND {where}",
                    [*part, *params],
                )
            ]
        return out

    def fetch(
        self, rowids: Sequence[int], *, query: Callable[..., list[Any]] | None = None
    ) -> dict[int, RetrievalResult]:
        """The items with these rowids, as results with score 0 (read through ``query``,
        default the writer connection's :meth:`SqliteDatabase.query`)."""
        query = query or self.db.query
        out: dict[int, RetrievalResult] = {}
        for part in chunked(list(rowids)):
            rows = query(
                f"SELECT rowid, id, content, source, metadata FROM {self.table} "
                f"WHERE rowid IN ({','.join('?' * len(part))})",
                part,
            )
            for rowid, item_id, content, source, meta in rows:
                out[rowid] = RetrievalResult(
                    content=content, score=0.0, source=source, id=item_id, metadata=json.loads(meta)
                )
        return out

    def filter_values(self, rowids: Sequence[int] | None = None) -> list[tuple[Any, ...]]:
        """``(rowid, s_base.., m_..)`` rows, for in-memory filter masks."""
        cols = ["rowid"] + [f"s_{d}" for d in SCOPE_DIMENSIONS]
        cols += [f"m_{f}" for f in self.metadata_columns]
        if rowids is None:
            return self.db.query(f"SELECT {', '.join(cols)} FROM {self.table}")
        out: list[tuple[Any, ...]] = []
        for part in chunked(list(rowids)):
            out += self.db.query(
                f"SELECT {', '.join(cols)} FROM {self.table} "
                f"WHERE rowid IN ({','.join('?' * len(part))})",
                part,
            )
        return out

    def count(self, scope: Scope | None = None) -> int:
        """Number of rows within ``scope``."""
        where, params = self.where(scope, None)
        return int(self.db.query(f"SELECT count(*) FROM {self.table} WHERE {where}", params)[0][0])


class ItemRowIndex:
    """Shared by the SQLite indexes whose rows are item-table rowids: ``delete`` and
    ``count`` for the ports. The index provides ``table`` and ``unindex_rows``.
    """

    db: SqliteDatabase
    items: ItemTable
    table: str
    _owns_items: bool

    def unindex_rows(self, rowids: Sequence[int]) -> None:
        raise NotImplementedError

    def delete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        if ids is None:
            scope = check_scope("delete", scope, all_scopes)
        with self.db.transaction():
            rowids = self.items.rowids_for(ids, scope, filters)
            self.unindex_rows(rowids)
            if self._owns_items:
                self.items.delete_rows(rowids)
        return len(rowids)

    def count(self, *, scope: Scope | None = None) -> int:
        if scope is None or scope.is_empty:
            return int(self.db.query(f"SELECT count(*) FROM {self.table}")[0][0])
        where, params = self.items.where(scope, None, alias="i")
        return int(
            self.db.query(
                f"SELECT count(*) FROM {self.table} x JOIN {self.items.table} i "
                f"ON i.rowid = x.rowid WHERE {where}",
                params,
            )[0][0]
        )
