"""A tantivy index of the FTS5 keyword leg, kept beside the library: a cache, never the
source of truth.

Why: FTS5 has no top-k pruning; at 1M chunks an 8-word question took p50 141 / p95
251 ms even with ``fts5_topk``. tantivy (Rust, block-max WAND) answers the same query in
~1 ms. Its words are FTS5's own tokens (``fts5_tokens``: same stems, CJK bigrams, lengths),
split on whitespace, and its BM25 has FTS5's k1 = 1.2, b = 0.75; its idf is
``ln(1 + (N - n + 0.5) / (n + 0.5))`` where FTS5 has ``ln((N - n + 0.5) / (n + 0.5))``
(clamped), and it rounds document lengths to one byte, so scores differ slightly and
top-k orders mostly agree (measured in REPORT §12).

Truth and sync. FTS5 stays the truth and is written in the document's transaction;
every keyword write or delete also logs its rowid in ``<fts>_log`` in that transaction
(a rolled-back write leaves no entry). A background thread folds the logged rows into
the tantivy index (their state read from the library: the FTS5 row's presence and the
item's text), commits, then stamps (directory, log position, count, last rowid, token
version) in ``library_meta`` and trims the log, in one transaction. The tantivy index
itself holds the log position it reflects (a meta document, rowid 0), committed
atomically with the rows, so a search can check, inside its own read snapshot, that the
index reflects exactly that snapshot: same log position, same row count. Otherwise
(rows pending, a rebuild, another process wrote, a damaged file) the caller uses FTS5:
results are always complete and current; only their speed depends on the cache.

On open the stamp is verified (directory readable, token version, position not ahead of
the log and no gap after it, count, last rowid); anything else is rebuilt in the
background from the rows in the library file. One process folds (tantivy allows one
writer per directory); another one on the same library follows its commits read-only,
and takes over the writer when it is free.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.fts5_tokens import TOKENS_VERSION, Fts5Tokenizer
from agentmaker.retrieval.sqlite.tantivy_index import (
    META_ROWID,
    RowCheck,
    delete,
    document,
    new_index,
    open_index,
    position,
    reraise_fatal,
    set_position,
    top_k,
)

log = logging.getLogger(__name__)

#: Below this many keyword rows no tantivy index is kept: FTS5 with ``fts5_topk`` is
#: fast enough there (see REPORT §12) and a library stays one file.
FAST_MIN_ROWS = 20_000
#: Log entries folded per tantivy commit.
FOLD_BATCH = 20_000
#: Rows read, tokenized and added per step of a rebuild.
REBUILD_BATCH = 5_000
#: Unnamed copies older than this are removed when a copy is built.
STRAY_SECONDS = 86_400
#: The tantivy writer's memory budget (one indexing thread, leaving a core to the app).
WRITER_HEAP = 128_000_000


class KeywordCache:
    """The tantivy copy of one FTS5 table, with its background fold thread.

    :meth:`search` never blocks on opening, folding or rebuilding: it returns None
    whenever the index does not reflect the caller's snapshot exactly.
    """

    def __init__(
        self,
        db: SqliteDatabase,
        fts_table: str,
        items_table: str,
        *,
        min_rows: int | None = None,
    ) -> None:
        self.db = db
        self.fts_table = fts_table
        self.log_table = f"{fts_table}_log"
        self.items_table = items_table
        self.min_rows = FAST_MIN_ROWS if min_rows is None else min_rows
        self.meta_key = f"{fts_table}.tantivy"
        self._lock = threading.RLock()  # guards _index / _writer / _dir swaps
        self._index: Any = None
        self._writer: Any = None
        self._dir: Path | None = None
        self._tokenizer: Fts5Tokenizer | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._needs_rebuild = False
        self._stamp_seen: str | None = None  # the stamped directory when a rebuild began
        #: "too small", "opening", "building", "ready" (this process folds), "following"
        #: (another one does), "failed", "closed".
        self.status = "not started"
        self.error: BaseException | None = None
        #: Rows folded by the last rebuild, and its duration in seconds.
        self.last_rebuild: tuple[int, float] | None = None

    # --- the library side ----------------------------------------------------------

    def _folder(self) -> Path:
        return Path(self.db.path).parent

    def _stamp(self, query: Callable[..., list[Any]] | None = None) -> dict[str, Any] | None:
        rows = (query or self.db.read)(
            "SELECT value FROM library_meta WHERE key = ?", (self.meta_key,)
        )
        return json.loads(rows[0][0]) if rows else None

    def _log_bounds(self, query: Callable[..., list[Any]]) -> tuple[int, int]:
        row = query(f"SELECT min(seq), max(seq) FROM {self.log_table}")[0]
        return int(row[0] or 0), int(row[1] or 0)

    def total_rows(self, query: Callable[..., list[Any]]) -> int:
        """About how many rows the FTS5 table holds, from its totals record (no scan;
        a contentless-delete table counts rows ever inserted, deletes are not
        subtracted: a size estimate, not a count)."""
        from agentmaker.retrieval.sqlite.fts5_topk import read_varint

        found = query(f"SELECT block FROM {self.fts_table}_data WHERE id = 1")
        if not found or not found[0][0]:
            return 0
        return read_varint(bytes(found[0][0]))[0]

    # --- lifetime ------------------------------------------------------------------

    def start(self) -> None:
        """Open a verified index now (cheap: its files are memory-mapped, nothing is
        read until a search touches it), so the first search can use it; start the
        background thread that folds, or rebuilds when there is no valid index and the
        table is large enough."""
        if self.db.in_memory:
            self.status = "off"
            return
        stamp = self._stamp(self.db.query)
        if stamp is None and self.total_rows(self.db.query) < self.min_rows:
            self.status = "too small"
            return
        found = self._verified() if stamp is not None else None
        if found is not None:
            path, index = found
            with self._lock:
                self._index, self._dir = index, path
            self.status = "following"  # until the thread has the writer
        self._start_thread(opened=found is not None)

    def grown(self) -> None:
        """After a keyword write committed: start once the table is large enough, else
        wake the fold."""
        if self._thread is None:
            if self.status == "too small" and self.total_rows(self.db.query) >= self.min_rows:
                self._start_thread()
        else:
            self._wake.set()

    def kept(self) -> bool:
        """Whether keyword writes must be logged: a copy of this library exists or is
        being built (by any process). Asked inside the write's transaction, which is
        serialised with the one that marks a build, so no write falls between the
        build's snapshot and the log; a small library without a copy logs nothing."""
        return bool(self.db.query("SELECT 1 FROM library_meta WHERE key = ?", (self.meta_key,)))

    @property
    def active(self) -> bool:
        """True once this process keeps the copy (a thread opens, folds or rebuilds it)."""
        return self._thread is not None

    def _start_thread(self, *, opened: bool = False) -> None:
        if not opened:
            self.status = "opening"

        def run() -> None:
            try:
                if not opened:
                    self._open_or_rebuild()
                elif self._count_matches():
                    self._take_writer()
                    self._fold()
                else:
                    self._rebuild()
                self._fold_loop()
            except BaseException as exc:
                if not self._stop.is_set():
                    log.exception("keyword index of %s failed", self.db.path)
                    self.error = exc
                    self.status = "failed"

        self._thread = threading.Thread(target=run, name=f"keywords-{self.fts_table}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the background thread and release the index (and its writer lock)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._writer = None
            self._index = None
        if self._tokenizer is not None:
            self._tokenizer.close()
            self._tokenizer = None
        self.status = "closed"

    def wait(self, timeout: float = 60.0) -> bool:
        """Block until the index reflects the library's last commit and is stamped
        (tests, benchmarks); False when that did not happen within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.status in ("failed", "closed", "too small", "off"):
                return False
            index = self._index
            if index is not None:
                with contextlib.suppress(Exception):
                    seq, _ = position(index.searcher())
                    stamp = self._stamp() or {}
                    if seq == self._log_bounds(self.db.read)[1] == stamp.get("seq"):
                        return True
            self._wake.set()
            time.sleep(0.02)
        return False

    # --- opening and rebuilding ------------------------------------------------------

    def _verified(self) -> tuple[Path, Any] | None:
        """The stamped index, opened, if it checks out; None means rebuild."""
        stamp = self._stamp()
        if stamp is None:
            return None
        path = self._folder() / str(stamp.get("dir", ""))
        problems = []
        index = None
        if stamp.get("tokens") != TOKENS_VERSION:
            problems.append("token version")
        elif not stamp.get("dir") or not path.is_dir():
            problems.append("directory missing")
        else:
            try:
                index = open_index(str(path))
                seq, count = position(index.searcher())
            except BaseException as exc:  # damaged or foreign: rebuilt from the library
                reraise_fatal(exc)
                problems.append(f"unreadable ({exc})")
            else:
                first, last = self._log_bounds(self.db.read)
                if seq < int(stamp["seq"]) or seq > last:
                    problems.append("position")
                elif first > seq + 1:
                    problems.append("log gap")
                elif count != int(stamp.get("count", -1)) and seq == int(stamp["seq"]):
                    problems.append("count")
                elif stamp.get("max_rowid") and not self._present_or_logged(
                    int(stamp["max_rowid"]), int(stamp["seq"])
                ):
                    problems.append("last rowid gone without a log entry")
        if problems:
            log.warning("keyword index %s is stale (%s): rebuilding", path, ", ".join(problems))
            return None
        return path, index

    def _count_matches(self) -> bool:
        """Once per open, in the background (counting reads the table: 15 ms at 1M
        rows): an index at the library's position holds as many rows as FTS5; when not,
        it is dropped (the caller rebuilds)."""
        index = self._index
        if index is None:
            return False
        with self.db.read_snapshot():
            last = self._log_bounds(self.db.read)[1]
            rows = int(self.db.read(f"SELECT count(*) FROM {self.fts_table}_docsize")[0][0])
        seq, count = position(index.searcher())
        if seq != last or count == rows:
            return True
        log.warning(
            "keyword index of %s holds %d rows, the library %d: rebuilding",
            self.db.path,
            count,
            rows,
        )
        with self._lock:
            self._index = None
        return False

    def _present_or_logged(self, rowid: int, seq: int) -> bool:
        present = self.db.read(f"SELECT 1 FROM {self.fts_table}_docsize WHERE id = ?", (rowid,))
        logged = self.db.read(
            f"SELECT 1 FROM {self.log_table} WHERE rowid IN (?, ?) AND seq > ?",
            (rowid, META_ROWID, seq),
        )
        return bool(present or logged)

    def _open_or_rebuild(self) -> None:
        found = self._verified()
        if found is None:
            self._rebuild()
            return
        path, index = found
        with self._lock:
            self._index, self._dir = index, path
        self._take_writer()

    def _take_writer(self) -> None:
        """Become the folding process, or follow the one that is."""
        index = self._index
        try:
            writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
        except ValueError:  # LockBusy: another process (or connection) folds
            self.status = "following"
            return
        with self._lock:
            self._writer = writer
        self.status = "ready"

    def _tokens(self, rows: Sequence[tuple[int, str]]) -> dict[int, str]:
        if self._tokenizer is None:
            self._tokenizer = Fts5Tokenizer()
        return self._tokenizer.tokens(rows)

    def _rebuild(self) -> None:
        """Build a new index from the rows in the library file (no snapshot is held for
        minutes: a row that changes after ``seq`` was read has a later log entry, which
        the fold applies afterwards; rows past ``top`` are left to the fold)."""
        self.status = "building"
        self._needs_rebuild = False
        started = time.perf_counter()
        with self.db.transaction():
            stamp = self._stamp(self.db.query)
            if stamp is None:  # from now on every keyword write is logged (``kept``)
                self.db.set_meta(self.meta_key, json.dumps({"building": True}))
        self._stamp_seen = None if stamp is None else stamp.get("dir")
        self._remove_strays(keep=self._stamp_seen)
        name = f"{Path(self.db.path).name}.keywords-{secrets.token_hex(4)}"
        path = self._folder() / name
        path.mkdir()
        index = new_index(str(path))
        writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
        with self.db.read_snapshot():
            seq = self._log_bounds(self.db.read)[1]
            top = int(self.db.read(f"SELECT max(id) FROM {self.fts_table}_docsize")[0][0] or 0)
        last, done = 0, 0
        while not self._stop.is_set():
            rows = self.db.read(
                f"SELECT d.id, coalesce(i.content, '') FROM {self.fts_table}_docsize d "
                f"LEFT JOIN {self.items_table} i ON i.rowid = d.id "
                "WHERE d.id > ? AND d.id <= ? ORDER BY d.id LIMIT ?",
                (last, top, REBUILD_BATCH),
            )
            if not rows:
                break
            for rowid, text in self._tokens(rows).items():
                writer.add_document(document(rowid, text))
            last = int(rows[-1][0])
            done += len(rows)
        if self._stop.is_set():
            del writer, index
            shutil.rmtree(path, ignore_errors=True)
            return
        set_position(writer, seq)
        writer.commit()
        index.reload()
        with self._lock:
            old = self._dir
            self._index, self._writer, self._dir = index, writer, path
        self.last_rebuild = (done, time.perf_counter() - started)
        self.status = "ready"
        log.info("keyword index %s rebuilt: %d rows in %.1f s", path, *self.last_rebuild)
        self._save_stamp(seq)
        if old is not None and old != path:
            shutil.rmtree(old, ignore_errors=True)

    def _remove_strays(self, keep: str | None) -> None:
        """Remove copies no stamp names that nobody touched for a day (left where a
        removal failed, e.g. files still mapped on Windows, or by an interrupted build)."""
        cutoff = time.time() - STRAY_SECONDS
        for stray in self._folder().glob(f"{Path(self.db.path).name}.keywords-*"):
            with contextlib.suppress(OSError):
                if stray.name != keep and stray.stat().st_mtime < cutoff:
                    shutil.rmtree(stray, ignore_errors=True)

    # --- folding ---------------------------------------------------------------------

    def _fold_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=2.0)
            self._wake.clear()
            if self._stop.is_set():
                return
            if self._needs_rebuild:
                self._rebuild()
            elif self.status == "following":
                self._follow()
            elif self._writer is not None:
                self._fold()

    def _follow(self) -> None:
        """Another process folds: pick up its commits, take over when it is gone."""
        index = self._index
        if index is None:
            return
        with contextlib.suppress(Exception):
            index.reload()
        stamp = self._stamp()
        if stamp is not None and self._dir is not None and stamp.get("dir") != self._dir.name:
            # The folding process rebuilt elsewhere: follow that one.
            self._open_or_rebuild()
            return
        seq, _ = position(index.searcher())
        if seq < self._log_bounds(self.db.read)[1]:
            self._take_writer()
            if self._writer is not None:
                self._fold()

    def _fold(self) -> None:
        """Fold log entries into the index until it has caught up with the library."""
        while not self._stop.is_set():
            index, writer = self._index, self._writer
            if index is None or writer is None:
                return
            seq, _ = position(index.searcher())
            with self.db.read_snapshot():
                first, last = self._log_bounds(self.db.read)
                if last <= seq:
                    return
                if first > seq + 1:
                    log.warning("keyword index of %s missed log entries: rebuilding", self.db.path)
                    self._needs_rebuild = True
                    self._wake.set()
                    return
                entries = self.db.read(
                    f"SELECT seq, rowid FROM {self.log_table} WHERE seq > ? ORDER BY seq LIMIT ?",
                    (seq, FOLD_BATCH),
                )
                upto = int(entries[-1][0])
                # Rowid 0 logs "every row removed" (``Fts5KeywordIndex.clear``): the rows
                # logged before it are gone, those after it are read as they are now.
                cleared = max((int(q) for q, r in entries if r == META_ROWID), default=None)
                rowids = sorted(
                    {
                        int(r)
                        for q, r in entries
                        if r != META_ROWID and (cleared is None or q > cleared)
                    }
                )
                rows = self._current(rowids)
            tokens = self._tokens(rows)
            if cleared is not None:
                writer.delete_all_documents()
            delete(writer, rowids)
            for rowid, text in tokens.items():
                writer.add_document(document(rowid, text))
            set_position(writer, upto)
            writer.commit()
            index.reload()
            self._save_stamp(upto)

    def _current(self, rowids: Sequence[int]) -> list[tuple[int, str]]:
        """``(rowid, text)`` of the rowids the FTS5 table holds now (read snapshot)."""
        from agentmaker.retrieval.sqlite.items import chunked

        rows: list[tuple[int, str]] = []
        for part in chunked(list(rowids), 10_000):
            rows += self.db.read(
                f"SELECT d.id, coalesce(i.content, '') FROM {self.fts_table}_docsize d "
                f"LEFT JOIN {self.items_table} i ON i.rowid = d.id "
                f"WHERE d.id IN ({','.join('?' * len(part))})",
                list(part),
            )
        return rows

    def _save_stamp(self, seq: int) -> None:
        """Name this index in the library and trim the log up to ``seq`` (one
        transaction). When another process's index was stamped meanwhile, follow it."""
        path = self._dir
        index = self._index
        if path is None or index is None or self.db.closed:
            return
        _, count = position(index.searcher())
        switch = False
        with self.db.transaction():
            stamp = self._stamp(self.db.query)
            named = None if stamp is None else stamp.get("dir")  # None: a build's mark
            if named not in (None, path.name, self._stamp_seen):
                # Another process stamped its index while this one was rebuilt: the
                # first one stamped wins (else each would trim the other's log).
                switch = True
            else:
                top = self.db.query(f"SELECT max(id) FROM {self.fts_table}_docsize")[0][0]
                self.db.set_meta(
                    self.meta_key,
                    json.dumps(
                        {
                            "dir": path.name,
                            "seq": seq,
                            "count": count,
                            "max_rowid": int(top or 0),
                            "tokens": TOKENS_VERSION,
                        }
                    ),
                )
                # The entry ``seq`` itself stays: sequence numbers never restart.
                self.db.execute(f"DELETE FROM {self.log_table} WHERE seq < ?", (seq,))
        if switch:
            log.info("keyword index of %s: following another process's index", self.db.path)
            with self._lock:
                self._writer = self._index = None
                self._dir = None
            shutil.rmtree(path, ignore_errors=True)
            self._open_or_rebuild()
        elif named not in (None, path.name):
            # The index this one replaced (stale, or this process's older one).
            shutil.rmtree(self._folder() / named, ignore_errors=True)
        self._stamp_seen = path.name

    # --- search ----------------------------------------------------------------------

    def search(
        self,
        terms: Sequence[str],
        k: int,
        query: Callable[..., list[Any]],
        check: RowCheck | None,
        limit: int = 4096,
    ) -> list[tuple[int, float]] | None:
        """The top ``k`` ``(rowid, score)`` rows holding any of ``terms`` (FTS5
        tokens; a repeated one counts as often as it is given, like FTS5's phrases)
        that pass ``check``; None when the index does not reflect the snapshot that
        ``query`` reads exactly, or the filter keeps too few of the best ``limit`` rows
        (the caller then uses FTS5)."""
        index = self._index
        if index is None or self.status not in ("ready", "following"):
            return None
        try:
            searcher = index.searcher()
            seq, _ = position(searcher)
            if seq != self._log_bounds(query)[1]:
                self._wake.set()  # rows pending (or another process wrote): fold them
                return None
            return top_k(searcher, terms, k, check, limit)
        except BaseException as exc:  # a damaged file can make tantivy panic
            reraise_fatal(exc)
            if self._stop.is_set():
                return None
            log.exception("keyword index of %s failed a search: rebuilding", self.db.path)
            self._broken()
            return None

    def _broken(self) -> None:
        """A search failed on the index's files: stop using them, rebuild."""
        with self._lock:
            self._index = None
            self._writer = None
            self.status = "building"
        self._needs_rebuild = True
        self._wake.set()
