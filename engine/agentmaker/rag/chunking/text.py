"""Token-budget splitting of plain text, preferring natural boundaries.

A region of text is cut into *atoms*: paragraphs when they fit the budget, otherwise
their sentences (English ``. ! ?``, Chinese ``。！？``), then lines, then windows of
tokens cut before a space where possible (raw token cuts only for text without any
space, such as long CJK runs). Every atom's token count is measured once, so the
whole split is linear in the text length; atoms are then packed greedily into
chunks, ending a chunk at the strongest boundary that keeps it at least half full,
and each chunk starts with the last ``overlap_tokens`` of the previous one.

Spans are always trimmed of surrounding whitespace, so ``text[start:end]`` *is* the
chunk's content.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentmaker.rag.chunking.tokens import count_tokens, encode_with_offsets, max_token_chars

if TYPE_CHECKING:
    from agentmaker.rag.chunking.config import ChunkingConfig

# Strength of the boundary *before* an atom: higher is a better place to end a chunk.
PARAGRAPH, SENTENCE, LINE, WORD, TOKEN = 4, 3, 2, 1, 0

_PARAGRAPH_BREAK = re.compile(r"\n(?:[^\S\n]*\n)+")
# A sentence ends at . ! ? (plus closing quotes/brackets) followed by whitespace, or at
# a CJK full stop, which needs no space after it.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*\s+|[。！？]+[」』”’）)]*\s*")
_LINE_BREAK = re.compile(r"\n")
_SPACE_RUN = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")

_TEXT_LEVELS = ((_SENTENCE_END, SENTENCE), (_LINE_BREAK, LINE))
_CODE_LEVELS = ((_LINE_BREAK, LINE),)


@dataclass(slots=True)
class Piece:
    """A chunk before numbering: its text, the span of the document it comes from,
    its heading path and extra metadata (``page``, ``record``...)."""

    content: str
    start: int
    end: int
    heading_path: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


def trim_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` narrowed to exclude surrounding whitespace; ``None`` if blank."""
    segment = text[start:end]
    stripped = segment.strip()
    if not stripped:
        return None
    lead = len(segment) - len(segment.lstrip())
    return start + lead, start + lead + len(stripped)


def _parts(text: str, start: int, end: int, separator: re.Pattern[str]) -> list[tuple[int, int]]:
    """Trimmed, non-blank spans of ``text[start:end]`` cut after each separator match."""
    parts: list[tuple[int, int]] = []
    pos = start
    for match in separator.finditer(text, start, end):
        span = trim_span(text, pos, match.end())
        if span:
            parts.append(span)
        pos = match.end()
    span = trim_span(text, pos, end)
    if span:
        parts.append(span)
    return parts


