"""split_document: the contract, plain text, PDF pages, and properties on random text."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from agentmaker.errors import ConfigurationError
from agentmaker.rag.chunking.split import ChunkingConfig, split_document
from agentmaker.rag.chunking.tokens import count_tokens
from agentmaker.rag.documents import Chunk, Document
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WAR_AND_PEACE_END = "to recognize a dependence of which we are not\nconscious."


def _read(path: Path) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def assert_chunk_invariants(doc: Document, chunks: list[Chunk], budget: int) -> None:
    """Numbering, ids, exact slices, no blank chunk, the token budget."""
    for k, chunk in enumerate(chunks):
        assert chunk.index == k
        assert chunk.doc_id == doc.doc_id
        assert chunk.chunk_id == f"{doc.doc_id}:{k}"
        start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
        assert doc.content[start:end] == chunk.content
        assert chunk.content.strip() == chunk.content != ""
        assert count_tokens(chunk.content) <= budget, (k, count_tokens(chunk.content))


def assert_covers(doc: Document, chunks: list[Chunk]) -> None:
    """Every non-whitespace character of the document lies in some chunk."""
    covered = bytearray(len(doc.content))
    for chunk in chunks:
        start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
        covered[start:end] = b"\x01" * (end - start)
    missing = [i for i, ch in enumerate(doc.content) if not covered[i] and not ch.isspace()]
    assert not missing, f"{len(missing)} characters lost, first at {missing[0]}"


# --- the contract -----------------------------------------------------------------


def test_spec_example() -> None:
    doc = Document(content="# Title\n\nSome body text.", format="md")
    chunks = split_document(doc, chunk_tokens=512, overlap_tokens=64)
    assert len(chunks) == 1
    assert chunks[0].content == "# Title\n\nSome body text."
    assert chunks[0].heading_path == "Title"
    assert chunks[0].metadata == {"start_char": 0, "end_char": 24}
    assert chunks[0].chunk_id == f"{doc.doc_id}:0"


@pytest.mark.parametrize(
    ("chunk_tokens", "overlap_tokens"),
    [(8, 0), (15, 0), (512, 512), (512, 600), (512, -1), (True, 0), (512.0, 64), (512, None)],
)
def test_config_validation(chunk_tokens: object, overlap_tokens: object) -> None:
    with pytest.raises(ConfigurationError):
        ChunkingConfig(chunk_tokens=chunk_tokens, overlap_tokens=overlap_tokens)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        split_document(Document(content="x"), chunk_tokens, overlap_tokens)  # type: ignore[arg-type]


def test_config_defaults_frozen_and_precedence() -> None:
    config = ChunkingConfig()
    assert (config.chunk_tokens, config.overlap_tokens) == (512, 64)
    assert ChunkingConfig(16, 0) and ChunkingConfig(16, 15)
    with pytest.raises(AttributeError):
        config.chunk_tokens = 100  # type: ignore[misc]
    text = "Word and more words. " * 200
    doc = Document(content=text)
    by_config = split_document(doc, 512, 64, config=ChunkingConfig(64, 8))
    assert len(by_config) == len(split_document(doc, 64, 8)) > len(split_document(doc))


@pytest.mark.parametrize("fmt", ["txt", "md", "pdf", "json", "csv", "html", "unknown"])
def test_blank_documents_give_no_chunks(fmt: str) -> None:
    assert split_document(Document(content="", format=fmt)) == []
    assert split_document(Document(content=" \n\t\n  ", format=fmt)) == []


def test_short_text_is_one_chunk() -> None:
    text = "\n\n  First paragraph.\n\nSecond paragraph, still short.  \n"
    chunks = split_document(Document(content=text, format="txt"))
    assert [c.content for c in chunks] == [text.strip()]
    assert chunks[0].heading_path == ""


# --- plain text ---------------------------------------------------------------------


def test_text_prefers_paragraphs_and_overlaps() -> None:
    text = "\n\n".join(
        " ".join(f"Paragraph {p} sentence {s} has several words in it." for s in range(4))
        for p in range(30)
    )
    doc = Document(content=text)
    chunks = split_document(doc, chunk_tokens=128, overlap_tokens=16)
    assert len(chunks) > 5
    assert_chunk_invariants(doc, chunks, 128)
    assert_covers(doc, chunks)
    for before, after in itertools.pairwise(chunks):
        overlap = doc.content[after.metadata["start_char"] : before.metadata["end_char"]]
        assert after.metadata["start_char"] < before.metadata["end_char"], "no overlap"
        assert 0 < count_tokens(overlap) <= 16 + 1
    # Every chunk ends at a paragraph end: 4 paragraphs (~50 tokens each) do not fit.
    ends = [c.metadata["end_char"] for c in chunks]
    assert all(doc.content[end : end + 2] in ("\n\n", "") for end in ends)


def test_sentence_and_cjk_boundaries() -> None:
    text = "。".join(f"这是第{i}个句子，内容比较长一些" for i in range(200)) + "。"
    doc = Document(content=text)
    chunks = split_document(doc, chunk_tokens=64, overlap_tokens=8)
    assert_chunk_invariants(doc, chunks, 64)
    assert_covers(doc, chunks)
    assert sum(c.content.endswith("。") for c in chunks) >= len(chunks) - 1


def test_text_without_any_boundary_is_cut_by_tokens() -> None:
    text = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(5000))  # no space at all
    doc = Document(content=text)
    chunks = split_document(doc, chunk_tokens=100, overlap_tokens=10)
    assert_chunk_invariants(doc, chunks, 100)
    assert_covers(doc, chunks)
    assert chunks[-1].content.endswith(text[-10:])


def test_war_and_peace(good_dir: Path) -> None:
    doc = Document(content=_read(good_dir / "book-war-and-peace-1225p.txt"))
    chunks = split_document(doc)  # its speed is measured in benchmarks/, not asserted here
    assert len(chunks) > 1500
    assert_chunk_invariants(doc, chunks, 512)
    assert_covers(doc, chunks)
    assert WAR_AND_PEACE_END in chunks[-1].content
    assert "It was in July, 1805" in chunks[0].content
    assert "Anna Pavlovna" in chunks[0].content
    assert all(
        after.metadata["start_char"] < before.metadata["end_char"]
        for before, after in itertools.pairwise(chunks)
    )


def test_single_line_war_and_peace(bad_dir: Path) -> None:
    text = _read(bad_dir / "war-and-peace-single-line.txt")
    assert "\n" not in text and len(text) > 3_000_000
    doc = Document(content=text)
    chunks = split_document(doc)  # its speed is measured in benchmarks/, not asserted here
    assert len(chunks) > 1000
    assert max(len(c.content) for c in chunks) < 5000  # no giant chunk
    assert_chunk_invariants(doc, chunks, 512)
    assert_covers(doc, chunks)
    assert chunks[-1].content.endswith("we are not conscious.")


@pytest.mark.parametrize("name", ["UDHR_first_article_all.txt", "norwich-city.txt"])
def test_multilingual_and_mojibake_text(good_dir: Path, name: str) -> None:
    doc = Document(content=_read(good_dir / name))
    chunks = split_document(doc, chunk_tokens=256, overlap_tokens=32)
    assert_chunk_invariants(doc, chunks, 256)
    assert_covers(doc, chunks)


# --- PDF pages ----------------------------------------------------------------------


def _paged(pages: list[str], labels: list[str] | None = None) -> Document:
    content, spans = "", []
    for number, page in enumerate(pages, start=1):
        start = len(content)
        content += page
        label = labels[number - 1] if labels else str(number)
        spans.append([start, len(content), number, label])
        content += "\n\n"
    return Document(content=content, format="pdf", metadata={"page_spans": spans})


def test_pdf_chunks_never_cross_pages() -> None:
    pages = [
        "Short first page.",
        " ".join(f"Sentence {i} of the long second page." for i in range(300)),
        "   ",
        "Fourth page mentions ten yoke of oxen.",
    ]
    doc = _paged(pages, ["i", "ii", "iii", "1"])
    chunks = split_document(doc, chunk_tokens=128, overlap_tokens=16)
    assert_chunk_invariants(doc, chunks, 128)
    assert_covers(doc, chunks)
    spans = doc.metadata["page_spans"]
    for chunk in chunks:
        start, end, _number, label = spans[chunk.metadata["page"] - 1]
        assert start <= chunk.metadata["start_char"] < chunk.metadata["end_char"] <= end
        assert chunk.metadata["page_label"] == label
    pages_seen = [c.metadata["page"] for c in chunks]
    assert pages_seen == sorted(pages_seen) and set(pages_seen) == {1, 2, 4}
    assert pages_seen.count(2) > 3  # the long page was split (with overlap inside it)
    assert [c.content for c in chunks if c.metadata["page"] in (1, 4)] == [pages[0], pages[3]]


def test_pdf_without_page_spans_falls_back_to_text() -> None:
    doc = Document(content="Page text. " * 400, format="pdf")
    chunks = split_document(doc, chunk_tokens=128, overlap_tokens=16)
    assert len(chunks) > 1 and all("page" not in c.metadata for c in chunks)
    assert_chunk_invariants(doc, chunks, 128)
    bad = Document(content="Some text.", format="pdf", metadata={"page_spans": [["x"]]})
    assert [c.content for c in split_document(bad)] == ["Some text."]


# --- properties on random text -------------------------------------------------------

_ALPHABET = st.sampled_from(
    [
        *list("abcdefghij ABC"),
        " ",
        " ",
        "\n",
        "\n\n",
        ".",
        "!",
        "?",
        "。",
        "，",
        "日",
        "本",
        "\t",
        "\r\n",
        "\u3000",
        "\x85",
        "é",
        "😀",
        "longword",
        "Mr. ",
        "1.5",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(_ALPHABET, max_size=600),
    chunk_tokens=st.integers(16, 80),
    overlap_ratio=st.floats(0, 0.9),
    fmt=st.sampled_from(["txt", "html", "unknown"]),
)
def test_random_text_is_covered_exactly(
    pieces: list[str], chunk_tokens: int, overlap_ratio: float, fmt: str
) -> None:
    doc = Document(content="".join(pieces), format=fmt)
    overlap = min(int(chunk_tokens * overlap_ratio), chunk_tokens - 1)
    chunks = split_document(doc, chunk_tokens, overlap)
    assert_chunk_invariants(doc, chunks, chunk_tokens)
    assert_covers(doc, chunks)
    starts = [c.metadata["start_char"] for c in chunks]
    ends = [c.metadata["end_char"] for c in chunks]
    assert starts == sorted(starts) and ends == sorted(ends)
    assert len(set(ends)) == len(ends)  # every chunk brings new text


def test_plain_text_passages_are_cited_by_line() -> None:
    text = "\n".join(f"Line {i} says something about topic {i % 7}." for i in range(1, 400))
    chunks = split_document(
        Document(content=text, format="txt"), chunk_tokens=100, overlap_tokens=10
    )
    assert chunks[0].metadata["location"] == "lines 1–9"
    for chunk in chunks:
        first, last = chunk.metadata["line_start"], chunk.metadata["line_end"]
        assert chunk.content.startswith(f"Line {first} ")
        assert chunk.content.rstrip().splitlines()[-1].startswith(f"Line {last} ")
    one = split_document(Document(content="A single line.", format="txt"))
    assert one[0].metadata["location"] == "line 1"
