"""ConversationStore: conversations and their turns in the library's SQLite file.

Three tables, created by numbered migrations of the ``conversations`` component (a
library written before conversations existed gains them on open): ``conversations``
(title, times, and the scope that owns it, so a shared file keeps people apart),
``conversation_turns`` (one row per question and answer, with the sources snapshot as
JSON) and ``conversation_fts`` (full-text search over questions and answers, CJK as
bigrams like the keyword index).

A team library (PostgreSQL) has no FTS5: there ``conversation_fts`` is a plain table whose
``terms`` column holds the body's tokens made by FTS5's own tokenizer (the stems, CJK
bigrams; :mod:`agentmaker.retrieval.postgres.tokens`) under a GIN index, so a search
matches the same words on both backends ("refunds" finds "refunded").
"""

from __future__ import annotations

import builtins
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from agentmaker.conversations.records import (
    Conversation,
    ConversationSummary,
    SearchHit,
    Turn,
    TurnSource,
)
from agentmaker.errors import ConversationNotFoundError
from agentmaker.retrieval.database import Database, dialect
from agentmaker.retrieval.sqlite.fts5_topk import TOKENIZE
from agentmaker.retrieval.text_analysis import index_text, query_terms
from agentmaker.retrieval.types import Scope

COMPONENT = "conversations"
_MIGRATIONS = [
    "CREATE TABLE conversations (\n"
    "  conversation_id TEXT PRIMARY KEY,\n"
    "  scope TEXT NOT NULL,\n"
    "  title TEXT NOT NULL DEFAULT '',\n"
    "  created_at REAL NOT NULL,\n"
    "  updated_at REAL NOT NULL\n);\n"
    "CREATE INDEX conversations_recent ON conversations(scope, updated_at DESC);\n"
    "CREATE TABLE conversation_turns (\n"
    "  turn_id TEXT PRIMARY KEY,\n"
    "  conversation_id TEXT NOT NULL\n"
    "    REFERENCES conversations(conversation_id) ON DELETE CASCADE,\n"
    "  position INTEGER NOT NULL,\n"
    "  question TEXT NOT NULL,\n"
    "  query TEXT NOT NULL,\n"
    "  answer TEXT NOT NULL,\n"
    "  extractive INTEGER NOT NULL,\n"
    "  model TEXT NOT NULL DEFAULT '',\n"
    "  stopped INTEGER NOT NULL DEFAULT 0,\n"
    "  created_at REAL NOT NULL,\n"
    "  sources TEXT NOT NULL DEFAULT '[]'\n);\n"
    "CREATE INDEX conversation_turns_order ON conversation_turns(conversation_id, position);\n"
    "CREATE VIRTUAL TABLE conversation_fts USING fts5(body, turn_id UNINDEXED, "
    f"conversation_id UNINDEXED, tokenize='{TOKENIZE}')",
]


def _pg_terms(db: Any) -> None:
    """Team libraries, step 2: the FTS5 tokens of every stored turn, for stemmed search
    (step 1 searched the body with ILIKE)."""
    db.execute("ALTER TABLE conversation_fts ADD COLUMN terms TEXT[] NOT NULL DEFAULT '{}'")
    rows = db.query("SELECT turn_id, body FROM conversation_fts")
    for (turn_id, _body), terms in zip(rows, _body_terms([r[1] for r in rows]), strict=True):
        db.execute("UPDATE conversation_fts SET terms = ? WHERE turn_id = ?", (terms, turn_id))
    db.execute("CREATE INDEX conversation_fts_terms ON conversation_fts USING gin (terms)")


def _body_terms(bodies: Sequence[str]) -> list[list[str]]:
    """The tokens FTS5 would index for each body (``bodies`` are already ``index_text``)."""
    return [sorted(c.counts) for c in _tokenizer().count(bodies)]


_TOKENIZER: Any = None


def _tokenizer() -> Any:
    """FTS5's tokenizer, for team libraries (imported when one is opened: it lives in the
    PostgreSQL package)."""
    global _TOKENIZER
    if _TOKENIZER is None:
        from agentmaker.retrieval.postgres.tokens import Tokenizer

        _TOKENIZER = Tokenizer()
    return _TOKENIZER