class _Atomizer:
    """Cuts regions into atoms no larger than ``max_atom`` tokens (parallel lists)."""

    def __init__(self, text: str, cursor: int, max_atom: int) -> None:
        self.text = text
        self.cursor = cursor  # end of the previous atom: its gap is counted with the next
        self.max_atom = max_atom
        # Token windows stay a little under the limit: a window re-encoded on its own
        # can take a token more than it did in context.
        self.window = max(1, max_atom - 2)
        self.too_long_chars = max_atom * max_token_chars()
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.tokens: list[int] = []
        self.strengths: list[int] = []

    def _append(self, start: int, end: int, tokens: int, strength: int) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.tokens.append(tokens)
        self.strengths.append(strength)
        self.cursor = end

    def add(self, start: int, end: int, strength: int, levels: Sequence[Any]) -> None:
        """Add ``text[start:end]`` (trimmed) as one atom, or split it by ``levels``."""
        # Count with the whitespace since the previous atom, so that sums of atom
        # counts track the real count of the joined text. Spans longer than
        # max_atom * longest-token cannot fit, so they are not even encoded.
        if end - self.cursor <= self.too_long_chars:
            tokens = count_tokens(self.text[self.cursor : end])
            if tokens <= self.max_atom:
                self._append(start, end, tokens, strength)
                return
        remaining = list(levels)
        while remaining:
            separator, sub_strength = remaining.pop(0)
            parts = _parts(self.text, start, end, separator)
            if len(parts) > 1:
                for k, (part_start, part_end) in enumerate(parts):
                    self.add(part_start, part_end, strength if k == 0 else sub_strength, remaining)
                return
        self._windows(start, end, strength)

    def _windows(self, start: int, end: int, strength: int) -> None:
        """Cut a span without usable boundaries into token windows."""
        segment = self.text[start:end]
        tokens, offsets = encode_with_offsets(segment)
        total, size = len(tokens), self.window
        t0 = 0
        while t0 < total:
            t1 = min(t0 + size, total)
            cut_strength = TOKEN
            if t1 < total:
                # Prefer cutting just before a token that starts with whitespace.
                for t in range(t1, t0 + size // 2, -1):
                    if segment[offsets[t]].isspace():
                        t1, cut_strength = t, WORD
                        break
                while t1 < total and offsets[t1] <= offsets[t0]:
                    t1 += 1  # never an empty window (tokens inside one character)
            a = offsets[t0]
            b = offsets[t1] if t1 < total else len(segment)
            span = trim_span(segment, a, b)
            if span:
                self._append(start + span[0], start + span[1], t1 - t0, strength)
                strength = cut_strength
            t0 = t1


def _best_break(atomizer: _Atomizer, i: int, j: int, fill: int, min_fill: int) -> int:
    """End of the chunk ``atoms[i:k]`` with the strongest boundary before ``atoms[k]``
    among ``i < k <= j`` that keeps the chunk at least ``min_fill`` tokens."""
    strengths, tokens = atomizer.strengths, atomizer.tokens
    best, best_strength = j, strengths[j]
    k = j
    while k > i + 1 and best_strength < PARAGRAPH:
        fill -= tokens[k - 1]
        k -= 1
        if fill < min_fill:
            break
        if strengths[k] > best_strength:
            best, best_strength = k, strengths[k]
    return best


def _tail(text: str, start: int, end: int, max_tokens: int) -> tuple[int, int] | None:
    """Start and token count of the last ``max_tokens`` tokens of ``text[start:end]``,
    moved forward to a word start when the text has spaces."""
    segment = text[start:end]
    tokens, offsets = encode_with_offsets(segment)
    if len(tokens) <= max_tokens:
        return start, len(tokens)
    cut = offsets[len(tokens) - max_tokens]
    for _ in range(3):
        if cut > 0 and not segment[cut - 1].isspace():
            space = _SPACE_RUN.search(segment, cut)
            if space is not None:
                cut = space.end()
        first = _NON_SPACE.search(segment, cut)
        if first is None:
            return None
        cut = first.start()
        used = count_tokens(segment[cut:])
        # A word cut from its leading space can take a token more on its own; then
        # start one word later.
        if used <= max_tokens:
            return start + cut, used
        cut += 1
    return None


def _overlap(atomizer: _Atomizer, i: int, j: int, limit: int) -> tuple[int, int]:
    """Start and tokens of the overlap that the chunk after ``atoms[i:j]`` begins with."""
    if limit <= 0:
        return -1, 0
    starts, tokens = atomizer.starts, atomizer.tokens
    start, used = -1, 0
    k = j - 1
    # Whole atoms from the end, but never the chunk's first one: the next chunk must
    # not simply repeat this one.
    while k > i and used + tokens[k] <= limit:
        used += tokens[k]
        start = starts[k]
        k -= 1
    if limit - used >= 4:
        tail = _tail(atomizer.text, starts[k], atomizer.ends[k], limit - used)
        if tail is not None and used + tail[1] <= limit:
            start, used = tail[0], used + tail[1]
    return start, used


def _pack(atomizer: _Atomizer, budget: int, overlap: int) -> list[tuple[int, int]]:
    text, starts, ends, tokens = atomizer.text, atomizer.starts, atomizer.ends, atomizer.tokens
    count = len(starts)
    spans: list[tuple[int, int]] = []
    prefix_start, prefix_tokens = -1, 0
    i = 0
    while i < count:
        if prefix_tokens + tokens[i] > budget:
            prefix_start, prefix_tokens = -1, 0
        fill, j = prefix_tokens, i
        while j < count and fill + tokens[j] <= budget:
            fill += tokens[j]
            j += 1
        if j == i:  # one atom alone over budget (a window that grew when re-encoded)
            j = i + 1
        elif j < count:
            j = _best_break(atomizer, i, j, fill, budget // 2)
        start = prefix_start if prefix_start >= 0 else starts[i]
        # The sums are estimates; check the real count once per chunk (linear overall).
        while count_tokens(text[start : ends[j - 1]]) > budget:
            if start != starts[i]:
                start = starts[i]
            elif j - i > 1:
                j -= 1
            else:
                break
        spans.append((start, ends[j - 1]))
        if j < count:
            prefix_start, prefix_tokens = _overlap(atomizer, i, j, min(overlap, budget - tokens[j]))
        i = j
    return spans


def _blocks(
    start: int, end: int, code_ranges: Sequence[tuple[int, int]]
) -> list[tuple[int, int, bool]]:
    """``[start, end)`` as alternating text and code blocks (``is_code`` flag)."""
    blocks: list[tuple[int, int, bool]] = []
    pos = start
    for code_start, code_end in sorted(code_ranges):
        code_start, code_end = max(code_start, pos), min(code_end, end)
        if code_start >= code_end:
            continue
        if pos < code_start:
            blocks.append((pos, code_start, False))
        blocks.append((code_start, code_end, True))
        pos = code_end
    if pos < end:
        blocks.append((pos, end, False))
    return blocks


def split_text_spans(
    text: str,
    config: ChunkingConfig,
    start: int = 0,
    end: int | None = None,
    *,
    code_ranges: Sequence[tuple[int, int]] = (),
) -> list[tuple[int, int]]:
    """Chunk spans of ``text[start:end]``: trimmed ``(start, end)`` offsets into ``text``.

    A region that fits ``config.chunk_tokens`` is one span. ``code_ranges`` (fenced code
    blocks) are kept whole when they fit and otherwise split only at line ends.
    """
    end = len(text) if end is None else end
    whole = trim_span(text, start, end)
    if whole is None:
        return []
    budget = config.chunk_tokens
    if whole[1] - whole[0] <= budget * max_token_chars() and (
        count_tokens(text[whole[0] : whole[1]]) <= budget
    ):
        return [whole]
    # Atoms leave room for the overlap, but never shrink below half a chunk.
    max_atom = max(budget - config.overlap_tokens, budget // 2)
    atomizer = _Atomizer(text, whole[0], max_atom)
    for block_start, block_end, is_code in _blocks(whole[0], whole[1], code_ranges):
        if is_code:
            span = trim_span(text, block_start, block_end)
            if span:
                atomizer.add(span[0], span[1], PARAGRAPH, _CODE_LEVELS)
            continue
        for para_start, para_end in _parts(text, block_start, block_end, _PARAGRAPH_BREAK):
            atomizer.add(para_start, para_end, PARAGRAPH, _TEXT_LEVELS)
    return _pack(atomizer, budget, config.overlap_tokens)


def split_text(
    text: str,
    config: ChunkingConfig,
    start: int = 0,
    end: int | None = None,
    *,
    code_ranges: Sequence[tuple[int, int]] = (),
    heading_path: str = "",
    metadata: dict[str, Any] | None = None,
) -> list[Piece]:
    """Pieces of ``text[start:end]`` whose content is exactly ``text[piece.start:piece.end]``."""
    return [
        Piece(text[s:e], s, e, heading_path, dict(metadata or {}))
        for s, e in split_text_spans(text, config, start, end, code_ranges=code_ranges)
    ]


def _valid_pages(page_spans: Any, length: int) -> list[tuple[int, int, Any, Any]]:
    pages: list[tuple[int, int, Any, Any]] = []
    if not isinstance(page_spans, list | tuple):
        return pages
    for entry in page_spans:
        if not isinstance(entry, list | tuple) or len(entry) < 3:
            continue
        start, end, number = entry[0], entry[1], entry[2]
        if not (isinstance(start, int) and isinstance(end, int)):
            continue
        label = entry[3] if len(entry) > 3 else str(number)
        pages.append((max(0, start), min(end, length), number, label))
    pages.sort(key=lambda page: page[0])
    return pages


def split_paged_text(text: str, config: ChunkingConfig, page_spans: Any) -> list[Piece] | None:
    """Pieces per page (``page_spans`` as in ``Document.metadata``); none crosses a page.

    Text outside every page span is split without a page. Returns ``None`` when
    ``page_spans`` holds no usable page, so the caller can split the text as a whole.
    """
    pages = _valid_pages(page_spans, len(text))
    if not pages:
        return None
    pieces: list[Piece] = []
    pos = 0
    for start, end, number, label in pages:
        start = max(start, pos)  # overlapping spans: each character belongs to one page
        if pos < start:
            pieces.extend(split_text(text, config, pos, start))
        if start < end:
            meta = {"page": number, "page_label": label}
            pieces.extend(split_text(text, config, start, end, metadata=meta))
        pos = max(pos, end)
    if pos < len(text):
        pieces.extend(split_text(text, config, pos, len(text)))
    return pieces
