"""RAGTool: ingestion and retrieval as one tool an agent can call."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentmaker.errors import AgentmakerError, ConfigurationError
from agentmaker.rag.answer.retriever import RagRetriever, _run_sync
from agentmaker.rag.ingest.pipeline import IngestionPipeline
from agentmaker.retrieval.types import MetadataFilter

ACTIONS = ("add_text", "add_document", "search", "ask", "stats")


class RAGTool:
    """Actions ``add_text``, ``add_document``, ``search``, ``ask`` and ``stats``.

    Only ``add_document`` (which reads a path from disk) needs a person's confirmation.
    ``external_content`` is True: whoever runs the tool must wrap its output in
    injection delimiters before a model reads it.
    """

    name = "rag"
    description = (
        "Search and manage a knowledge base of documents. Actions: add_text, add_document "
        "(reads a file; needs confirmation), search, ask, stats."
    )
    external_content = True

    def __init__(
        self,
        pipeline: IngestionPipeline,
        rag: RagRetriever,
        top_k: int = 5,
        filter_fields: Sequence[str] = (),
    ) -> None:
        declared = tuple(getattr(rag.retriever, "metadata_columns", ()))
        for name in filter_fields:
            if declared and name not in declared:
                raise ConfigurationError(
                    f"filter field {name!r} is not a declared metadata column "
                    f"({', '.join(declared)}); declare it with metadata_columns= when building."
                )
        self.pipeline = pipeline
        self.rag = rag
        self.top_k = top_k
        self.filter_fields = tuple(filter_fields)

    def needs_confirmation(self, action: str | None = None, **_: Any) -> bool:
        """True only for ``add_document``, which reads from disk."""
        return action == "add_document"

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema of the tool's parameters (filter fields are optional extras)."""
        props: dict[str, Any] = {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "text": {"type": "string", "description": "text to add (add_text)"},
            "source": {"type": "string", "description": "label of the added text"},
            "path": {"type": "string", "description": "file to add (add_document)"},
            "query": {"type": "string", "description": "what to search for or ask"},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 50},
        }
        for name in self.filter_fields:
            props[name] = {"type": "string", "description": f"only passages whose {name} matches"}
        return {"type": "object", "properties": props, "required": ["action"]}

    def _filters(self, params: dict[str, Any]) -> list[MetadataFilter] | None:
        flts = [MetadataFilter(f, params[f]) for f in self.filter_fields if params.get(f)]
        return flts or None

    async def arun(self, action: str, **params: Any) -> str:
        """Run an action; returns text for the model (errors as a plain sentence)."""
        try:
            return await self._dispatch(action, params)
        except AgentmakerError as exc:
            return f"Error: {exc}"

    def run(self, action: str, **params: Any) -> str:
        """Sync twin of :meth:`arun`."""
        return _run_sync(self.arun(action, **params))

    async def _dispatch(self, action: str, params: dict[str, Any]) -> str:
        top_k = int(params.get("top_k") or self.top_k)
        if action == "add_text":
            report = await self.pipeline.aingest_text(
                str(params.get("text", "")), source=str(params.get("source", ""))
            )
            return f"Added {report.chunks} chunk(s) (doc_id {report.doc_id})" + (
                ", unchanged." if report.skipped else "."
            )
        if action == "add_document":
            report = await self.pipeline.aingest_file(str(params["path"]))
            return f"Added {report.title!r}: {report.chunks} chunk(s)" + (
                ", unchanged." if report.skipped else "."
            )
        if action == "search":
            hits = await self.rag.aretrieve(
                str(params["query"]), top_k=top_k, filters=self._filters(params)
            )
            return json.dumps(
                [
                    {
                        "n": n,
                        "content": h.content,
                        "heading_path": h.metadata.get("heading_path", ""),
                        "doc_id": h.metadata.get("doc_id", ""),
                        "page": h.metadata.get("page"),
                    }
                    for n, h in enumerate(hits, start=1)
                ],
                ensure_ascii=False,
            )
        if action == "ask":
            result = await self.rag.ask(
                str(params["query"]), top_k=top_k, filters=self._filters(params)
            )
            cited = "\n".join(
                f"[{s.n}] {s.title or s.doc_id} {s.location}".rstrip() for s in result.sources
            )
            return result.answer + (f"\n\nSources:\n{cited}" if cited else "")
        if action == "stats":
            return json.dumps(self.pipeline.stats(), ensure_ascii=False)
        raise ConfigurationError(f"Unknown action {action!r}; use one of {', '.join(ACTIONS)}.")
