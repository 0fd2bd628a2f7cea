"""The item table both PostgreSQL legs share, like the SQLite backend's ``items``.

One row per indexed item: a ``rowid`` (bigserial) that the vector and keyword tables
key by, the item's id, text, source, JSON metadata, the five scope dimensions and one
JSONB column per declared metadata field (``m_<field>``, indexed). Filters become WHERE
clauses of the legs' own queries (pre-filtering, never top-k-then-filter).

Methods named ``*_plan`` are database conversations written once (see ``db.Plan``):
the retriever runs them on a sync connection or, for the async twins, an async one.
"""

from __future__ import annotations

import abc
import json
import re
from collections.abc import Sequence
from typing import Any

from agentmaker.errors import ConfigurationError, UnknownFilterFieldError
from agentmaker.retrieval.database import SHARED_USER
from agentmaker.retrieval.postgres.db import Many, PgDatabase, Plan
from agentmaker.retrieval.types import (
    SCOPE_DIMENSIONS,
    MetadataFilter,
    RetrievalResult,
    Scope,
    check_scope,
)

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")
#: Columns a leg's query selects to build a result (after its own leading columns).
RESULT_COLUMNS = "i.id, i.content, i.source, i.metadata"


def json_value(value: Any) -> str | None:
    """A metadata value as the JSON text its JSONB column holds (None stays NULL)."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def result(row: Sequence[Any], score: float) -> RetrievalResult:
    """A result from the ``RESULT_COLUMNS`` part of a row."""
    item_id, content, source, meta = row
    return RetrievalResult(
        content=content, score=score, source=source, id=item_id, metadata=json.loads(meta)
    )


class PgItemTable:
    """Rows of indexed items with their scope and declared metadata columns."""

    def __init__(
        self,
        db: PgDatabase,
        *,
        table: str = "items",
        metadata_columns: Sequence[str] = (),
        shared_user: str | None = None,
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
        #: Searches scoped to a user also see this user's items (a team's shared ones).
        self.shared_user = shared_user
        scope_cols = ",\n".join(f"  s_{d} TEXT NOT NULL DEFAULT ''" for d in SCOPE_DIMENSIONS)
        db.migrate(
            f"items:{table}",
            [
                f"CREATE TABLE {table} (\n"
                "  rowid BIGSERIAL PRIMARY KEY,\n"
                "  id TEXT NOT NULL UNIQUE,\n"
                "  content TEXT NOT NULL,\n"
                "  source TEXT NOT NULL DEFAULT '',\n"
                "  metadata TEXT NOT NULL DEFAULT '{}',\n"
                f"{scope_cols}\n);\n"
                f"CREATE INDEX {table}_scope ON {table}(s_base, s_user, s_agent)",
                # Row-level security: a login finds its own items, the shared ones and
                # those of no user; another person's private items are not there for it
                # (the administrator, who owns the tables, sees all).
                f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;\n"
                f"CREATE POLICY {table}_people ON {table} "
                f"USING (s_user IN (current_user, '{SHARED_USER}', ''))",
            ],
        )
        self._ensure_metadata_columns()

    def _ensure_metadata_columns(self) -> None:
        with self.db.transaction():
            self.db.execute_pg("SELECT pg_advisory_xact_lock(hashtext('agentmaker:migrate'))")
            existing = {
                r[0]
                for r in self.db.query_pg(
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_schema = current_schema() AND table_name = %s",
                    (self.table,),
                )
            }
            for field in self.metadata_columns:
                column = f"m_{field}"
                if column in existing:
                    continue
                self.db.execute_pg(f"ALTER TABLE {self.table} ADD COLUMN {column} JSONB")
                self.db.execute_pg(
                    f"UPDATE {self.table} SET {column} = metadata::jsonb -> %s", (field,)
                )
                self.db.execute_pg(f"CREATE INDEX {self.table}_{column} ON {self.table}({column})")

    # --- writes -------------------------------------------------------------

    def upsert_plan(self, items: Sequence[RetrievalResult], scope: Scope | None) -> Plan[list[int]]:
        """Insert or update items by id; returns their rowids in order."""
        scope_values = (scope or Scope()).values()
        latest: dict[str, RetrievalResult] = {}
        for item in items:
            if not item.id:
                raise ConfigurationError("Every item written to an index needs an id.")
            latest[item.id] = item  # one statement may not touch a row twice
        unique = list(latest.values())
        columns: list[list[Any]] = [
            [i.id for i in unique],
            [i.content for i in unique],
            [i.source for i in unique],
            [
                json.dumps(
                    {k: v for k, v in i.metadata.items() if not k.startswith("_")},
                    ensure_ascii=False,
                    default=str,
                )
                for i in unique
            ],
        ]
        columns += [[scope_values[d]] * len(unique) for d in SCOPE_DIMENSIONS]
        columns += [[json_value(i.metadata.get(f)) for i in unique] for f in self.metadata_columns]
        names = ["id", "content", "source", "metadata"] + [f"s_{d}" for d in SCOPE_DIMENSIONS]
        names += [f"m_{f}" for f in self.metadata_columns]
        casts = ["%s::text[]"] * (4 + len(SCOPE_DIMENSIONS)) + ["%s::text[]"] * len(
            self.metadata_columns
        )
        selects = [f"u.c{n}" for n in range(4 + len(SCOPE_DIMENSIONS))]
        selects += [
            f"u.c{4 + len(SCOPE_DIMENSIONS) + n}::jsonb" for n in range(len(self.metadata_columns))
        ]
        aliases = ", ".join(f"c{n}" for n in range(len(names)))
        updates = ", ".join(f"{c} = excluded.{c}" for c in names[1:])
        rows = yield (
            f"INSERT INTO {self.table} ({', '.join(names)}) "
            f"SELECT {', '.join(selects)} FROM unnest({', '.join(casts)}) AS u({aliases}) "
            f"ON CONFLICT (id) DO UPDATE SET {updates} RETURNING id, rowid",
            columns,
        )
        by_id = {r[0]: int(r[1]) for r in rows}
        return [by_id[i.id] for i in items]

    def delete_plan(self, rowids: Sequence[int]) -> Plan[None]:
        """Delete rows by rowid."""
        if rowids:
            yield (f"DELETE FROM {self.table} WHERE rowid = ANY(%s)", (list(rowids),))

    # --- reads --------------------------------------------------------------

    def where(
        self,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
        *,
        alias: str = "i",
        search: bool = False,
    ) -> tuple[str, list[Any]]:
        """A WHERE fragment (``TRUE`` when unrestricted) and its parameters.

        With ``search`` a scope naming a user also admits the shared user's items.
        """
        prefix = f"{alias}." if alias else ""
        clauses: list[str] = []
        params: list[Any] = []
        for name, value in (scope or Scope()).items():
            if search and name == "user" and self.shared_user and value != self.shared_user:
                clauses.append(f"{prefix}s_user IN (%s, %s)")
                params += [value, self.shared_user]
                continue
            clauses.append(f"{prefix}s_{name} = %s")
            params.append(value)
        for flt in filters or ():
            if flt.field not in self.metadata_columns:
                raise UnknownFilterFieldError(flt.field, self.metadata_columns)
            values = [json_value(v) for v in flt.values]
            clauses.append(f"{prefix}m_{flt.field} IN ({', '.join(['%s::jsonb'] * len(values))})")
            params.extend(values)
        return (" AND ".join(clauses) or "TRUE"), params

    def check_filters(self, filters: Sequence[MetadataFilter] | None) -> None:
        """Raise for a filter on an undeclared field."""
        for flt in filters or ():
            if flt.field not in self.metadata_columns:
                raise UnknownFilterFieldError(flt.field, self.metadata_columns)

    def rowids_plan(
        self,
        ids: Sequence[str] | None,
        scope: Scope | None,
        filters: Sequence[MetadataFilter] | None,
        *,
        lock: bool = False,
    ) -> Plan[list[int]]:
        """Rowids of the items matching ids (when given), scope and filters (locked
        ``FOR UPDATE`` when ``lock``: a concurrent delete of the same rows waits)."""
        where, params = self.where(scope, filters, alias="")
        suffix = " FOR UPDATE" if lock else ""
        if ids is None:
            rows = yield (f"SELECT rowid FROM {self.table} WHERE {where}{suffix}", params)
        else:
            rows = yield (
                f"SELECT rowid FROM {self.table} WHERE id = ANY(%s) AND {where}{suffix}",
                [list(ids), *params],
            )
        return [int(r[0]) for r in rows]

    def count_plan(self, scope: Scope | None = None) -> Plan[int]:
        """Number of rows within ``scope``."""
        where, params = self.where(scope, None, alias="")
        rows = yield (f"SELECT count(*) FROM {self.table} WHERE {where}", params)
        return int(rows[0][0])

    def count(self, scope: Scope | None = None) -> int:
        """Number of rows within ``scope``."""
        return self.db.run(self.count_plan(scope))


def delete_plan(
    items: PgItemTable,
    unindex: Sequence[Any],
    ids: Sequence[str] | None,
    scope: Scope | None,
    all_scopes: bool,
    filters: Sequence[MetadataFilter] | None,
    *,
    owns_items: bool = True,
) -> Plan[int]:
    """Delete by ids and/or scope and filters from the indexes ``unindex`` (objects with
    ``unindex_plan``) and, when ``owns_items``, the item rows; how many were removed."""
    if ids is None:
        scope = check_scope("delete", scope, all_scopes)
    rowids = yield from items.rowids_plan(ids, scope, filters, lock=True)
    for index in unindex:
        yield from index.unindex_plan(rowids)
    if owns_items:
        yield from items.delete_plan(rowids)
    return len(rowids)


class PgLeg(abc.ABC):
    """What both PostgreSQL legs share: their item rows (their own table, or a hybrid's
    shared one), one transaction per write, and deletes by ids, scope or filters."""

    db: PgDatabase
    items: PgItemTable
    _owns_items: bool

    @abc.abstractmethod
    def add_plan(self, items: Sequence[RetrievalResult], scope: Scope | None) -> Plan[None]:
        """The statements that index ``items``."""

    @abc.abstractmethod
    def unindex_plan(self, rowids: Sequence[int]) -> Plan[None]:
        """The statements that take item rows out of this leg."""

    def item_rowids_plan(
        self, items: Sequence[RetrievalResult], scope: Scope | None
    ) -> Plan[list[int]]:
        """The item rows of ``items``: written here when this leg owns its item table,
        else looked up (a hybrid wrote them in the same transaction)."""
        if self._owns_items:
            return (yield from self.items.upsert_plan(items, scope))
        return (yield from self.items.rowids_plan([i.id for i in items], None, None))

    def add(self, items: Sequence[RetrievalResult], *, scope: Scope | None = None) -> None:
        with self.db.transaction():
            self.db.run(self.add_plan(items, scope))

    def delete(
        self,
        ids: Sequence[str] | None = None,
        *,
        scope: Scope | None = None,
        all_scopes: bool = False,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> int:
        plan = delete_plan(
            self.items, [self], ids, scope, all_scopes, filters, owns_items=self._owns_items
        )
        with self.db.transaction():
            return self.db.run(plan)


__all__ = [
    "RESULT_COLUMNS",
    "Many",
    "PgItemTable",
    "PgLeg",
    "delete_plan",
    "json_value",
    "result",
]
