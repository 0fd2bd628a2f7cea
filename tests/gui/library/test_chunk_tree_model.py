"""ChunkTreeModel on an in-memory chunk source: model invariants, laziness, scale."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agentmaker_desk.library.chunk_tree_model import BATCH, ChunkTreeModel, NodeKind, Roles
from PySide6.QtCore import QModelIndex


@dataclass
class Info:
    doc_id: str
    title: str
    source: str
    chunk_count: int
    ingested_at: float = 0.0
    format: str = "md"
    size_bytes: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class FakeChunk:
    content: str
    chunk_id: str
    doc_id: str
    heading_path: str
    index: int
    metadata: dict[str, Any] = field(default_factory=dict)


class MemorySource:
    """A chunk source held in dicts; counts reads so laziness can be asserted."""

    def __init__(self, layout: dict[str, dict[str, int]]) -> None:
        self.chunks: dict[str, list[FakeChunk]] = {}
        self.reads = 0
        for doc_id, headings in layout.items():
            index = 0
            items = []
            for heading, count in headings.items():
                for _ in range(count):
                    items.append(
                        FakeChunk(
                            f"text {doc_id} {index}",
                            f"{doc_id}:{index}",
                            doc_id,
                            heading,
                            index,
                            {"page": index // 3 + 1},
                        )
                    )
                    index += 1
            self.chunks[doc_id] = items

    def infos(self) -> list[Info]:
        return [Info(d, f"Doc {d}", f"/tmp/{d}.md", len(c)) for d, c in self.chunks.items()]

    def headings_of(self, doc_id: str) -> list[tuple[str, int]]:
        self.reads += 1
        seen: dict[str, int] = {}
        for chunk in self.chunks[doc_id]:
            seen[chunk.heading_path] = seen.get(chunk.heading_path, 0) + 1
        return list(seen.items())

    def chunks_of(self, doc_id: str, heading_path: str | None = None) -> list[FakeChunk]:
        self.reads += 1
        return [c for c in self.chunks[doc_id] if heading_path in (None, c.heading_path)]


def _expand_all(model: ChunkTreeModel, parent: QModelIndex | None = None) -> None:
    parent = parent or QModelIndex()
    while model.canFetchMore(parent):
        model.fetchMore(parent)
    for row in range(model.rowCount(parent)):
        _expand_all(model, model.index(row, 0, parent))


def _count(model: ChunkTreeModel, parent: QModelIndex | None = None) -> int:
    parent = parent or QModelIndex()
    return sum(1 + _count(model, model.index(r, 0, parent)) for r in range(model.rowCount(parent)))


def test_model_passes_qtmodeltester(qtmodeltester, qtbot) -> None:
    source = MemorySource({"a": {"Intro": 3, "Intro > Setup": 2, "": 1}, "b": {"": 4}})
    model = ChunkTreeModel(source)
    model.set_documents(source.infos())
    qtmodeltester.check(model)
    _expand_all(model)
    qtbot.waitUntil(lambda: _count(model) == 2 + 4 + 10)  # deferred fetches land
    qtmodeltester.check(model)
    model.set_filter("doc b")
    assert model.rowCount() == 1
    model.set_filter("")
    assert model.rowCount() == 2
    model.set_documents(source.infos()[:1])
    assert model.rowCount() == 1


def test_children_are_loaded_only_when_asked() -> None:
    source = MemorySource({"a": {"H": 2}})
    model = ChunkTreeModel(source)
    model.set_documents(source.infos())
    doc = model.index(0, 0)
    assert model.hasChildren(doc) and model.rowCount(doc) == 0 and source.reads == 0
    model.fetchMore(doc)
    assert source.reads == 1 and model.rowCount(doc) == 1
    assert model.index(0, 0, doc) == model.index(0, 0, doc)  # same item, same index


def test_hundred_thousand_chunks_stay_fast() -> None:
    source = MemorySource({"big": {f"Part {i}": 100 for i in range(1000)}})
    model = ChunkTreeModel(source)
    model.set_documents(source.infos())
    doc = model.index(0, 0)
    started = time.perf_counter()
    model.fetchMore(doc)
    assert model.rowCount(doc) == BATCH  # headings arrive in batches
    found: list[QModelIndex] = []
    model.reveal_chunk("big", "Part 999", "big:99950", found.append)
    elapsed = time.perf_counter() - started
    assert found and found[0].isValid()
    assert found[0].data(Roles.CHUNK_ID) == "big:99950"
    assert found[0].data(Roles.KIND) == NodeKind.CHUNK
    assert found[0].parent().data(Roles.HEADING_PATH) == "Part 999"
    assert elapsed < 10.0  # a hang detector (loading every chunk takes minutes), not a timing
