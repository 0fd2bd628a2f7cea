"""JSON and JSON Lines: validated, kept as raw text.

The splitter cuts structured data by record, so the content stays the file's own
text; this module only checks it and says where it is broken (line and column),
because "invalid JSON" alone does not help anybody fix a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from agentmaker.errors import CorruptDocumentError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines

# json's messages, in the user's words.
_JSON_REASONS: tuple[tuple[str, str], ...] = (
    ("Unterminated string", "unterminated string"),
    ("Expecting value", "a value was expected"),
    ("Expecting ',' delimiter", "a comma was expected"),
    ("Expecting ':' delimiter", "a colon was expected"),
    ("Expecting property name", "a key in double quotes was expected"),
    ("Extra data", "there is more data after the end of the JSON value"),
    ("Invalid control character", "a control character inside a string"),
    ("Invalid \\escape", "an invalid backslash escape"),
    ("Invalid \\uXXXX escape", "an invalid \\u escape"),
)

_MAX_LISTED = 10


def describe_json_error(exc: json.JSONDecodeError) -> str:
    """``json.JSONDecodeError`` as a short plain-language reason."""
    for prefix, reason in _JSON_REASONS:
        if exc.msg.startswith(prefix):
            return reason
    return exc.msg[:1].lower() + exc.msg[1:]


def _ends_unexpectedly(exc: json.JSONDecodeError, text: str) -> bool:
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip())


def _listed(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:_MAX_LISTED])
    more = len(numbers) - _MAX_LISTED
    return f"{shown} and {more} more" if more > 0 else shown


def _parse_json_lines(text: str) -> tuple[int, list[tuple[int, str, bool]]]:
    """Count valid records; return (records, [(line, reason, ends early), ...])."""
    records = 0
    bad: list[tuple[int, str, bool]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except json.JSONDecodeError as exc:
            reason = f"{describe_json_error(exc)} at column {exc.colno}"
            bad.append((number, reason, _ends_unexpectedly(exc, line)))
        except RecursionError:
            bad.append((number, "nested too deeply to read", False))
        else:
            records += 1
    return records, bad


def read_json_file(path: Path, data: bytes) -> Document:
    """Read a ``.json`` file: parse it to validate, keep the raw text as content."""
    decoded = decode_bytes(data)
    text = normalize_newlines(decoded.text)
    warnings = list(decoded.warnings)
    try:
        value = json.loads(text)
    except RecursionError:
        raise CorruptDocumentError(
            "is nested too deeply to be read (thousands of levels of brackets). "
            "It is probably generated or damaged; flatten or re-export it.",
            path,
        ) from None
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Extra data"):
            doc = _json_lines_in_disguise(path, text, warnings, decoded.encoding)
            if doc is not None:
                return doc
        where = f"at line {exc.lineno} column {exc.colno}"
        reason = describe_json_error(exc)
        if _ends_unexpectedly(exc, text):
            raise CorruptDocumentError(
                f"is not valid JSON: it ends unexpectedly {where} ({reason}). It is "
                "probably truncated; re-download or re-export it.",
                path,
            ) from None
        raise CorruptDocumentError(
            f"is not valid JSON: {reason} {where}. Fix the file or re-export it.", path
        ) from None
    metadata: dict[str, object] = {"encoding": decoded.encoding, "warnings": warnings}
    if isinstance(value, list):
        metadata.update(json_root="array", records=len(value))
    elif isinstance(value, dict):
        metadata.update(json_root="object", records=len(value))
    else:
        metadata.update(json_root="value", records=1)
    return Document(content=text, title=path.stem, format="json", metadata=metadata)


def _json_lines_in_disguise(
    path: Path, text: str, warnings: list[str], encoding: str
) -> Document | None:
    """A ``.json`` file with one JSON value per line is JSON Lines: read it as such."""
    records, bad = _parse_json_lines(text)
    if bad or records < 2:
        return None
    warnings.append(
        f"The file holds {records} JSON values, one per line (JSON Lines), not one "
        "JSON document; it was read as JSON Lines."
    )
    metadata: dict[str, object] = {
        "encoding": encoding,
        "warnings": warnings,
        "records": records,
        "invalid_lines": [],
    }
    return Document(content=text, title=path.stem, format="jsonl", metadata=metadata)


def read_jsonl_file(path: Path, data: bytes) -> Document:
    """Read a ``.jsonl``/``.ndjson`` file; broken lines are reported, not fatal."""
    decoded = decode_bytes(data)
    text = normalize_newlines(decoded.text)
    warnings = list(decoded.warnings)
    records, bad = _parse_json_lines(text)
    if records == 0 and bad:
        first_line, first_reason, _ = bad[0]
        raise CorruptDocumentError(
            f"is not JSON Lines: none of its {len(bad)} line(s) is valid JSON "
            f"(line {first_line}: {first_reason}). Check that it is one JSON value per line.",
            path,
        )
    if bad:
        numbers = [n for n, _, _ in bad]
        first_line, first_reason, ends_early = bad[0]
        last_line = text.rstrip("\n").count("\n") + 1
        truncated = numbers == [last_line] and ends_early
        if truncated:
            warnings.append(
                f"The last line ({first_line}) is incomplete ({first_reason}); the file "
                f"is probably truncated. {records} complete record(s) were read; "
                "re-download the file to get the rest."
            )
        else:
            warnings.append(
                f"{len(bad)} line(s) are not valid JSON and are not records: line(s) "
                f"{_listed(numbers)} (line {first_line}: {first_reason})."
            )
    metadata: dict[str, object] = {
        "encoding": decoded.encoding,
        "warnings": warnings,
        "records": records,
        "invalid_lines": [n for n, _, _ in bad],
    }
    return Document(content=text, title=path.stem, format="jsonl", metadata=metadata)
