"""Markdown splitting by heading section, with the full heading path on every chunk.

Headings are ATX (``#`` .. ``######``) and single-line setext (``===`` / ``---``
underlines). Lines inside fenced code (```` ``` ```` or ``~~~``, any info string,
including MyST directives such as ```` ```{note} ````) are never headings, so
``# comment`` lines in shell or TOML blocks do not create bogus sections.

Sections are not merged with each other, even when small: a citation must name the
exact section. A section with nothing but its heading is merged into its first child
(the chunk then starts at the parent heading) or, without a child, dropped. A long
section is split by tokens, keeping fenced code blocks whole when they fit; every
piece keeps the section's path.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentmaker.rag.chunking.text import Piece, split_text, trim_span
from agentmaker.rag.chunking.tokens import count_tokens, max_token_chars
from agentmaker.rag.documents import join_heading_path

if TYPE_CHECKING:
    from agentmaker.rag.chunking.config import ChunkingConfig

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
# Any indentation: fences nested in list items are still fences.
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*")
# Lines that cannot be the text of a setext heading: list items, quotes, table rows,
# indented code.
_NOT_PARAGRAPH = re.compile(r"(?: {4}|\t| {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|\|))")
_FRONT_MATTER = re.compile(r"---[ \t]*\r?\n(.*?\r?\n)??(?:---|\.\.\.)[ \t]*(?:\r?\n|$)", re.S)
# What a YAML front matter line looks like: "key: value", "- item", "# comment", or an
# indented continuation. Anything else means the leading "---" was a thematic break.
_YAML_LINE = re.compile(r"[ \t].*|[^\s:#][^:]*:(?:[ \t].*)?|-(?:[ \t].*)?|#.*|")


@dataclass(slots=True)
class _Heading:
    start: int  # first character of the heading (the title line for setext)
    body_start: int  # just after the heading's last line
    level: int
    title: str


@dataclass(slots=True)
class _Section:
    start: int
    body_start: int
    end: int
    level: int  # 0 for text before the first heading
    path: tuple[str, ...]


def clean_title(raw: str) -> str:
    """Heading title as shown in paths: without the closing ``#`` run, TABs, repeated
    spaces, code backticks and link targets (``[`git` docs](url)`` -> ``git docs``)."""
    title = _ATX_CLOSING.sub("", raw.strip())
    title = _LINK.sub(r"\1", title).replace("`", "")
    return " ".join(title.split())


def skip_front_matter(text: str) -> int:
    """Offset just after a leading YAML front matter block (0 when there is none)."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return 0
    body = (match.group(1) or "").splitlines()
    return match.end() if all(_YAML_LINE.fullmatch(line) for line in body) else 0


def scan(text: str, start: int = 0) -> tuple[list[_Heading], list[tuple[int, int]]]:
    """Headings and fenced code block spans of ``text[start:]``, in order."""
    headings: list[_Heading] = []
    fences: list[tuple[int, int]] = []
    fence_char, fence_len, fence_start = "", 0, 0
    prev_kind = "blank"  # blank, para (single-line paragraph so far), other
    prev_start, prev_line = 0, ""
    pos = start
    for line in text[start:].split("\n"):
        line_end = pos + len(line)
        raw = line.rstrip("\r")
        kind = "other"
        if fence_char:
            close = _FENCE_CLOSE.fullmatch(raw)
            if close and close.group(1)[0] == fence_char and len(close.group(1)) >= fence_len:
                fences.append((fence_start, line_end))
                fence_char = ""
        elif (fence := _FENCE_OPEN.fullmatch(raw)) and not (
            fence.group(1)[0] == "`" and "`" in fence.group(2)
        ):
            fence_char, fence_len, fence_start = fence.group(1)[0], len(fence.group(1)), pos
        elif atx := _ATX.fullmatch(raw):
            headings.append(
                _Heading(pos, line_end, len(atx.group(1)), clean_title(atx.group(2) or ""))
            )
        elif (underline := _SETEXT.fullmatch(raw)) and prev_kind == "para":
            level = 1 if underline.group(1)[0] == "=" else 2
            headings.append(_Heading(prev_start, line_end, level, clean_title(prev_line)))
        elif not raw.strip():
            kind = "blank"
        elif prev_kind == "blank" and not _NOT_PARAGRAPH.match(raw):
            kind = "para"
        prev_kind, prev_start, prev_line = kind, pos, raw
        pos = line_end + 1
    if fence_char:  # an unclosed fence runs to the end of the document
        fences.append((fence_start, len(text)))
    return headings, fences


def sections(text: str) -> tuple[list[_Section], list[tuple[int, int]]]:
    """All sections (front matter skipped) with their heading paths, and the fences."""
    content_start = skip_front_matter(text)
    headings, fences = scan(text, content_start)
    first = headings[0].start if headings else len(text)
    result = [_Section(content_start, content_start, first, 0, ())]
    stack: list[tuple[int, str]] = []
    for k, heading in enumerate(headings):
        end = headings[k + 1].start if k + 1 < len(headings) else len(text)
        # Skipped levels (# then ###) simply nest under the nearest shallower heading.
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.title))
        path = tuple(title for _, title in stack)
        result.append(_Section(heading.start, heading.body_start, end, heading.level, path))
    return result, fences


def _kept_sections(all_sections: list[_Section], text: str) -> list[_Section]:
    """Non-blank sections, heading-only ones merged into their first child or dropped."""
    kept: list[_Section] = []
    pending_start = -1
    for k, section in enumerate(all_sections):
        if section.level == 0:
            if text[section.start : section.end].strip():
                kept.append(section)
            continue
        if not text[section.body_start : section.end].strip():
            following = all_sections[k + 1] if k + 1 < len(all_sections) else None
            if following is not None and following.level > section.level:
                if pending_start < 0:
                    pending_start = section.start
            else:
                pending_start = -1
            continue
        if pending_start >= 0:
            section.start, pending_start = pending_start, -1
        kept.append(section)
    return kept


def _fits(text: str, span: tuple[int, int], budget: int) -> bool:
    if span[1] - span[0] > budget * max_token_chars():
        return False
    return count_tokens(text[span[0] : span[1]]) <= budget


def split_markdown(text: str, config: ChunkingConfig) -> list[Piece]:
    """Pieces of a Markdown document, one or more per heading section.

    A document that fits one chunk and has at most one section is one piece (with
    that section's path); otherwise each section is split on its own.
    """
    all_sections, fences = sections(text)
    whole = trim_span(text, all_sections[0].start, len(text))
    if whole is None:
        return []
    kept = _kept_sections(all_sections, text)
    if not kept or (len(kept) == 1 and _fits(text, whole, config.chunk_tokens)):
        # A single section that fits, or nothing but headings: the whole text, under
        # the path of that section (or of the first heading).
        path = kept[0].path if kept else next((s.path for s in all_sections if s.path), ())
        return split_text(
            text,
            config,
            whole[0],
            whole[1],
            code_ranges=fences,
            heading_path=join_heading_path(path),
        )
    fence_starts = [start for start, _ in fences]
    pieces = []
    for section in kept:
        # Only the fences that overlap this section.
        first = max(0, bisect.bisect_right(fence_starts, section.start) - 1)
        last = bisect.bisect_left(fence_starts, section.end)
        pieces.extend(
            split_text(
                text,
                config,
                section.start,
                section.end,
                code_ranges=fences[first:last],
                heading_path=join_heading_path(section.path),
            )
        )
    return pieces
