"""ChunkTreeModel: documents → heading paths → chunks, loaded lazily and in batches.

Children are read from the library only when a node is expanded (``canFetchMore`` /
``fetchMore``) and inserted at most ``BATCH`` rows at a time, so a library of 100k
chunks opens instantly. Reads go through a *loader* that may run them on a worker
thread and deliver the result on the GUI thread later; the default loader runs them
at once. Every node is a Python object owned by its parent's list, so the pointer
given to ``createIndex`` stays alive and the same item always gets the same index.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from enum import IntEnum
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, QTimer

T = TypeVar("T")

#: Rows inserted per fetchMore call.
BATCH = 500

#: A loader runs ``work`` (possibly on a worker thread) and calls ``done`` with its
#: result on the GUI thread.
Loader = Callable[[Callable[[], Any], Callable[[Any], None]], None]


def immediate_loader(work: Callable[[], Any], done: Callable[[Any], None]) -> None:
    """Run ``work`` now, on the calling thread."""
    done(work())


class ChunkSource(Protocol):
    """The reads the model needs (``agentmaker``'s SourceStore satisfies it)."""

    def headings_of(self, doc_id: str) -> list[tuple[str, int]]: ...

    def chunks_of(self, doc_id: str, heading_path: str | None = None) -> list[Any]: ...


class NodeKind(IntEnum):
    """What a row is."""

    ROOT = 0
    DOCUMENT = 1
    HEADING = 2
    CHUNK = 3


class Roles(IntEnum):
    """Extra data roles."""

    KIND = Qt.ItemDataRole.UserRole + 1
    DOC_ID = Qt.ItemDataRole.UserRole + 2
    CHUNK_ID = Qt.ItemDataRole.UserRole + 3
    PAYLOAD = Qt.ItemDataRole.UserRole + 4
    HEADING_PATH = Qt.ItemDataRole.UserRole + 5


_UNLOADED, _LOADING, _LOADED = 0, 1, 2

#: The invalid index (the model's root), shared as a default argument.
_ROOT = QModelIndex()


class _Node:
    __slots__ = (
        "children",
        "doc_id",
        "kind",
        "parent",
        "payload",
        "pending",
        "row",
        "state",
        "waiters",
    )

    def __init__(self, kind: NodeKind, parent: _Node | None, payload: Any, doc_id: str) -> None:
        self.kind = kind
        self.parent = parent
        self.payload = payload
        self.doc_id = doc_id
        self.row = 0
        self.children: list[_Node] = []
        self.pending: list[Any] = []
        self.state = _LOADED if kind in (NodeKind.ROOT, NodeKind.CHUNK) else _UNLOADED
        self.waiters: list[Callable[[], None]] = []


def _one_line(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def document_title(info: Any) -> str:
    """How a document is named everywhere: its file name (what people saved it as; two
    documents often share a first heading), else its title, else its id."""
    source = getattr(info, "source", "") or ""
    title = (getattr(info, "title", "") or "").strip()
    return Path(source).name or title or source or getattr(info, "doc_id", "")


def document_subtitle(info: Any) -> str:
    """The document's own title when it says more than the file name ("" otherwise)."""
    title = " ".join((getattr(info, "title", "") or "").split())
    name = Path(getattr(info, "source", "") or "").name
    return title if title and title not in (name, Path(name).stem) else ""


class ChunkTreeModel(QAbstractItemModel):
    """Document → heading path → chunk; lazy, batched, with a title/path filter."""

    def __init__(
        self,
        source: ChunkSource | None = None,
        loader: Loader = immediate_loader,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._loader = loader
        self._root = _Node(NodeKind.ROOT, None, None, "")
        self._documents: list[Any] = []
        self._filter = ""
        self._generation = 0  # bumps on reset, so late loads for dropped nodes are ignored
        # >0 while rows are being inserted/removed: a fetchMore asked from a slot of
        # those signals is deferred, so changes never nest.
        self._changing = 0

    # --- feeding ----------------------------------------------------------------

    def set_source(self, source: ChunkSource | None, loader: Loader | None = None) -> None:
        """Read from another library (clears the tree)."""
        self._generation += 1
        self.set_documents([])
        self._source = source
        if loader is not None:
            self._loader = loader

    def set_documents(self, documents: Iterable[Any]) -> None:
        """Show these documents (DocumentInfo-like objects), sorted by title.

        Documents that are unchanged (same id, chunk count and ingestion time) keep
        their loaded and expanded children; removed ones disappear, new ones appear.
        """
        new = sorted(documents, key=lambda d: (document_title(d).casefold(), d.doc_id))
        self._documents = new
        wanted = [d for d in new if self._matches(d)]
        wanted_keys = {self._key(d) for d in wanted}
        # Remove rows whose document is gone or changed (from the end, rows stay valid).
        for node in reversed(list(self._root.children)):
            if self._key(node.payload) not in wanted_keys:
                self._changing += 1
                self.beginRemoveRows(QModelIndex(), node.row, node.row)
                del self._root.children[node.row]
                self._renumber(self._root, node.row)
                node.parent = None
                self.endRemoveRows()
                self._changing -= 1
        present = {self._key(n.payload) for n in self._root.children}
        for position, info in enumerate(wanted):
            if self._key(info) in present:
                continue
            node = _Node(NodeKind.DOCUMENT, self._root, info, info.doc_id)
            self._changing += 1
            self.beginInsertRows(QModelIndex(), position, position)
            self._root.children.insert(position, node)
            self._renumber(self._root, position)
            self.endInsertRows()
            self._changing -= 1

    def set_filter(self, text: str) -> None:
        """Show only documents whose title or path contains ``text`` (case-insensitive)."""
        self._filter = text.strip().casefold()
        self.set_documents(self._documents)

    @property
    def documents(self) -> list[Any]:
        """All documents known to the model (filtered or not)."""
        return list(self._documents)

    # --- QAbstractItemModel -------------------------------------------------------

    def index(
        self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = _ROOT
    ) -> QModelIndex:
        node = self._node(parent)
        if column != 0 or row < 0 or row >= len(node.children):
            return QModelIndex()
        return self.createIndex(row, 0, node.children[row])

    def parent(self, index: QModelIndex | QPersistentModelIndex = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        node: _Node = index.internalPointer()
        up = node.parent
        if up is None or up.kind == NodeKind.ROOT:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 1

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> bool:
        node = self._node(parent)
        if node.kind == NodeKind.ROOT:
            return bool(node.children)
        if node.kind == NodeKind.CHUNK:
            return False
        if node.state == _LOADED:
            return bool(node.children or node.pending)
        if node.kind == NodeKind.DOCUMENT:
            return int(getattr(node.payload, "chunk_count", 1) or 0) > 0
        return int(node.payload[1]) > 0

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:
        node = self._node(parent)
        if node.kind in (NodeKind.ROOT, NodeKind.CHUNK) or self._source is None:
            return False
        if node.state == _UNLOADED:
            return self.hasChildren(parent)
        return node.state == _LOADED and bool(node.pending)

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:
        node = self._node(parent)
        if node.kind in (NodeKind.ROOT, NodeKind.CHUNK):
            return
        if self._changing:
            QTimer.singleShot(0, self, lambda: self._fetch_later(node))
            return
        if node.state == _UNLOADED:
            self._load(node)
        elif node.state == _LOADED and node.pending:
            self._insert_batch(node)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.tr("Documents")
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        node: _Node = index.internalPointer()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(node)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(node)
        if role == Roles.KIND:
            return int(node.kind)
        if role == Roles.DOC_ID:
            return node.doc_id
        if role == Roles.CHUNK_ID:
            return getattr(node.payload, "chunk_id", None) if node.kind == NodeKind.CHUNK else None
        if role == Roles.HEADING_PATH:
            if node.kind == NodeKind.HEADING:
                return node.payload[0]
            if node.kind == NodeKind.CHUNK:
                return getattr(node.payload, "heading_path", "")
            return None
        if role == Roles.PAYLOAD:
            return node.payload
        return None

    # --- finding things -----------------------------------------------------------

    def document_index(self, doc_id: str) -> QModelIndex:
        """The row of document ``doc_id`` (invalid when filtered out or unknown)."""
        for node in self._root.children:
            if node.doc_id == doc_id:
                return self.createIndex(node.row, 0, node)
        return QModelIndex()

    def document_info(self, doc_id: str) -> Any:
        """The DocumentInfo of ``doc_id`` (even when filtered out), or None."""
        return next((d for d in self._documents if d.doc_id == doc_id), None)

    def reveal_chunk(
        self, doc_id: str, heading_path: str, chunk_id: str, done: Callable[[QModelIndex], None]
    ) -> None:
        """Load what is needed to show chunk ``chunk_id`` and call ``done(index)``.

        ``done`` gets an invalid index when the chunk is not in the (filtered) tree.
        """
        doc_index = self.document_index(doc_id)
        if not doc_index.isValid():
            done(QModelIndex())
            return
        doc_node: _Node = doc_index.internalPointer()
        generation = self._generation

        def in_heading(heading: _Node) -> None:
            if generation != self._generation:
                return done(QModelIndex())
            while True:
                for child in heading.children:
                    if getattr(child.payload, "chunk_id", None) == chunk_id:
                        return done(self.createIndex(child.row, 0, child))
                if not heading.pending:
                    return done(QModelIndex())
                self._insert_batch(heading)

        def in_document() -> None:
            if generation != self._generation or doc_node.parent is None:
                return done(QModelIndex())
            while True:
                for child in doc_node.children:
                    if child.payload[0] == heading_path:
                        return self._when_loaded(child, lambda c=child: in_heading(c))
                if not doc_node.pending:
                    return done(QModelIndex())
                self._insert_batch(doc_node)

        self._when_loaded(doc_node, in_document)

    # --- internals --------------------------------------------------------------

    def _fetch_later(self, node: _Node) -> None:
        if self._attached(node):
            self.fetchMore(self._index_of(node))

    @staticmethod
    def _key(info: Any) -> tuple[str, Any, Any]:
        return (info.doc_id, getattr(info, "chunk_count", None), getattr(info, "ingested_at", None))

    def _matches(self, info: Any) -> bool:
        if not self._filter:
            return True
        title = getattr(info, "title", "") or ""
        haystack = f"{document_title(info)}\n{title}\n{getattr(info, 'source', '')}".casefold()
        return self._filter in haystack

    def _node(self, index: QModelIndex | QPersistentModelIndex) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    @staticmethod
    def _renumber(parent: _Node, start: int) -> None:
        for row in range(start, len(parent.children)):
            parent.children[row].row = row

    def _index_of(self, node: _Node) -> QModelIndex:
        if node.kind == NodeKind.ROOT:
            return QModelIndex()
        return self.createIndex(node.row, 0, node)

    def _attached(self, node: _Node) -> bool:
        while node.kind != NodeKind.ROOT:
            up = node.parent
            if up is None or node.row >= len(up.children) or up.children[node.row] is not node:
                return False
            node = up
        return node is self._root

    def _when_loaded(self, node: _Node, then: Callable[[], None]) -> None:
        if node.state == _LOADED:
            then()
            return
        node.waiters.append(then)
        if node.state == _UNLOADED:
            self._load(node)

    def _load(self, node: _Node) -> None:
        source = self._source
        if source is None:
            return
        node.state = _LOADING
        generation = self._generation
        if node.kind == NodeKind.DOCUMENT:
            doc_id = node.doc_id

            def work() -> Any:
                return source.headings_of(doc_id)
        else:
            doc_id, heading = node.doc_id, node.payload[0]

            def work() -> Any:
                return source.chunks_of(doc_id, heading)

        def done(rows: Any) -> None:
            if generation != self._generation or not self._attached(node):
                return
            node.pending = list(rows or [])
            node.state = _LOADED
            if node.pending:
                self._insert_batch(node)
            waiters, node.waiters = node.waiters, []
            for waiter in waiters:
                waiter()

        self._loader(work, done)

    def _insert_batch(self, node: _Node) -> None:
        batch, node.pending = node.pending[:BATCH], node.pending[BATCH:]
        if not batch:
            return
        first = len(node.children)
        kind = NodeKind.HEADING if node.kind == NodeKind.DOCUMENT else NodeKind.CHUNK
        self._changing += 1
        self.beginInsertRows(self._index_of(node), first, first + len(batch) - 1)
        for offset, payload in enumerate(batch):
            child = _Node(kind, node, payload, node.doc_id)
            child.row = first + offset
            node.children.append(child)
        self.endInsertRows()
        self._changing -= 1

    def _display(self, node: _Node) -> str:
        if node.kind == NodeKind.DOCUMENT:
            return document_title(node.payload)
        if node.kind == NodeKind.HEADING:
            heading, count = node.payload
            label = heading or self.tr("(text without a heading)")
            return self.tr("{heading}  ({count})").format(heading=label, count=count)
        chunk = node.payload
        metadata = getattr(chunk, "metadata", None) or {}
        page = metadata.get("page")
        prefix = f"#{getattr(chunk, 'index', 0) + 1}"
        records = metadata.get("records")
        if isinstance(metadata.get("slide"), int):
            prefix += " · " + self.tr("slide {number}").format(number=metadata["slide"])
        elif metadata.get("sheet") and isinstance(records, list) and records:
            # the heading node above already names the sheet
            if records[0] == records[-1]:
                prefix += " · " + self.tr("row {row}").format(row=records[0])
            else:
                prefix += " · " + self.tr("rows {first}–{last}").format(
                    first=records[0], last=records[-1]
                )
        elif page not in (None, ""):
            prefix += " · " + self.tr("p. {page}").format(page=metadata.get("page_label") or page)
        return f"{prefix}  {_one_line(getattr(chunk, 'content', ''))}"

    def _tooltip(self, node: _Node) -> str | None:
        # Tooltips guess rich text, so untrusted text is escaped.
        if node.kind == NodeKind.DOCUMENT:
            info = node.payload
            count = getattr(info, "chunk_count", 0)
            subtitle = document_subtitle(info)
            return "<p>{}{}<br>{}</p>".format(
                f"{html.escape(subtitle)}<br>" if subtitle else "",
                html.escape(getattr(info, "source", "") or ""),
                html.escape(self.tr("%n passage(s)", "", count)),
            )
        if node.kind == NodeKind.HEADING:
            return f"<p>{html.escape(node.payload[0])}</p>" if node.payload[0] else None
        return None
