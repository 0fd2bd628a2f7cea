"""Old answers keep their passages after the document changed or was removed; export."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from agentmaker.errors import ConfigurationError
from agentmaker.library import Library
from agentmaker.testing import ScriptedLLM

from tests.engine.conversations.conftest import POLICY


def _ask(library: Library, question: str) -> tuple[str, str]:
    chat = library.conversations.create()
    turn = asyncio.run(library.conversations.ask(chat.conversation_id, question))
    return chat.conversation_id, turn.sources[0].chunk_id


def test_a_changed_document_marks_the_old_passage(library: Library) -> None:
    cid, meal_chunk = _ask(library, "daily meal allowance")
    changed = POLICY.replace("80 euros", "95 euros")
    library.pipeline.ingest_text(changed, source="policy.md")

    turn = library.conversations.get(cid).turns[0]
    by_id = {s.chunk_id: s for s in turn.sources}
    meal = by_id[meal_chunk]
    assert meal.status == "changed"
    assert "80 euros" in meal.content  # the snapshot, not today's text
    assert "95 euros" in library.source_store.get_chunk(meal_chunk).content
    others = [s for s in turn.sources if s.chunk_id != meal_chunk]
    assert others and all(s.status == "current" for s in others)
    assert "[this passage has changed since]" in library.conversations.export(cid)


def test_a_removed_document_marks_every_passage(library: Library) -> None:
    cid, _ = _ask(library, "hotel receipt")
    [doc] = library.source_store.list_documents()
    library.pipeline.delete_document(doc.doc_id)

    turn = library.conversations.get(cid).turns[0]
    assert turn.sources and all(s.status == "removed" for s in turn.sources)
    assert "Hotels are capped" in turn.sources[0].content
    assert "[document removed]" in library.conversations.export(cid)


def test_markdown_export_has_the_answer_and_numbered_sources(library: Library) -> None:
    cid, _ = _ask(library, "daily meal allowance")
    text = library.conversations.export(cid, "markdown")
    turn = library.conversations.get(cid).turns[0]
    assert text.startswith("# daily meal allowance\n")
    assert turn.answer.strip() in text
    assert "*extractive answer (no model)*" in text
    for src in turn.sources:
        assert f"{src.n}. policy — {src.heading_path} (policy.md)" in text


def test_html_export_escapes_and_links_citations(library: Library, tmp_path: Path) -> None:
    library.set_llm(ScriptedLLM(["Meals: 80 <b>euros</b> [1]. See [9]."]))
    chat = library.conversations.create()
    question = "<script>alert('x')</script> meal allowance"
    asyncio.run(library.conversations.ask(chat.conversation_id, question))
    out = library.conversations.export_file(chat.conversation_id, tmp_path / "chat.html")
    page = out.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "80 &lt;b&gt;euros&lt;/b&gt; " in page
    assert '<a href="#t1-s1">[1]</a>' in page
    assert "[9]" not in page and 'href="#t1-s9"' not in page  # no such source: removed
    assert re.search(
        r'<li value="1" id="t1-s1">policy — Expense Policy &gt; Meals \(policy\.md\)', page
    )

    md = library.conversations.export_file(chat.conversation_id, tmp_path / "chat.md")
    assert "80 <b>euros</b> [1]" in md.read_text(encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"chat\.pdf.*\.md"):
        library.conversations.export_file(chat.conversation_id, tmp_path / "chat.pdf")
