"""Markdown splitting: heading paths (QA.tsv), fences, front matter, long sections."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from agentmaker.rag.chunking.markdown import clean_title, skip_front_matter
from agentmaker.rag.chunking.split import split_document
from agentmaker.rag.chunking.tokens import count_tokens
from agentmaker.rag.documents import Chunk, Document
from hypothesis import given, settings
from hypothesis import strategies as st

MARKDOWN_FILES = [
    "CHANGELOG.md",
    "cli.md",
    "codeblock.md",
    "configuration.md",
    "dependency-specification.md",
    "extract-text.md",
    "faq.md",
    "history.md",
    "pyproject.md",
    "simple-table.md",
]


def _split(
    path: Path, chunk_tokens: int = 512, overlap_tokens: int = 64
) -> tuple[Document, list[Chunk]]:
    with open(path, encoding="utf-8") as f:
        doc = Document(content=f.read(), format="md")
    return doc, split_document(doc, chunk_tokens, overlap_tokens)


def _paths(chunks: list[Chunk]) -> list[str]:
    return list(dict.fromkeys(c.heading_path for c in chunks))


@pytest.mark.parametrize("name", MARKDOWN_FILES)
def test_corpus_markdown_invariants(good_dir: Path, name: str) -> None:
    doc, chunks = _split(good_dir / name)
    assert chunks
    for k, chunk in enumerate(chunks):
        assert chunk.index == k
        start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
        assert doc.content[start:end] == chunk.content
        assert count_tokens(chunk.content) <= 512
    # Front matter is not a chunk.
    assert not any(c.content.startswith("---\ntitle:") for c in chunks)


def test_qa_heading_paths_exist(corpus_dir: Path) -> None:
    with open(corpus_dir / "QA.tsv", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["file"].endswith(".md")]
    assert len(rows) >= 5
    for row in rows:
        # Drop notes such as "(same sentence also under ...)"; keep "(SEC)".
        path = re.sub(r" \([a-z][^)]*\)$", "", row["location"])
        _, chunks = _split(corpus_dir / row["file"])
        hits = [c for c in chunks if c.heading_path == path]
        assert hits, f"{row['file']}: no chunk with path {path!r}"
        answer = row["expected_answer_substring"]
        assert any(answer in c.content for c in hits), (path, answer)


def test_cli_repeated_titles_stay_distinct(good_dir: Path) -> None:
    _, chunks = _split(good_dir / "cli.md")
    paths = _paths(chunks)
    for expected in (
        "Commands > publish > Options",
        "Commands > build > Options",
        "Commands > Global Options",
        "Commands > cache > cache clear",
        "Commands > env > env remove > Options",
    ):
        assert expected in paths
    assert "Options" not in paths
    assert all(p.startswith("Commands") for p in paths)
    # "# " lines inside the fences are not headings.
    assert all(c.heading_path.count(" > ") <= 3 for c in chunks)


def test_changelog_sections_keep_their_version(good_dir: Path) -> None:
    _, chunks = _split(good_dir / "CHANGELOG.md")
    paths = _paths(chunks)
    assert "CHANGELOG > Version 6.16.1, 2026-08-14 > Security (SEC)" in paths
    assert "CHANGELOG > Version 6.16.0, 2026-08-13 > Security (SEC)" in paths
    assert "CHANGELOG > Version 5.0.0, 2024-09-15" in paths
    assert sum(p.endswith("> Security (SEC)") for p in paths) > 5
    # Small sections are not merged across headings: one path per chunk run.
    assert len(paths) > 400


def test_faq_skipped_level(good_dir: Path) -> None:
    _, chunks = _split(good_dir / "faq.md")
    paths = _paths(chunks)
    assert "FAQ > Is tox supported? > Use case #1" in paths
    assert "FAQ > Is tox supported? > Note about credentials" in paths
    assert "FAQ > Is Nox supported?" in paths
    assert all(p.startswith("FAQ > ") for p in paths)
    # The empty "# FAQ" heading is merged into its first child, not lost.
    assert chunks[0].content.startswith("# FAQ\n\n### Why is the dependency")


@pytest.mark.parametrize(
    ("name", "h1"),
    [
        ("dependency-specification.md", "Dependency specification"),
        ("pyproject.md", "The pyproject.toml file"),
        ("extract-text.md", "Extract Text from a PDF"),
    ],
)
def test_fenced_comment_lines_are_not_headings(good_dir: Path, name: str, h1: str) -> None:
    _, chunks = _split(good_dir / name)
    assert {c.heading_path.split(" > ")[0] for c in chunks} == {h1}


def test_extract_text_has_its_twelve_sections(good_dir: Path) -> None:
    _doc, chunks = _split(good_dir / "extract-text.md")
    paths = _paths(chunks)
    # 12 real headings; the empty "## Why Text Extraction is hard" is merged into its
    # first child, so 11 paths carry chunks and the 12th appears inside them.
    assert len(paths) == 11
    assert "Extract Text from a PDF > Why Text Extraction is hard > Unclear Objective" in paths


def test_codeblock_two_sections(good_dir: Path) -> None:
    _, chunks = _split(good_dir / "codeblock.md")
    assert [c.heading_path for c in chunks] == ["HTML Example", "XML Example"]
    assert "<h1>Hello, World!</h1>" in chunks[0].content
    assert chunks[1].content.count("```xml") == 2


def test_simple_table_without_heading(good_dir: Path) -> None:
    doc, chunks = _split(good_dir / "simple-table.md")
    assert len(chunks) == 1
    assert chunks[0].heading_path == ""
    assert chunks[0].content == doc.content.strip()


def test_history_sections(good_dir: Path) -> None:
    _, chunks = _split(good_dir / "history.md")
    assert _paths(chunks)[0] == "History of pypdf > The Origins: pyPdf (2005-2010)"
    assert len(_paths(chunks)) == 5  # the empty H1 is merged into the first H2


def test_long_section_split_keeps_path_and_fences(good_dir: Path) -> None:
    doc, chunks = _split(good_dir / "pyproject.md", chunk_tokens=128, overlap_tokens=16)
    for chunk in chunks:
        assert count_tokens(chunk.content) <= 128
        assert chunk.heading_path.startswith("The pyproject.toml file")
    # Fenced blocks that fit are whole in some chunk.
    text = doc.content
    fence_start = text.index("```toml")
    fence_end = text.index("```", fence_start + 3) + 3
    if count_tokens(text[fence_start:fence_end]) <= 100:
        assert any(
            c.metadata["start_char"] <= fence_start and fence_end <= c.metadata["end_char"]
            for c in chunks
        )


def test_small_doc_with_several_sections_is_split_by_section() -> None:
    doc = Document(
        content="Intro line.\n\n# A\n\nalpha\n\n## B\n\nbeta\n\n# C\n\ngamma", format="md"
    )
    chunks = split_document(doc)
    assert [(c.heading_path, c.content) for c in chunks] == [
        ("", "Intro line."),
        ("A", "# A\n\nalpha"),
        ("A > B", "## B\n\nbeta"),
        ("C", "# C\n\ngamma"),
    ]


def test_heading_details() -> None:
    doc = Document(
        content="#\tTabbed\t title  ###\n\nx\n\nSetext\n======\n\ny\n\n"
        "~~~\n# no\n~~~\n\n####### seven",
        format="md",
    )
    chunks = split_document(doc)
    assert [c.heading_path for c in chunks] == ["Tabbed title", "Setext"]
    assert chunks[1].content.endswith("####### seven")
    assert clean_title("Title ##  ") == "Title" and clean_title("C# #") == "C#"


def test_front_matter_is_skipped_only_when_it_is_yaml() -> None:
    assert skip_front_matter("---\ntitle: x\nmenu:\n  docs: 1\n---\n# T") == len(
        "---\ntitle: x\nmenu:\n  docs: 1\n---\n"
    )
    assert skip_front_matter("---\n\nJust a rule.\n\n---\ntext") == 0
    doc = Document(content="---\ntitle: x\n---\n\n# T\n\nbody", format="md")
    assert [c.content for c in split_document(doc)] == ["# T\n\nbody"]


def test_heading_only_documents_are_not_lost() -> None:
    chunks = split_document(Document(content="# Only a title", format="md"))
    assert [(c.heading_path, c.content) for c in chunks] == [("Only a title", "# Only a title")]


def test_unclosed_fence_runs_to_the_end() -> None:
    doc = Document(content="# A\n\ntext\n\n```\n# inside\n\n## also inside", format="md")
    assert [c.heading_path for c in split_document(doc)] == ["A"]


_BLOCKS = st.sampled_from(
    [
        "# One",
        "## Two",
        "### Three",
        "#### Four",
        "Plain paragraph text.",
        "More words here.",
        "```py\n# comment\n```",
        "~~~\n## not a heading\n~~~",
        "- item\n- item",
        "Title\n---",
        "A much longer paragraph " * 12,
    ]
)


@settings(max_examples=80, deadline=None)
@given(blocks=st.lists(_BLOCKS, max_size=30), chunk_tokens=st.integers(16, 64))
def test_random_markdown_keeps_every_body_line(blocks: list[str], chunk_tokens: int) -> None:
    doc = Document(content="\n\n".join(blocks), format="md")
    chunks = split_document(doc, chunk_tokens, chunk_tokens // 8)
    covered = bytearray(len(doc.content))
    for chunk in chunks:
        start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
        assert doc.content[start:end] == chunk.content
        assert count_tokens(chunk.content) <= chunk_tokens
        assert "#" not in chunk.heading_path.replace("C#", "")
        covered[start:end] = b"\x01" * (end - start)
    # Only the lines of heading-only sections may be dropped.
    pos = 0
    for block in blocks:
        start = doc.content.index(block, pos)
        pos = start + len(block)
        if not block.startswith(("#", "Title\n---")):
            assert all(covered[i] for i in range(start, pos) if not doc.content[i].isspace())
