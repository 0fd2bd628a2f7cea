"""Splitting documents whose parts are cited by name: slides, sheet rows, messages.

Every piece gets ``metadata["location"]``, the place a citation names in the user's
words, which viewers show instead of a page number:

- slides (a paged document with ``page_unit = "slide"``): ``slide 7``, with the
  slide's title as heading path;
- spreadsheets (``sheet``): the reader's ``[row N] …`` lines grouped into chunks
  within one sheet, ``Sheet 'Budget', row 42`` / ``rows 2–40``, heading path
  ``Sheet 'Budget'``; ``record`` / ``records`` as for CSV;
- sectioned documents (``mail``): each section (a message) split as Markdown on its
  own, carrying the section's ``location`` and metadata (``mail_from``…).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agentmaker.rag.chunking.markdown import split_markdown
from agentmaker.rag.chunking.structured import group_records
from agentmaker.rag.chunking.text import Piece

if TYPE_CHECKING:
    from agentmaker.rag.chunking.config import ChunkingConfig

#: A data row as the spreadsheet readers write it (``readers.sheets.SheetWriter``).
ROW_LINE = re.compile(r"^\[row (\d+)\] ", re.M)


def label_slides(pieces: list[Piece], titles: Any) -> list[Piece]:
    """Give paged pieces of a presentation their ``slide N`` location and title path."""
    names = titles if isinstance(titles, list) else []
    for piece in pieces:
        number = piece.metadata.get("page")
        if not isinstance(number, int):
            continue
        piece.metadata["location"] = f"slide {number}"
        piece.metadata["slide"] = number
        title = names[number - 1] if 0 < number <= len(names) else ""
        if isinstance(title, str) and title and not piece.heading_path:
            piece.heading_path = title
    return pieces


def split_sheets(text: str, config: ChunkingConfig, sheet_spans: Any) -> list[Piece] | None:
    """Pieces of a ``sheet`` document: rows grouped within each sheet.

    ``sheet_spans`` is the reader's ``[[start, end, name, rows], ...]``; ``None`` when
    it holds no usable sheet (the caller then splits the text as plain text).
    """
    if not isinstance(sheet_spans, list):
        return None
    pieces: list[Piece] = []
    for entry in sheet_spans:
        if not (isinstance(entry, list | tuple) and len(entry) >= 3):
            continue
        start, end, name = entry[0], entry[1], str(entry[2])
        if not (isinstance(start, int) and isinstance(end, int)):
            continue
        records = []
        for match in ROW_LINE.finditer(text, start, min(end, len(text))):
            line_end = text.find("\n", match.start(), end)
            line_end = end if line_end < 0 else line_end
            records.append((int(match.group(1)), match.start(), line_end))
        heading = f"Sheet '{name}'"
        for piece in group_records(text, records, config, "\n"):
            first, last = piece.metadata["records"]
            rows = f"row {first}" if first == last else f"rows {first}–{last}"
            piece.metadata["record"] = rows
            piece.metadata["location"] = f"{heading}, {rows}"
            piece.metadata["sheet"] = name
            piece.heading_path = heading
            pieces.append(piece)
    return pieces if pieces else None


def split_sections(text: str, config: ChunkingConfig, sections: Any) -> list[Piece] | None:
    """Pieces of a sectioned document (``metadata["sections"]``), each section on its own."""
    if not isinstance(sections, list):
        return None
    pieces: list[Piece] = []
    for entry in sections:
        if not (isinstance(entry, list | tuple) and len(entry) >= 3):
            continue
        start, end, info = entry[0], entry[1], entry[2]
        if not (isinstance(start, int) and isinstance(end, int) and isinstance(info, dict)):
            continue
        for piece in split_markdown(text[start:end], config):
            piece.start += start
            piece.end += start
            piece.metadata.update({k: v for k, v in info.items() if k != "heading" and v})
            if not piece.heading_path and info.get("heading"):
                piece.heading_path = str(info["heading"])
            pieces.append(piece)
    return pieces if pieces else None


_WORD = re.compile(r"\w+")


def focus_row(content: str, query: str) -> int | None:
    """The sheet row (its ``[row N]`` number) of ``content`` that shares most words with
    ``query``, so a chunk of many rows is cited by the row that answers; None if none does."""
    wanted = {w.lower() for w in _WORD.findall(query) if len(w) > 1}
    best, best_score = None, 0
    for match in ROW_LINE.finditer(content):
        end = content.find("\n", match.end())
        line = content[match.end() : end if end >= 0 else len(content)]
        score = len(wanted & {w.lower() for w in _WORD.findall(line)})
        if score > best_score:
            best, best_score = int(match.group(1)), score
    return best
