"""Markdown files: front matter becomes metadata, the rest is the content.

Front matter (``---`` YAML or ``+++`` TOML at the very top) is metadata, not text to
search, so it is cut off; ``metadata["content_offset"]`` says how many characters of
the decoded file precede the content, so a viewer can map offsets back to the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from agentmaker.rag.documents import Document
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")


def split_front_matter(text: str) -> tuple[dict[str, str], str, int]:
    """Split ``text`` into (front matter, body, offset of the body in ``text``).

    Only a block that starts on the first line and is closed by ``---``/``...``
    (``+++`` for TOML) counts; anything else is left alone so a horizontal rule at
    the top of a note is not eaten.
    """
    first_line_end = text.find("\n")
    first = text if first_line_end < 0 else text[:first_line_end]
    opener = first.rstrip()
    if opener not in ("---", "+++") or first_line_end < 0:
        return {}, text, 0
    closers = ("---", "...") if opener == "---" else ("+++",)
    pos = first_line_end + 1
    lines: list[str] = []
    while pos <= len(text):
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if line.rstrip() in closers:
            body_start = len(text) if end < 0 else end + 1
            parser = _parse_yaml_lines if opener == "---" else _parse_toml_lines
            return parser(lines), text[body_start:], body_start
        lines.append(line)
        if end < 0:
            break
        pos = end + 1
    return {}, text, 0


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _parse_yaml_lines(lines: list[str]) -> dict[str, str]:
    """A small subset of YAML: ``key: value``, nested keys (flattened with dots)
    and ``- item`` lists (joined with ", "). Enough for typical front matter."""
    result: dict[str, str] = {}
    parents: list[tuple[int, str]] = []  # (indent, key) of open mappings
    last_key: str | None = None
    for raw in lines:
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        stripped = raw.strip()
        if stripped.startswith("- ") or stripped == "-":
            if last_key is not None:
                item = _unquote(stripped[1:])
                previous = result.get(last_key, "")
                result[last_key] = f"{previous}, {item}" if previous else item
            continue
        key, sep, value = stripped.partition(":")
        if not sep or not key.strip():
            continue
        while parents and parents[-1][0] >= indent:
            parents.pop()
        full_key = ".".join([p[1] for p in parents] + [_unquote(key)])
        value = value.strip()
        if value:
            result[full_key] = _unquote(value)
        else:
            parents.append((indent, _unquote(key)))
        last_key = full_key
    return result


def _parse_toml_lines(lines: list[str]) -> dict[str, str]:
    """``key = value`` pairs and ``[table]`` headers (flattened with dots)."""
    result: dict[str, str] = {}
    table = ""
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            table = line.strip("[]").strip()
            continue
        key, sep, value = line.partition("=")
        if sep and key.strip():
            name = f"{table}.{_unquote(key)}" if table else _unquote(key)
            result[name] = _unquote(value)
    return result


def first_h1(text: str) -> str | None:
    """The first ``# Title`` line outside code fences, or None."""
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if match:
            marker = match.group(1)
            if fence is None:
                fence = marker
            elif (
                marker[0] == fence[0]
                and len(marker) >= len(fence)
                and not line[match.end() :].strip()
            ):
                # CommonMark: the closing fence is the same character, at least as long.
                fence = None
            continue
        if fence is None:
            heading = _ATX_H1.match(line)
            if heading:
                return heading.group(1).strip()
    return None


def read_markdown_file(path: Path, data: bytes) -> Document:
    """Read a Markdown file into an ``md`` Document (front matter in metadata)."""
    decoded = decode_bytes(data)
    text = normalize_newlines(decoded.text)
    front_matter, body, offset = split_front_matter(text)
    title = front_matter.get("title") or first_h1(body) or path.stem
    metadata: dict[str, object] = {
        "encoding": decoded.encoding,
        "warnings": list(decoded.warnings),
        "front_matter": front_matter,
        "content_offset": offset,
    }
    return Document(content=body, title=title, format="md", metadata=metadata)
