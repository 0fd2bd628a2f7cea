"""Record-wise splitting of JSON, JSON Lines and CSV/TSV.

A *record* is an element of a JSON array root, a top-level key of a JSON object root,
a line of JSON Lines, or a data row of CSV. Each record is rendered as readable text
that keeps every field next to its name (``name: value``; nested keys as dotted
paths; ``null`` kept), so a numeric CSV row is still found by its date. Records are
grouped in document order up to the token budget; a record too large for one chunk
is split by tokens. No record is ever dropped.

``start_char`` / ``end_char`` of a chunk span the raw text of its records, and
``metadata["record"]`` names them (``row 12``, ``rows 1–40``, ``[3]``, ``line 7``,
``airports``), with ``metadata["records"] = [first, last]``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentmaker.rag.chunking.text import Piece, split_text_spans, trim_span
from agentmaker.rag.chunking.tokens import count_tokens

if TYPE_CHECKING:
    from agentmaker.rag.chunking.config import ChunkingConfig

STRUCTURED_FORMATS = frozenset({"json", "jsonl", "ndjson", "csv", "tsv"})

_WS = re.compile(r"[ \t\n\r]*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_DECODER = json.JSONDecoder()


@dataclass(slots=True)
class _Record:
    key: int | str  # row / line number, array index or object key
    start: int
    end: int
    text: str
    line: int | None = None  # first physical line (CSV, JSON Lines)


# --- rendering ---------------------------------------------------------------


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)  # null, true, 1.5 as in JSON


def _flatten(value: Any, prefix: str, out: list[str]) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}[{index}]", out)
    else:
        if isinstance(value, dict | list):  # {} or a list of scalars: one compact line
            text = json.dumps(value, ensure_ascii=False)
        else:
            text = _scalar(value)
        out.append(f"{prefix}: {text}" if prefix else text)


def render_value(value: Any) -> str:
    """A JSON value as ``path: value`` lines (``a.b: 1``, ``tags: ["x", "y"]``)."""
    lines: list[str] = []
    try:
        _flatten(value, "", lines)
    except RecursionError:  # absurdly deep nesting: compact JSON still holds it all
        return json.dumps(value, ensure_ascii=False)
    return "\n".join(lines)


# --- parsing ------------------------------------------------------------------


def _skip(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _json_records(text: str) -> list[_Record]:
    """Records of a JSON document, with their raw spans. Raises ValueError/IndexError."""
    pos = _skip(text, 1 if text.startswith("\ufeff") else 0)
    records: list[_Record] = []
    opener = text[pos]
    if opener not in "[{":
        value, end = _DECODER.raw_decode(text, pos)
        records.append(_Record(0, pos, end, f"[root]\n{render_value(value)}"))
        pos = end
    else:
        closer = "]" if opener == "[" else "}"
        pos = _skip(text, pos + 1)
        index = 0
        while text[pos] != closer:
            start = pos
            if opener == "[":
                value, pos = _DECODER.raw_decode(text, pos)
                records.append(_Record(index, start, pos, f"[{index}]\n{render_value(value)}"))
            else:
                key, pos = _DECODER.raw_decode(text, pos)
                pos = _skip(text, pos)
                if not isinstance(key, str) or text[pos] != ":":
                    raise ValueError("expected a key and ':'")
                value, pos = _DECODER.raw_decode(text, _skip(text, pos + 1))
                records.append(_Record(key, start, pos, f"[{key}]\n{render_value(value)}"))
            index += 1
            pos = _skip(text, pos)
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
            elif text[pos] != closer:
                raise ValueError(f"expected ',' or {closer!r}")
        pos += 1
    if _skip(text, pos) != len(text):
        raise ValueError("extra data after the JSON value")
    return records


def _lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every physical line (``\\n``, ``\\r\\n`` or ``\\r`` ends)."""
    spans, pos = [], 0
    for match in _NEWLINE.finditer(text):
        spans.append((pos, match.start()))
        pos = match.end()
    spans.append((pos, len(text)))
    return spans


def _jsonl_records(text: str) -> list[_Record]:
    records: list[_Record] = []
    for number, (start, end) in enumerate(_lines(text), start=1):
        line = text[start:end].strip()
        if not line:
            continue
        try:
            body = render_value(json.loads(line))
        except ValueError:  # keep a broken line as it is rather than lose it
            body = line
        records.append(_Record(number, start, end, f"[line {number}]\n{body}", number))
    return records


def _csv_options(text: str, dialect: Any) -> tuple[str, str, bool]:
    """Delimiter, quote character and header flag from the reader's ``csv_dialect``
    (a delimiter string, or a dict with ``delimiter``/``quotechar``/``has_header``);
    the delimiter is sniffed when not given."""
    options = dialect if isinstance(dialect, dict) else {"delimiter": dialect}
    delimiter = options.get("delimiter")
    quotechar = options.get("quotechar")
    has_header = options.get("has_header", True) is not False
    if not (isinstance(quotechar, str) and len(quotechar) == 1):
        quotechar = '"'
    if not (isinstance(delimiter, str) and len(delimiter) == 1):
        try:
            delimiter = csv.Sniffer().sniff(text[:65536], delimiters=",\t;|").delimiter
        except csv.Error:
            delimiter = ","
    return delimiter, quotechar, has_header


