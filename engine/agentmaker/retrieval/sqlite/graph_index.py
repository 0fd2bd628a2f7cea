"""An HNSW graph over a vector table, kept in a file beside the library: a cache, never
the source of truth.

Why: the sign-bit shortlist of :mod:`binary_index` loses true neighbours as a library
grows (recall@10 0.89 at 100k and 0.67 at 1M on queries that are not copies of stored
vectors, issue 22). An HNSW graph (``usearch``, int8 vectors, cosine) finds the
neighbours in a few hundred distance computations at any size; the store re-scores its
candidates exactly with the float vectors in the library file.

Crash safety. The float vectors in SQLite stay the only truth; every write to them also
appends its rowids to a log table in the same transaction. The graph file
(``<library>.graph-<token>-<seq>.usearch``) holds the state up to log entry ``seq``; it
is written under a new name, then named in ``library_meta`` in one transaction that also
trims the log. On open the stamp is verified (file present, dimension, vector count,
last rowid, no gap in the log); a missing or stale graph is rebuilt in a background
thread from the float vectors. Rows logged after the graph's ``seq`` are "pending":
searched exactly beside the graph, and folded into it by the background thread, so
writes never wait for graph insertion (indexing speed does not depend on size).

Cold start: a valid graph file is memory-mapped at open (``view``; nothing is read
until a search touches it) and searches use it at once; a writable copy is loaded in a
background thread when the first write arrives, and swapped in.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agentmaker.retrieval.sqlite.db import SqliteDatabase

log = logging.getLogger(__name__)

#: Below this many vectors no graph is built: the bit shortlist (2,000 re-scored) covers
#: half the library or more, recall ~1. Not higher: on multilingual-e5-small's real
#: vectors (all cosines ~0.8-0.9) the shortlist's recall@10 falls to 0.98 at 5k, 0.90
#: at 10k, 0.82 at 20k and 0.64 at 100k (MiniLM: 1.0 up to 100k). benchmarks/scale.py.
GRAPH_MIN_SIZE = 4_000
#: At most this many pending rows are held (and scanned exactly) by searches. A bulk
#: import can run ahead of the graph by more: the newest rows then wait for the fold,
#: and :attr:`GraphIndex.behind` says how many (the keyword leg still finds them).
PENDING_LIMIT = 50_000
#: Graph insertion threads: one, so a background fold leaves a core to the app.
DEFAULT_THREADS = 1


def _usearch() -> Any:
    from usearch.index import Index

    return Index


class GraphIndex:
    """The HNSW graph of one vector table, with its pending (not yet folded) rows.

    ``search`` never blocks on loading or building: until a graph is ready,
    :attr:`ready` is False and the caller uses its fallback.
    """

    def __init__(
        self,
        db: SqliteDatabase,
        table: str,
        dimension: int,
        *,
        min_size: int = GRAPH_MIN_SIZE,
        connectivity: int = 16,
        expansion_add: int = 128,
        expansion_search: int = 160,
        threads: int | None = None,
        save_every: int = 50_000,
    ) -> None:
        self.db = db
        self.table = table
        self.log_table = f"{table}_log"
        self.dimension = dimension
        self.min_size = min_size
        self.connectivity = connectivity
        self.expansion_add = expansion_add
        self.expansion_search = expansion_search
        self.threads = threads or DEFAULT_THREADS
        self.save_every = save_every
        self.meta_key = f"{table}.graph"
        self._lock = threading.RLock()  # guards the index and the pending rows
        self._index: Any = None
        self._mutable = False
        self._seq = 0  # log entries up to here are in the index
        self._pending: dict[int, tuple[int, np.ndarray | None]] = {}  # rowid -> (seq, vector)
        self._pending_seq = 0  # log entries up to here are in the index or pending
        self._pending_matrix: tuple[np.ndarray, np.ndarray] | None = None
        self._unsaved = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.status = "not started"
        #: Logged rows beyond the pending limit, not searched yet (0: none).
        self.behind = 0
        self._behind_log = False  # the log was trimmed past this graph: reload
        self.error: BaseException | None = None

    # --- the file ----------------------------------------------------------------

    def _folder(self) -> Path | None:
        return None if self.db.in_memory else Path(self.db.path).parent

    def _stamp(self) -> dict[str, Any] | None:
        raw = self.db.get_meta(self.meta_key)
        return json.loads(raw) if raw else None

    def _last_seq(self) -> int:
        rows = self.db.query(f"SELECT max(seq) FROM {self.log_table}")
        return int(rows[0][0] or 0)

    def _verified_file(self) -> tuple[Path, dict[str, Any]] | None:
        """The graph file named in the library, if it checks out; None means rebuild."""
        folder = self._folder()
        stamp = self._stamp()
        if folder is None or stamp is None:
            return None
        path = folder / stamp["file"]
        first = self.db.query(f"SELECT min(seq) FROM {self.log_table}")[0][0]
        problems = []
        if not path.is_file():
            problems.append("file missing")
        if int(stamp.get("dimension", 0)) != self.dimension:
            problems.append("dimension")
        if first is not None and int(first) > int(stamp["seq"]) + 1:
            problems.append("log gap")
        if stamp.get("max_rowid"):
            rows = self.db.query(
                f"SELECT 1 FROM {self.table} WHERE rowid = ?", (int(stamp["max_rowid"]),)
            )
            logged = self.db.query(
                f"SELECT 1 FROM {self.log_table} WHERE rowid = ? AND seq > ?",
                (int(stamp["max_rowid"]), int(stamp["seq"])),
            )
            if not rows and not logged:
                problems.append("last rowid gone without a log entry")
        if problems:
            log.warning("graph index %s is stale (%s): rebuilding", path, ", ".join(problems))
            return None
        return path, stamp

    # --- lifetime ------------------------------------------------------------------

    def start(self, vector_count: int) -> None:
        """Map a verified graph file now (cheap) and start the background thread that
        loads a writable copy, or builds the graph when none is valid and the table
        holds at least ``min_size`` vectors."""
        found = self._verified_file()
        if found is not None:
            path, stamp = found
            try:
                view = _usearch().restore(str(path), view=True)
            except Exception as exc:  # a damaged file: rebuilt from the vectors
                log.warning("graph index %s could not be read (%s): rebuilding", path, exc)
                view = None
            if view is not None and (
                len(view) != int(stamp["count"]) or view.ndim != self.dimension
            ):
                log.warning("graph index %s does not match its stamp: rebuilding", path)
                view = None
            if view is not None:
                view.expansion_search = self.expansion_search
                with self._lock:
                    self._index, self._mutable = view, False
                    self._seq = self._pending_seq = int(stamp["seq"])
                self.status = "mapped"
                self._thread_start(self._load_then_fold, path, stamp)
                return
        if vector_count >= self.min_size:
            self.status = "building"
            self._thread_start(self._build_then_fold)
        else:
            self.status = "too small"

    def grown(self, vector_count: int) -> None:
        """Called after writes: build the graph once the table reaches ``min_size``."""
        if self._thread is None and vector_count >= self.min_size:
            self.status = "building"
            self._thread_start(self._build_then_fold)
        else:
            self._wake.set()

    def _thread_start(self, target: Callable[..., None], *args: Any) -> None:
        def run() -> None:
            try:
                target(*args)
                self._fold_loop()
            except BaseException as exc:
                if not self._stop.is_set():
                    log.exception("graph index of %s failed", self.table)
                    self.error = exc
                    self.status = "failed"

        self._thread = threading.Thread(target=run, name=f"graph-{self.table}", daemon=True)
        self._thread.start()

    def close(self, *, save: bool = True) -> None:
        """Stop the background thread; save the graph if it changed (so the next open
        need not replay many log entries)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        if (
            save
            and self._mutable
            and self._unsaved >= min(1000, self.save_every)
            and not self.db.closed
        ):
            with contextlib.suppress(Exception):
                self._fold()
                self.save()
        with self._lock:
            self._index = None

    @property
    def ready(self) -> bool:
        """True when searches can use the graph."""
        return self._index is not None

    def __len__(self) -> int:
        index = self._index
        return 0 if index is None else len(index)

    # --- background work -------------------------------------------------------------

    def _new_index(self) -> Any:
        return _usearch()(
            ndim=self.dimension,
            metric="cos",
            dtype="i8",
            connectivity=self.connectivity,
            expansion_add=self.expansion_add,
            expansion_search=self.expansion_search,
        )

    def _load_then_fold(self, path: Path, stamp: dict[str, Any]) -> None:
        # Only once something is written: the mapped file answers searches as well, and
        # loading a copy (0.5 GB at 1M) holds the GIL, so searches would wait for it.
        while not self._stop.is_set():
            self.refresh(reader=True, limit=4096)
            if self._pending or self.behind or self._behind_log:
                break
            self._wake.wait(timeout=2.0)
            self._wake.clear()
        if self._stop.is_set():
            return
        index = _usearch().restore(str(path), view=False)
        index.expansion_search = self.expansion_search
        with self._lock:
            self._index, self._mutable = index, True
        self.status = "ready"

    def _build_then_fold(self) -> None:
        # No read snapshot is held for the build (minutes at 1M): a row that changes
        # after ``seq`` was read has a log entry after ``seq``, folded in afterwards.
        # Rows past ``top`` (added while building) are left to the fold: reading them
        # here too would insert them twice.
        index = self._new_index()
        with self.db.read_snapshot():
            seq = int(self.db.read(f"SELECT max(seq) FROM {self.log_table}")[0][0] or 0)
            top = int(self.db.read(f"SELECT max(rowid) FROM {self.table}")[0][0] or 0)
        last = -1
        while not self._stop.is_set():
            rows = self.db.read(
                f"SELECT rowid, embedding FROM {self.table} WHERE rowid > ? AND rowid <= ? "
                "ORDER BY rowid LIMIT 4096",
                (last, top),
            )
            if not rows:
                break
            keys = np.array([r[0] for r in rows], dtype=np.uint64)
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            index.add(keys, matrix.reshape(len(rows), -1), threads=self.threads)
            last = int(rows[-1][0])
        if self._stop.is_set():
            return
        with self._lock:
            self._index, self._mutable = index, True
            self._seq = seq
            # Pending rows logged at or before the build's snapshot are in the graph.
            self._pending = {r: e for r, e in self._pending.items() if e[0] > seq}
            self._pending_matrix = None
            self._pending_seq = max(self._pending_seq, seq)
        self.status = "ready"
        self._unsaved = len(index)
        self.save()

    def _fold_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=2.0)
            self._wake.clear()
            if self._stop.is_set():
                return
            if self._behind_log:
                self._reload()
            self._fold()
            if self._unsaved >= max(self.save_every, len(self) // 4):
                self.save()

    def _reload(self) -> None:
        """Take over the graph another process saved (or rebuild when it is not valid)."""
        self._behind_log = False
        found = self._verified_file()
        if found is None:
            self._build_then_fold()
            return
        path, stamp = found
        index = _usearch().restore(str(path), view=False)
        index.expansion_search = self.expansion_search
        with self._lock:
            self._index, self._mutable = index, True
            self._seq = self._pending_seq = int(stamp["seq"])
            self._pending, self._pending_matrix = {}, None

    def _fold(self) -> None:
        """Move pending rows into the graph until it has caught up with the log."""
        while not self._stop.is_set() and self._mutable:
            self.refresh(reader=True, limit=4096)
            with self._lock:
                todo = sorted(self._pending.items(), key=lambda e: e[1][0])
            if not todo:
                return
            self._fold_rows(todo)

    def _fold_rows(self, todo: list[tuple[int, tuple[int, np.ndarray | None]]]) -> None:
        """Fold rows in small batches (a search waits for one batch at most)."""
        for start in range(0, len(todo), 256):
            part = todo[start : start + 256]
            with self._lock:
                index = self._index
                if index is None or not self._mutable:
                    return
                keys = [r for r, _ in part]
                present = [k for k in keys if k in index]
                if present:
                    index.remove(present)
                adds = [(r, v) for r, (_, v) in part if v is not None]
                if adds:
                    index.add(
                        np.array([r for r, _ in adds], dtype=np.uint64),
                        np.stack([v for _, v in adds]),
                        threads=self.threads,
                    )
                for rowid, (seq, _) in part:
                    if self._pending.get(rowid, (None,))[0] == seq:
                        del self._pending[rowid]
                self._seq = max(self._seq, max(seq for _, (seq, _) in part))
                self._pending_matrix = None
                self._unsaved += len(part)

    def save(self) -> None:
        """Write the graph under a new name, then name it in the library and trim the log
        (one transaction); the previous file is removed afterwards."""
        folder = self._folder()
        if folder is None or self.db.closed:
            return
        with self._lock:
            index = self._index
            if index is None or not self._mutable:
                return
            seq = self._seq
            token = secrets.token_hex(4)
            name = f"{Path(self.db.path).name}.graph-{token}-{seq}.usearch"
            tmp = folder / (name + ".tmp")
            index.save(str(tmp))
            count = len(index)
            keys = index.keys
            max_rowid = int(np.max(np.asarray(keys))) if count else 0
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, folder / name)
        old = self._stamp()
        stamp = {
            "file": name,
            "seq": seq,
            "count": count,
            "max_rowid": max_rowid,
            "dimension": self.dimension,
        }
        with self.db.transaction():
            self.db.set_meta(self.meta_key, json.dumps(stamp))
            # The entry ``seq`` itself stays: it keeps sequence numbers from restarting.
            self.db.execute(f"DELETE FROM {self.log_table} WHERE seq < ?", (seq,))
        self._unsaved = 0
        if old and old.get("file") != name:
            with contextlib.suppress(OSError):
                (folder / old["file"]).unlink()

    # --- pending rows and search -------------------------------------------------------

    def refresh(self, *, reader: bool = False, limit: int | None = None) -> None:
        """Read log entries newer than the pending ones (this process's writes and any
        other's) with the rows' current vectors (None: deleted), up to the pending limit."""
        query = self.db.read if reader else self.db.query
        with self._lock:
            since = self._pending_seq
            room = PENDING_LIMIT - len(self._pending)
        last = query(f"SELECT max(seq) FROM {self.log_table}")[0][0]
        if last is None or int(last) <= since:
            self.behind = 0
            return
        limit = max(0, min(room, limit if limit is not None else room))
        if limit == 0:
            self.behind = int(last) - since
            self._wake.set()
            return
        first = query(f"SELECT min(seq) FROM {self.log_table}")[0][0]
        if first is not None and int(first) > since + 1 and since > 0:
            # Another process saved a newer graph and trimmed the log past ours.
            log.info("graph index of %s fell behind another process: reloading", self.table)
            self._behind_log = True
            self._wake.set()
            return
        rows = query(
            f"SELECT l.seq, l.rowid, v.embedding FROM {self.log_table} l "
            f"LEFT JOIN {self.table} v ON v.rowid = l.rowid WHERE l.seq > ? "
            "ORDER BY l.seq LIMIT ?",
            (since, limit),
        )
        with self._lock:
            if self._pending_seq != since:
                return  # another thread refreshed meanwhile
            for seq, rowid, blob in rows:
                vector = None if blob is None else np.frombuffer(blob, dtype=np.float32)
                self._pending[int(rowid)] = (int(seq), vector)
                self._pending_seq = int(seq)
            self._pending_matrix = None
            self.behind = max(0, int(last) - self._pending_seq)
        if rows:
            self._wake.set()

    def forget_pending(self) -> None:
        """After a rolled-back write: read the pending rows again from the log."""
        with self._lock:
            self._pending = {}
            self._pending_seq = self._seq
            self._pending_matrix = None

    def _pending_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pending_matrix is None:
            live = [(r, v) for r, (_, v) in self._pending.items() if v is not None]
            keys = np.array([r for r, _ in live], dtype=np.int64)
            matrix = (
                np.stack([v for _, v in live])
                if live
                else np.zeros((0, self.dimension), dtype=np.float32)
            )
            self._pending_matrix = (keys, matrix)
        return self._pending_matrix

    def search(self, query: np.ndarray, count: int) -> np.ndarray:
        """Rowids of about ``count`` nearest candidates (graph plus pending rows), for
        exact re-scoring by the caller; empty when no graph is ready."""
        self.refresh()
        with self._lock:
            index = self._index
            if index is None:
                return np.zeros(0, dtype=np.int64)
            # Pending rows that are also in the graph (changed or deleted) are dropped
            # from its answer: ask for that many more.
            found = index.search(query, count + min(len(self._pending), count), threads=1)
            keys = np.asarray(found.keys, dtype=np.int64)
            if self._pending:
                stale = np.fromiter(self._pending, dtype=np.int64, count=len(self._pending))
                keys = keys[~np.isin(keys, stale)]
                pending_keys, matrix = self._pending_vectors()
                if len(pending_keys):
                    scores = matrix @ query
                    best = np.argsort(-scores)[:count]
                    keys = np.concatenate([keys[:count], pending_keys[best]])
        return keys
