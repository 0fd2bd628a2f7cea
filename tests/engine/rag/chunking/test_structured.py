"""Record-wise splitting of CSV, JSON and JSON Lines: no record lost, readable text."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from agentmaker.rag.chunking.split import split_document
from agentmaker.rag.chunking.structured import render_value
from agentmaker.rag.chunking.tokens import count_tokens
from agentmaker.rag.documents import Chunk, Document


def _split(path: Path, fmt: str, **kwargs: object) -> tuple[Document, list[Chunk]]:
    with open(path, encoding="utf-8") as f:
        doc = Document(content=f.read(), format=fmt, **kwargs)  # type: ignore[arg-type]
    return doc, split_document(doc)


def _labels(chunks: list[Chunk], pattern: str) -> list[str]:
    return [m for c in chunks for m in re.findall(pattern, c.content, flags=re.M)]


def _check_common(doc: Document, chunks: list[Chunk]) -> None:
    for k, chunk in enumerate(chunks):
        assert chunk.index == k
        assert count_tokens(chunk.content) <= 512
        start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
        assert 0 <= start < end <= len(doc.content)
        first, last = chunk.metadata["records"]
        assert chunk.metadata["record"]
        if first != last:
            assert "–" in chunk.metadata["record"]
    starts = [c.metadata["start_char"] for c in chunks]
    assert starts == sorted(starts)


def test_airports_every_row_present(good_dir: Path) -> None:
    doc, chunks = _split(good_dir / "airports.csv", "csv")
    _check_common(doc, chunks)
    rows = [int(n) for n in _labels(chunks, r"^\[row (\d+)\]")]
    assert rows == list(range(1, 3377))
    with open(good_dir / "airports.csv", encoding="utf-8", newline="") as f:
        iatas = [row["iata"] for row in csv.DictReader(f)]
    assert len(iatas) == 3376
    text = "\n".join(c.content for c in chunks)
    assert all(f"iata: {code};" in text for code in iatas)
    first = chunks[0]
    assert first.metadata["record"] == f"rows 1–{first.metadata['records'][1]}"
    assert first.metadata["line"] == 2  # line 1 is the header
    raw = doc.content[first.metadata["start_char"] : first.metadata["end_char"]]
    assert raw.startswith("00M,Thigpen,") and "\n" not in raw[-1:]


def test_seattle_numeric_rows_searchable_by_date(good_dir: Path) -> None:
    doc, chunks = _split(
        good_dir / "seattle-weather.csv", "csv", metadata={"csv_dialect": {"delimiter": ","}}
    )
    _check_common(doc, chunks)
    assert len(_labels(chunks, r"^\[row \d+\]")) == 1461
    hit = [c for c in chunks if "date: 2015/12/31;" in c.content]
    assert len(hit) == 1
    assert "precipitation: 0.0; temp_max: 5.6; temp_min: -2.1; wind: 3.5; weather: sun" in (
        hit[0].content
    )
    assert chunks[-1].metadata["records"][1] == 1461


def test_tsv_and_string_dialect() -> None:
    text = "name\tvalue\nalpha\t1\nbeta\t2\n"
    for fmt, meta in (("tsv", {}), ("csv", {"csv_dialect": "\t"}), ("csv", {})):
        chunks = split_document(Document(content=text, format=fmt, metadata=meta))
        assert [c.content for c in chunks] == [
            "[row 1] name: alpha; value: 1\n[row 2] name: beta; value: 2"
        ]
        assert chunks[0].metadata["record"] == "rows 1–2"


def test_ragged_csv_keeps_every_field(bad_dir: Path) -> None:
    _doc, chunks = _split(bad_dir / "la-riots-ragged.csv", "csv")
    text = "\n".join(c.content for c in chunks)
    # csv gives 64 rows: the header, a blank line and 62 data rows.
    assert len(_labels(chunks, r"^\[row \d+\]")) == 62
    assert "Willie Bernard,Williams" in text  # swallowed by the unclosed quote, not lost
    assert "column 12: " in text  # the row with extra fields


def test_cars_json_keeps_nulls(good_dir: Path) -> None:
    doc, chunks = _split(good_dir / "cars.json", "json")
    _check_common(doc, chunks)
    indices = [int(n) for n in _labels(chunks, r"^\[(\d+)\]$")]
    assert indices == list(range(406))
    text = "\n".join(c.content for c in chunks)
    assert text.count(": null") >= 14
    assert "Name: chevrolet chevelle malibu\nMiles_per_Gallon: 18" in chunks[0].content
    assert chunks[0].metadata["record"].startswith("[0]–[")
    raw = doc.content[chunks[0].metadata["start_char"] : chunks[0].metadata["end_char"]]
    assert raw.startswith("{") and raw.endswith("}") and json.loads(f"[{raw}]")


def test_object_root_is_one_record_per_key(good_dir: Path) -> None:
    doc, chunks = _split(good_dir / "vega_dataset_info.json", "json")
    _check_common(doc, chunks)
    keys = _labels(chunks, r"^\[([\w-]+)\]$")
    assert keys == list(json.loads(doc.content))
    assert len(keys) == 18
    assert chunks[0].metadata["records"][0] == "airports"


def test_jsonl_one_record_per_line(good_dir: Path) -> None:
    doc, chunks = _split(good_dir / "spring-weather.jsonl", "jsonl")
    _check_common(doc, chunks)
    lines = [int(n) for n in _labels(chunks, r"^\[line (\d+)\]$")]
    assert lines == list(range(1, 36))
    assert "text: News Around NOAA" in chunks[0].content
    assert 'metadata.languages: ["eng"]' in chunks[0].content


def test_large_record_is_split_small_ones_grouped() -> None:
    records = [{"id": i, "text": "short"} for i in range(50)]
    records[10]["text"] = " ".join(f"word{i}." for i in range(2000))
    doc = Document(content=json.dumps(records, indent=1), format="json")
    chunks = split_document(doc, chunk_tokens=128, overlap_tokens=16)
    big = [c for c in chunks if c.metadata["record"] == "[10]"]
    assert len(big) > 10
    assert all(count_tokens(c.content) <= 128 for c in chunks)
    text = "\n".join(c.content for c in chunks)
    assert all(f"id: {i}\n" in text for i in range(50))
    assert "word1999." in text
    assert chunks[0].metadata["record"] == "[0]–[9]"


@pytest.mark.parametrize(
    ("content", "fmt"),
    [
        ('[{"Name": "chevrolet", "x": 1}, {"Name": "buick', "json"),
        ("{bad json", "json"),
        ("[1, 2] extra", "json"),
        ("[]", "json"),
        ("just,a,header\n", "csv"),
    ],
)
def test_malformed_or_empty_data_falls_back_to_text(content: str, fmt: str) -> None:
    chunks = split_document(Document(content=content, format=fmt))
    assert [c.content for c in chunks] == [content.strip()]
    assert "record" not in chunks[0].metadata


def test_jsonl_broken_line_kept_as_text() -> None:
    doc = Document(content='{"a": 1}\nnot json\n\n{"b": [1, {"c": null}]}', format="jsonl")
    chunks = split_document(doc)
    assert (
        chunks[0].content
        == "[line 1]\na: 1\n\n[line 2]\nnot json\n\n[line 4]\nb[0]: 1\nb[1].c: null"
    )
    assert chunks[0].metadata["records"] == [1, 4]


def test_render_value() -> None:
    assert render_value({"a": {"b": None, "c": [1, "x"]}, "d": [], "e": True}) == (
        'a.b: null\na.c: [1, "x"]\nd: []\ne: true'
    )
    assert render_value("plain") == "plain"