def _csv_records(text: str, dialect: Any, tab_separated: bool) -> list[_Record]:
    """One record per data row (blank lines skipped, as the reader counts them)."""
    delimiter, quotechar, has_header = _csv_options(text, "\t" if tab_separated else dialect)
    lines = _lines(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar=quotechar)
    header: list[str] | None = None if has_header else []
    records: list[_Record] = []
    consumed = 0  # physical lines read so far
    for row in reader:
        first_line, consumed = consumed + 1, reader.line_num
        if not row:
            continue
        if header is None:
            header = [name.strip().lstrip("\ufeff") for name in row]
            continue
        names = [
            header[k] if k < len(header) and header[k] else f"column {k + 1}"
            for k in range(len(row))
        ]
        number = len(records) + 1
        fields = "; ".join(f"{name}: {value}" for name, value in zip(names, row, strict=True))
        start = lines[first_line - 1][0]
        end = lines[min(consumed, len(lines)) - 1][1]
        records.append(_Record(number, start, end, f"[row {number}] {fields}", first_line))
    return records


# --- grouping -----------------------------------------------------------------

_Namer = Callable[[Any, Any], str]

_NAMERS: dict[str, _Namer] = {
    "csv": lambda a, b: f"row {a}" if a == b else f"rows {a}–{b}",
    "jsonl": lambda a, b: f"line {a}" if a == b else f"lines {a}–{b}",
    "array": lambda a, b: f"[{a}]" if a == b else f"[{a}]–[{b}]",
    "object": lambda a, b: str(a) if a == b else f"{a} – {b}",
}


def _group(
    records: list[_Record], kind: str, config: ChunkingConfig, separator: str
) -> list[Piece]:
    budget = config.chunk_tokens
    sep_tokens = count_tokens(separator)
    sizes = [count_tokens(record.text) for record in records]
    name = _NAMERS[kind]
    pieces: list[Piece] = []

    def piece(first: int, last: int, content: str) -> Piece:
        a, b = records[first], records[last]
        metadata: dict[str, Any] = {"record": name(a.key, b.key), "records": [a.key, b.key]}
        if a.line is not None:
            metadata["line"] = a.line
        return Piece(content, a.start, b.end, "", metadata)

    i = 0
    while i < len(records):
        if sizes[i] > budget:  # one record larger than a chunk: split its text
            text = records[i].text
            for s, e in split_text_spans(text, config):
                pieces.append(piece(i, i, text[s:e]))
            i += 1
            continue
        j, total = i + 1, sizes[i]
        while j < len(records) and total + sep_tokens + sizes[j] <= budget:
            total += sep_tokens + sizes[j]
            j += 1
        content = separator.join(record.text for record in records[i:j])
        # The sum is an estimate; the real count decides (once per chunk).
        while j - i > 1 and count_tokens(content) > budget:
            j -= 1
            content = separator.join(record.text for record in records[i:j])
        pieces.append(piece(i, j - 1, content))
        i = j
    return pieces


def group_records(
    text: str, records: list[tuple[int, int, int]], config: ChunkingConfig, separator: str
) -> list[Piece]:
    """Group ``(row number, start, end)`` records of ``text`` into pieces, as for CSV rows.

    Each piece's metadata has ``record`` (``row 4`` / ``rows 4–9``) and ``records``.
    """
    items = [_Record(key, start, end, text[start:end]) for key, start, end in records]
    return _group(items, "csv", config, separator) if items else []


def split_structured(
    text: str, fmt: str, config: ChunkingConfig, *, csv_dialect: Any = None
) -> list[Piece] | None:
    """Pieces of a JSON, JSON Lines or CSV/TSV document, by record.

    ``csv_dialect`` is the reader's ``metadata["csv_dialect"]``: a delimiter string or
    a dict with ``delimiter`` / ``quotechar`` / ``has_header``; sniffed when absent.
    Returns ``None`` when the text does not parse as ``fmt`` or holds no record, so
    the caller can fall back to plain text splitting.
    """
    if trim_span(text, 0, len(text)) is None:
        return []
    try:
        if fmt == "json":
            records = _json_records(text)
            stripped = text.lstrip("\ufeff \t\r\n")
            kind = "object" if stripped.startswith("{") else "array"
            separator = "\n\n"
        elif fmt in {"jsonl", "ndjson"}:
            records, kind, separator = _jsonl_records(text), "jsonl", "\n\n"
        else:
            records = _csv_records(text, csv_dialect, fmt == "tsv")
            kind, separator = "csv", "\n"
    except (ValueError, IndexError, csv.Error):
        return None
    if not records:
        return None
    return _group(records, kind, config, separator)