# A team library (PostgreSQL) has no FTS5: the same rows in a plain table, with the
# body's FTS5 tokens in an array (see the module docstring).
_PG_MIGRATIONS: list[Any] = [
    _MIGRATIONS[0].replace(
        "CREATE VIRTUAL TABLE conversation_fts USING fts5(body, turn_id UNINDEXED, "
        f"conversation_id UNINDEXED, tokenize='{TOKENIZE}')",
        "CREATE TABLE conversation_fts (body TEXT NOT NULL, turn_id TEXT NOT NULL, "
        "conversation_id TEXT NOT NULL);\n"
        "CREATE INDEX conversation_fts_turn ON conversation_fts(turn_id);\n"
        "CREATE INDEX conversation_fts_conversation ON conversation_fts(conversation_id)",
    ),
    _pg_terms,
]
_TURN_COLS = (
    "turn_id, conversation_id, position, question, query, answer, extractive, model, "
    "stopped, created_at, sources"
)
_SUMMARY = (
    "SELECT c.conversation_id, c.title, c.created_at, c.updated_at, "
    "(SELECT count(*) FROM conversation_turns t WHERE t.conversation_id = c.conversation_id) "
    "FROM conversations c"
)


def scope_key(scope: Scope) -> str:
    """The scope as stored: the dimensions that are set, as sorted JSON."""
    return json.dumps({k: v for k, v in asdict(scope).items() if v is not None}, sort_keys=True)


def _turn(row: Sequence[Any]) -> Turn:
    tid, cid, pos, question, query, answer, extractive, model, stopped, created, sources = row
    return Turn(
        turn_id=tid,
        conversation_id=cid,
        position=int(pos),
        question=question,
        query=query,
        answer=answer,
        extractive=bool(extractive),
        model=model,
        created_at=float(created),
        sources=[TurnSource.from_json(s) for s in json.loads(sources)],
        stopped=bool(stopped),
    )


def _match(text: str) -> str | None:
    # Every word must occur (a search box narrows as people type), each quoted so that
    # nothing typed is ever read as FTS5 syntax.
    parts = []
    for term in query_terms(text):
        quoted = '"' + term.replace('"', '""') + '"'
        parts.append(quoted + ("*" if len(term) == 1 and not term.isascii() else ""))
    return " AND ".join(parts) if parts else None


