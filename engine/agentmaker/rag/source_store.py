"""SourceStore: the source of truth for documents and their chunks' full text.

Hits from the index are completed from here, and the index can be rebuilt from here.
Browsing reads (``list_documents``, ``chunks_of``, …) use a per-thread read connection
and see only committed data, so a document being ingested is never seen half-written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentmaker.rag.documents import Chunk, Document
from agentmaker.retrieval.database import SHARED_USER, Database, dialect, lock_document
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.items import chunked

_MIGRATIONS = [
    "CREATE TABLE documents (\n"
    "  doc_id TEXT PRIMARY KEY,\n"
    "  title TEXT NOT NULL DEFAULT '',\n"
    "  source TEXT NOT NULL DEFAULT '',\n"
    "  format TEXT NOT NULL DEFAULT '',\n"
    "  fingerprint TEXT NOT NULL DEFAULT '',\n"
    "  content TEXT NOT NULL DEFAULT '',\n"
    "  metadata TEXT NOT NULL DEFAULT '{}',\n"
    "  size_bytes INTEGER NOT NULL DEFAULT 0,\n"
    "  ingested_at REAL NOT NULL DEFAULT 0,\n"
    "  chunk_count INTEGER NOT NULL DEFAULT 0\n);\n"
    "CREATE TABLE chunks (\n"
    "  chunk_id TEXT PRIMARY KEY,\n"
    "  doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,\n"
    "  idx INTEGER NOT NULL,\n"
    "  heading_path TEXT NOT NULL DEFAULT '',\n"
    "  content TEXT NOT NULL,\n"
    "  metadata TEXT NOT NULL DEFAULT '{}'\n);\n"
    "CREATE INDEX chunks_doc ON chunks(doc_id, idx);\n"
    "CREATE INDEX chunks_heading ON chunks(doc_id, heading_path, idx);\n"
    "CREATE INDEX documents_source ON documents(source)",
]


def _people_policy(table: str) -> str:
    """Row-level security on a team library: a login reads and writes its own rows and
    the shared ones (the server's administrator, who owns the tables, sees all)."""
    return (
        f"ALTER TABLE {table} ADD COLUMN owner TEXT NOT NULL DEFAULT current_user;\n"
        f"CREATE INDEX {table}_owner ON {table}(owner);\n"
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;\n"
        f"CREATE POLICY {table}_people ON {table} "
        f"USING (owner IN (current_user, '{SHARED_USER}', ''))"
    )


@dataclass
class DocumentInfo:
    """What the library knows about one document (without its text)."""

    doc_id: str
    title: str
    source: str
    format: str
    chunk_count: int
    size_bytes: int = 0
    ingested_at: float = 0.0
    fingerprint: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


def _chunk(row: Sequence[Any]) -> Chunk:
    chunk_id, doc_id, idx, heading_path, content, meta = row
    return Chunk(
        content=content,
        chunk_id=chunk_id,
        doc_id=doc_id,
        heading_path=heading_path,
        index=idx,
        metadata=json.loads(meta),
    )


_CHUNK_COLS = "chunk_id, doc_id, idx, heading_path, content, metadata"
_DOC_COLS = (
    "doc_id, title, source, format, chunk_count, size_bytes, ingested_at, fingerprint, metadata"
)


def _info(row: Sequence[Any]) -> DocumentInfo:
    doc_id, title, source, fmt, chunk_count, size_bytes, ingested_at, fingerprint, meta = row
    return DocumentInfo(
        doc_id,
        title,
        source,
        fmt,
        chunk_count,
        size_bytes,
        ingested_at,
        fingerprint,
        metadata=json.loads(meta),
    )


class SourceStore:
    """Documents and chunks in SQLite (in memory by default, or in a library file), or
    in a team library's PostgreSQL database (pass its ``PgDatabase``)."""

    def __init__(self, path: str | Path | Database = ":memory:") -> None:
        self._owns_db = isinstance(path, str | Path)
        self.db: Database = SqliteDatabase(path) if isinstance(path, str | Path) else path
        self._pg = dialect(self.db) == "postgresql"
        self.db.migrate("source_store", _MIGRATIONS)
        #: On a team library: whose documents this store writes (their login by default;
        #: ``SHARED_USER`` for the team's shared collection). Row-level security on the
        #: server shows each login only its own and the shared documents.
        self.owner: str | None = None
        if self._pg:
            self.db.migrate("people", [_people_policy("documents"), _people_policy("chunks")])

    def lock_document(self, doc_id: str) -> None:
        """Inside a write transaction: other processes' writes of ``doc_id`` wait for it
        (a no-op on SQLite, whose write transaction excludes every other writer)."""
        lock_document(self.db, doc_id)

    # --- writes -------------------------------------------------------------

    def put(self, doc: Document, chunks: Sequence[Chunk], *, fingerprint: str = "") -> None:
        """Store a document and its chunks, replacing any previous version."""
        meta = {k: v for k, v in doc.metadata.items() if k != "page_spans"}
        meta["page_spans"] = doc.metadata.get("page_spans")
        with self.db.transaction():
            self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc.doc_id,))
            self.db.execute(
                "INSERT INTO documents(doc_id, title, source, format, fingerprint, content, "
                "metadata, size_bytes, ingested_at, chunk_count) VALUES (?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(doc_id) DO UPDATE SET title=excluded.title, source=excluded.source, "
                "format=excluded.format, fingerprint=excluded.fingerprint, "
                "content=excluded.content, metadata=excluded.metadata, "
                "size_bytes=excluded.size_bytes, ingested_at=excluded.ingested_at, "
                "chunk_count=excluded.chunk_count",
                (
                    doc.doc_id,
                    doc.title,
                    doc.source,
                    doc.format,
                    fingerprint or doc.fingerprint,
                    doc.content,
                    json.dumps(meta, ensure_ascii=False, default=str),
                    int(
                        doc.metadata.get("size_bytes")
                        or len(doc.content.encode("utf-8", "replace"))
                    ),
                    time.time(),
                    len(chunks),
                ),
            )
            self.db.executemany(
                f"INSERT INTO chunks({_CHUNK_COLS}) VALUES (?,?,?,?,?,?)",
                [
                    (
                        c.chunk_id,
                        doc.doc_id,
                        c.index,
                        c.heading_path,
                        c.content,
                        json.dumps(c.metadata, ensure_ascii=False, default=str),
                    )
                    for c in chunks
                ],
            )
            if self._pg and self.owner is not None:
                for table in ("documents", "chunks"):
                    self.db.execute(
                        f"UPDATE {table} SET owner = ? WHERE doc_id = ? AND owner <> ?",
                        (self.owner, doc.doc_id, self.owner),
                    )

    def set_metadata_value(self, doc_id: str, key: str, value: Any) -> None:
        """Set one key of a stored document's metadata (the rest is kept)."""
        value_json = json.dumps(value, ensure_ascii=False, default=str)
        with self.db.transaction():
            if self._pg:
                self.db.execute(
                    "UPDATE documents SET metadata = "
                    "jsonb_set(metadata::jsonb, ARRAY[?], ?::jsonb)::text WHERE doc_id = ?",
                    (key, value_json, doc_id),
                )
                return
            self.db.execute(
                "UPDATE documents SET metadata = json_set(metadata, ?, json(?)) WHERE doc_id = ?",
                (f"$.{key}", value_json, doc_id),
            )

    def delete(self, doc_id: str) -> bool:
        """Remove a document and its chunks; False if it was not there."""
        with self.db.transaction():
            self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            cursor = self.db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
        return bool(cursor.rowcount)

    # --- reads (writer connection: used inside ingestion) -------------------------

    def chunk_ids_of(self, doc_id: str) -> list[str]:
        """Chunk ids of a document, in order."""
        rows = self.db.query("SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY idx", (doc_id,))
        return [r[0] for r in rows]

    def fingerprint_of(self, doc_id: str) -> str | None:
        """The stored fingerprint of a document, or None when absent."""
        rows = self.db.query("SELECT fingerprint FROM documents WHERE doc_id = ?", (doc_id,))
        return rows[0][0] if rows else None

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are left out)."""
        out: dict[str, Chunk] = {}
        for part in chunked(list(chunk_ids), 5000):
            rows = self._read(
                f"SELECT {_CHUNK_COLS} FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})",
                part,
            )
            out.update({r[0]: _chunk(r) for r in rows})
        return out

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        """One chunk by id."""
        return self.get_chunks([chunk_id]).get(chunk_id)

    def neighbors(self, doc_id: str, first: int, last: int) -> list[Chunk]:
        """Chunks of a document with ``first <= index <= last``, in order."""
        rows = self._read(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? AND idx BETWEEN ? AND ? "
            "ORDER BY idx",
            (doc_id, first, last),
        )
        return [_chunk(r) for r in rows]

    # --- browsing (committed data only) ---------------------------------------------

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        # Inside a write transaction on this thread, read through the writer so the
        # transaction sees its own rows; elsewhere use the thread's read connection.
        if self.db.in_transaction:
            return self.db.query(sql, params)
        return self.db.read(sql, params)

    def list_documents(self) -> list[DocumentInfo]:
        """Every document, by title."""
        order = "lower(title), doc_id" if self._pg else "title COLLATE NOCASE"
        rows = self._read(f"SELECT {_DOC_COLS} FROM documents ORDER BY {order}")
        return [_info(r) for r in rows]

    def get_document(self, doc_id: str) -> DocumentInfo | None:
        """One document's information."""
        rows = self._read(f"SELECT {_DOC_COLS} FROM documents WHERE doc_id = ?", (doc_id,))
        return _info(rows[0]) if rows else None

    def find_by_source(self, source: str) -> DocumentInfo | None:
        """The document read from this path, if any."""
        rows = self._read(f"SELECT {_DOC_COLS} FROM documents WHERE source = ?", (source,))
        return _info(rows[0]) if rows else None

    def document_text(self, doc_id: str) -> str | None:
        """The full text of a document (chunk offsets index into it)."""
        rows = self._read("SELECT content FROM documents WHERE doc_id = ?", (doc_id,))
        return rows[0][0] if rows else None

    def headings_of(self, doc_id: str) -> list[tuple[str, int]]:
        """``(heading_path, chunk_count)`` of a document, in document order."""
        rows = self._read(
            "SELECT heading_path, count(*), min(idx) AS first FROM chunks WHERE doc_id = ? "
            "GROUP BY heading_path ORDER BY first",
            (doc_id,),
        )
        return [(r[0], int(r[1])) for r in rows]

    def chunks_of(self, doc_id: str, heading_path: str | None = None) -> list[Chunk]:
        """A document's chunks in order (only those under ``heading_path`` when given)."""
        if heading_path is None:
            rows = self._read(
                f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? ORDER BY idx", (doc_id,)
            )
        else:
            rows = self._read(
                f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? AND heading_path = ? "
                "ORDER BY idx",
                (doc_id, heading_path),
            )
        return [_chunk(r) for r in rows]

    def iter_documents(self) -> Iterator[tuple[DocumentInfo, list[Chunk]]]:
        """Every document with its chunks (for rebuilding an index)."""
        for info in self.list_documents():
            yield info, self.chunks_of(info.doc_id)

    def count_documents(self) -> int:
        """Number of documents."""
        return int(self._read("SELECT count(*) FROM documents")[0][0])

    def count_chunks(self) -> int:
        """Number of chunks."""
        return int(self._read("SELECT count(*) FROM chunks")[0][0])

    def all_chunk_ids(self) -> set[str]:
        """Every chunk id (for verifying an index against this store)."""
        return {r[0] for r in self._read("SELECT chunk_id FROM chunks")}

    def close(self) -> None:
        """Close the file if this store opened it."""
        if self._owns_db:
            self.db.close()
