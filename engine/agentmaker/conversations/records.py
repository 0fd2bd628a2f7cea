"""What a conversation is made of: the conversation, its turns, and each turn's sources.

A turn keeps a snapshot of every passage its answer was given (the text itself and its
hash), so an old answer's ``[n]`` still shows its passage after the document changed or
was removed; :attr:`TurnSource.status` says which.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from agentmaker.rag.answer.prompting import SourceRef

#: ``current``: the library still holds this passage as it was; ``changed``: the document
#: was re-read and the passage differs (or is gone from it); ``removed``: the document is gone.
SourceStatus = Literal["current", "changed", "removed"]


def text_hash(text: str) -> str:
    """The hash a passage snapshot is compared by (SHA-256 of its UTF-8 text)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class TurnSource:
    """A snapshot of one numbered passage an answer was given."""

    n: int
    chunk_id: str
    doc_id: str
    content: str
    content_hash: str = ""
    title: str = ""
    source: str = ""
    heading_path: str = ""
    page: int | None = None
    page_label: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    status: SourceStatus = "current"

    def __post_init__(self) -> None:
        if not self.content_hash:
            self.content_hash = text_hash(self.content)

    @classmethod
    def from_ref(cls, ref: SourceRef) -> TurnSource:
        """The snapshot of a passage the retriever returned."""
        return cls(
            n=ref.n,
            chunk_id=ref.chunk_id,
            doc_id=ref.doc_id,
            content=ref.content,
            title=ref.title,
            source=ref.source,
            heading_path=ref.heading_path,
            page=ref.page,
            page_label=ref.page_label,
            metadata=dict(ref.metadata),
        )

    def to_ref(self) -> SourceRef:
        """The passage as a :class:`SourceRef` (its snapshot text, not today's)."""
        return SourceRef(
            n=self.n,
            content=self.content,
            heading_path=self.heading_path,
            doc_id=self.doc_id,
            chunk_id=self.chunk_id,
            title=self.title,
            source=self.source,
            page=self.page,
            page_label=self.page_label,
            metadata=dict(self.metadata),
        )

    @property
    def location(self) -> str:
        """Where the passage is, in words ("p. 4", a heading path, or "")."""
        return self.to_ref().location

    @property
    def name(self) -> str:
        """The document's name as people know it: its title, else its file name."""
        if self.title:
            return self.title
        return self.source.replace("\\", "/").rsplit("/", 1)[-1] or self.doc_id

    def to_json(self) -> dict[str, Any]:
        """The snapshot as stored (``status`` is computed on reading, never stored)."""
        return {
            "n": self.n,
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "content": self.content,
            "content_hash": self.content_hash,
            "title": self.title,
            "source": self.source,
            "heading_path": self.heading_path,
            "page": self.page,
            "page_label": self.page_label,
            "metadata": self.metadata,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnSource:
        """A snapshot read back from storage."""
        return cls(
            n=int(data["n"]),
            chunk_id=str(data.get("chunk_id", "")),
            doc_id=str(data.get("doc_id", "")),
            content=str(data.get("content", "")),
            content_hash=str(data.get("content_hash", "")),
            title=str(data.get("title", "")),
            source=str(data.get("source", "")),
            heading_path=str(data.get("heading_path", "")),
            page=data.get("page"),
            page_label=data.get("page_label"),
            metadata=dict(data.get("metadata") or {}),
        )


@dataclass
class Turn:
    """One question and its answer. ``query`` is what was searched (the question itself,
    or the follow-up rewritten as a standalone query); ``model`` is the name of the model
    that wrote the answer ("" for an extractive answer)."""

    turn_id: str
    conversation_id: str
    position: int
    question: str
    query: str
    answer: str
    extractive: bool
    model: str = ""
    created_at: float = 0.0
    sources: list[TurnSource] = field(default_factory=list)
    #: True when the answer was stopped before it was finished.
    stopped: bool = False

    @property
    def condensed(self) -> bool:
        """True when the searched query differs from the question (a rewritten follow-up)."""
        return " ".join(self.query.split()) != " ".join(self.question.split())


@dataclass
class ConversationSummary:
    """A conversation as listed in the sidebar (without its turns)."""

    conversation_id: str
    title: str
    created_at: float
    updated_at: float
    turn_count: int = 0


@dataclass
class Conversation(ConversationSummary):
    """A conversation with its turns, oldest first."""

    turns: list[Turn] = field(default_factory=list)


@dataclass
class SearchHit:
    """A turn whose question or answer matched a search, with a short snippet."""

    conversation_id: str
    title: str
    turn_id: str
    snippet: str
    updated_at: float