def _snippet(text: str, words: Sequence[str], width: int = 90) -> str:
    flat = " ".join(text.split())
    lower = flat.lower()
    found = [lower.find(w) for w in words if lower.find(w) >= 0]
    start = max(0, min(found) - width // 3) if found else 0
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


class ConversationStore:
    """Conversations of one scope in a library file."""

    def __init__(self, db: Database, scope: Scope) -> None:
        self.db = db
        self.scope = scope
        self._pg = dialect(db) == "postgresql"
        db.migrate(COMPONENT, _PG_MIGRATIONS if self._pg else _MIGRATIONS)

    @property
    def _scope(self) -> str:
        return scope_key(self.scope)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        # Inside this thread's write transaction read through the writer (own rows).
        if self.db.in_transaction:
            return self.db.query(sql, params)
        return self.db.read(sql, params)

    def _now(self) -> float:
        # Strictly increasing within a scope, so "newest first" is never a tie.
        rows = self.db.query(
            "SELECT max(updated_at) FROM conversations WHERE scope = ?", (self._scope,)
        )
        latest = rows[0][0] or 0.0
        return max(time.time(), latest + 1e-6)

    # --- conversations -----------------------------------------------------------

    def create(self, title: str = "") -> ConversationSummary:
        """A new, empty conversation."""
        cid = uuid.uuid4().hex
        with self.db.transaction():
            now = self._now()
            self.db.execute(
                "INSERT INTO conversations(conversation_id, scope, title, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (cid, self._scope, title.strip(), now, now),
            )
        return ConversationSummary(cid, title.strip(), now, now, 0)

    def list(self, *, limit: int = 50, offset: int = 0) -> list[ConversationSummary]:
        """Conversations, most recently used first, ``limit`` at a time from ``offset``."""
        rows = self._read(
            f"{_SUMMARY} WHERE c.scope = ? ORDER BY c.updated_at DESC LIMIT ? OFFSET ?",
            (self._scope, limit, offset),
        )
        return [ConversationSummary(r[0], r[1], r[2], r[3], int(r[4])) for r in rows]

    def count(self) -> int:
        """How many conversations this scope has."""
        rows = self._read("SELECT count(*) FROM conversations WHERE scope = ?", (self._scope,))
        return int(rows[0][0])

    def summary(self, conversation_id: str) -> ConversationSummary:
        """One conversation without its turns."""
        rows = self._read(
            f"{_SUMMARY} WHERE c.scope = ? AND c.conversation_id = ?",
            (self._scope, conversation_id),
        )
        if not rows:
            raise ConversationNotFoundError(conversation_id)
        r = rows[0]
        return ConversationSummary(r[0], r[1], r[2], r[3], int(r[4]))

    def get(self, conversation_id: str) -> Conversation:
        """A conversation with its turns, oldest first."""
        with self.db.read_snapshot():
            head = self.summary(conversation_id)
            rows = self._read(
                f"SELECT {_TURN_COLS} FROM conversation_turns WHERE conversation_id = ? "
                "ORDER BY position",
                (conversation_id,),
            )
        return Conversation(**asdict(head), turns=[_turn(r) for r in rows])

    def rename(self, conversation_id: str, title: str) -> None:
        """Give a conversation another title (kept where it is in the list)."""
        cursor = self.db.execute(
            "UPDATE conversations SET title = ? WHERE conversation_id = ? AND scope = ?",
            (title.strip(), conversation_id, self._scope),
        )
        if not cursor.rowcount:
            raise ConversationNotFoundError(conversation_id)

    def delete(self, conversation_id: str) -> bool:
        """Remove a conversation and its turns; False if it was not there."""
        with self.db.transaction():
            cursor = self.db.execute(
                "DELETE FROM conversations WHERE conversation_id = ? AND scope = ?",
                (conversation_id, self._scope),
            )
            if cursor.rowcount:
                self.db.execute(
                    "DELETE FROM conversation_turns WHERE conversation_id = ?", (conversation_id,)
                )
                self.db.execute(
                    "DELETE FROM conversation_fts WHERE conversation_id = ?", (conversation_id,)
                )
        return bool(cursor.rowcount)

    def restore(self, conversation: Conversation) -> None:
        """Put a deleted conversation back, turns and all (undo of :meth:`delete`)."""
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO conversations(conversation_id, scope, title, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    conversation.conversation_id,
                    self._scope,
                    conversation.title,
                    conversation.created_at,
                    conversation.updated_at,
                ),
            )
            for turn in conversation.turns:
                self._insert_turn(turn)

    # --- turns -----------------------------------------------------------------------

    def add_turn(
        self,
        conversation_id: str,
        *,
        question: str,
        query: str,
        answer: str,
        extractive: bool,
        model: str,
        sources: Sequence[TurnSource],
        stopped: bool = False,
        replace: str | None = None,
    ) -> Turn:
        """Append a turn (or, with ``replace``, put it in place of that turn: regenerate).

        An untitled conversation takes its first question as its title.
        """
        with self.db.transaction():
            head = self.summary(conversation_id)
            now = self._now()
            if replace is not None:
                rows = self.db.query(
                    "SELECT position FROM conversation_turns WHERE turn_id = ? "
                    "AND conversation_id = ?",
                    (replace, conversation_id),
                )
                if not rows:
                    raise ConversationNotFoundError(conversation_id, turn_id=replace)
                position = int(rows[0][0])
                self._delete_turn(replace)
            else:
                position = head.turn_count + 1
            turn = Turn(
                turn_id=uuid.uuid4().hex,
                conversation_id=conversation_id,
                position=position,
                question=question,
                query=query,
                answer=answer,
                extractive=extractive,
                model=model,
                created_at=now,
                sources=list(sources),
                stopped=stopped,
            )
            self._insert_turn(turn)
            title = head.title or " ".join(question.split())[:80]
            self.db.execute(
                "UPDATE conversations SET updated_at = ?, title = ? WHERE conversation_id = ?",
                (now, title, conversation_id),
            )
        return turn

    def _insert_turn(self, turn: Turn) -> None:
        self.db.execute(
            f"INSERT INTO conversation_turns({_TURN_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                turn.turn_id,
                turn.conversation_id,
                turn.position,
                turn.question,
                turn.query,
                turn.answer,
                int(turn.extractive),
                turn.model,
                int(turn.stopped),
                turn.created_at,
                json.dumps([s.to_json() for s in turn.sources], ensure_ascii=False, default=str),
            ),
        )
        body = index_text(f"{turn.question}\n{turn.answer}")
        if self._pg:
            self.db.execute(
                "INSERT INTO conversation_fts(body, turn_id, conversation_id, terms)"
                " VALUES (?, ?, ?, ?)",
                (body, turn.turn_id, turn.conversation_id, _body_terms([body])[0]),
            )
            return
        self.db.execute(
            "INSERT INTO conversation_fts(body, turn_id, conversation_id) VALUES (?, ?, ?)",
            (body, turn.turn_id, turn.conversation_id),
        )

    def _delete_turn(self, turn_id: str) -> None:
        self.db.execute("DELETE FROM conversation_turns WHERE turn_id = ?", (turn_id,))
        self.db.execute("DELETE FROM conversation_fts WHERE turn_id = ?", (turn_id,))

    # --- search ----------------------------------------------------------------------

    def search(self, text: str, *, limit: int = 50) -> builtins.list[SearchHit]:
        """Turns whose question or answer holds every word of ``text``, newest
        conversation first (one hit per conversation: its best-matching turn)."""
        expression = _match(text)
        if expression is None:
            return []
        words = query_terms(text)
        if self._pg:
            rows = self._search_pg(text)
        else:
            rows = self._read(
                "WITH hits AS MATERIALIZED (SELECT turn_id, conversation_id, bm25(conversation_fts)"
                " AS score FROM conversation_fts WHERE conversation_fts MATCH ?) "
                "SELECT c.conversation_id, c.title, t.turn_id, t.question, t.answer, c.updated_at "
                "FROM hits h JOIN conversation_turns t ON t.turn_id = h.turn_id "
                "JOIN conversations c ON c.conversation_id = h.conversation_id "
                "WHERE c.scope = ? ORDER BY c.updated_at DESC, h.score",
                (expression, self._scope),
            )
        hits: builtins.list[SearchHit] = []
        seen: set[str] = set()
        for cid, title, tid, question, answer, updated in rows:
            if cid in seen:
                continue
            seen.add(cid)
            body = question if any(w in question.lower() for w in words) else answer
            hits.append(SearchHit(cid, title, tid, _snippet(body, words), float(updated)))
            if len(hits) >= limit:
                break
        return hits

    def _search_pg(self, text: str) -> builtins.list[Any]:
        """The rows :meth:`search` reads, on PostgreSQL: turns holding every word's FTS5
        token (a lone CJK character: a bigram it begins, like FTS5's prefix query)."""
        terms, prefixes = _tokenizer().query(text)
        if not terms and not prefixes:
            return []
        where = ["c.scope = ?", "f.terms @> ?::text[]"]
        where += ["EXISTS (SELECT 1 FROM unnest(f.terms) x WHERE x LIKE ?)" for _ in prefixes]
        patterns = [
            p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for p in prefixes
        ]
        return self._read(
            "SELECT c.conversation_id, c.title, t.turn_id, t.question, t.answer, c.updated_at "
            "FROM conversation_fts f JOIN conversation_turns t ON t.turn_id = f.turn_id "
            "JOIN conversations c ON c.conversation_id = f.conversation_id "
            f"WHERE {' AND '.join(where)} ORDER BY c.updated_at DESC, t.position DESC",
            (self._scope, sorted(set(terms)), *patterns),
        )
