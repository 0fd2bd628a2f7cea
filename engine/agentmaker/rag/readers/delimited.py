"""CSV and TSV: checked row by row, kept as raw text.

Spreadsheet exports are often ragged (a row lost or gained fields, a quote never
closed). The rows are kept as they are, but every problem is reported with its line
number so the user can fix the file, and an unclosed quote that swallows the rest
of the file is called out instead of silently merging records.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from agentmaker.rag.documents import Document
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines

_SNIFF_CHARS = 32 * 1024
_MAX_LISTED = 10


def sniff_delimiter(text: str, default: str = ",") -> str:
    """Guess the field delimiter among ``, ; TAB |`` from the first lines."""
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return default


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    more = len(items) - _MAX_LISTED
    return f"{shown} and {more} more" if more > 0 else shown


def read_delimited_file(path: Path, data: bytes, *, tab_separated: bool) -> Document:
    """Read a ``.csv``/``.tsv`` file into a ``csv`` Document with per-line warnings."""
    decoded = decode_bytes(data)
    text = normalize_newlines(decoded.text)
    warnings = list(decoded.warnings)
    delimiter = "\t" if tab_separated else sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"')

    header: list[str] | None = None
    records = 0
    ragged: list[tuple[int, int]] = []
    blank: list[int] = []
    last_start = last_end = 0
    last_row: list[str] = []
    previous_end = 0
    try:
        for row in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not row:
                blank.append(start)
                continue
            last_start, last_end, last_row = start, previous_end, row
            if header is None:
                header = row
                continue
            records += 1
            if len(row) != len(header):
                ragged.append((start, len(row)))
    except csv.Error as exc:
        # The csv module stops at the first hard error (for example a field over its
        # size limit, typically an unclosed quote); the raw text is still indexed.
        warnings.append(
            f"Line {previous_end + 1} could not be parsed ({exc}); rows after it were "
            "not checked. This is usually an unclosed quote."
        )

    width = len(header) if header else 0
    if ragged:
        details = [f"line {line} has {count}" for line, count in ragged]
        warnings.append(
            f"{len(ragged)} row(s) have a different number of fields than the header "
            f"({width}): {_listed(details)}."
        )
    if blank:
        warnings.append(f"Blank line(s) skipped: {_listed([str(n) for n in blank])}.")
    unclosed = _unclosed_quote(text, last_start, last_end, last_row)
    if unclosed:
        warnings.append(unclosed)

    metadata: dict[str, object] = {
        "encoding": decoded.encoding,
        "warnings": warnings,
        "csv_dialect": {"delimiter": delimiter, "quotechar": '"', "has_header": True},
        "columns": header or [],
        "records": records,
        "ragged_rows": [line for line, _ in ragged],
    }
    return Document(content=text, title=path.stem, format="csv", metadata=metadata)


def _unclosed_quote(text: str, start: int, end: int, row: list[str]) -> str | None:
    """Detect a last record that only ends because the file ended inside a quote."""
    if not row or end <= start:
        return None
    body = text.rstrip("\n")
    if end < body.count("\n") + 1:
        return None  # the record closed before the end of the file
    span = end - start + 1
    pieces = body.rsplit("\n", span)
    raw = "\n".join(pieces[1:] if len(pieces) > span else pieces)
    if raw.count('"') % 2 == 0:
        return None
    return (
        f"Line {start}: a quoted field is opened but never closed, so lines {start}-{end} "
        f"(to the end of the file) were read as one record and {end - start} later "
        "row(s) are merged into it. The text is kept; fix the quote to restore the rows."
    )
