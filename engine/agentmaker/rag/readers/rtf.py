"""RTF documents to Markdown-shaped text, headings kept as for Word.

A small tokenizer over the RTF 1.9 grammar instead of striprtf: striprtf returns flat
text, and headings (``\\outlinelevelN`` or a paragraph style named "heading N") are
what give citations a heading path. Destinations that hold no body text (font and
colour tables, pictures, embedded objects, document properties, headers) are skipped;
the stylesheet is read for heading style names, ``\\info``'s ``\\title`` for the
title; footnotes are marked ``[Footnote] …`` after their paragraph. ``\\'hh`` bytes
decode with the document's ``\\ansicpg`` code page; ``\\uN`` escapes skip their
``\\ucN`` fallback characters. Groups are tracked with an explicit stack.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from agentmaker.errors import CorruptDocumentError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.docx_xml import HEADING_NAME

_TOKEN = re.compile(
    rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([^\\{}\r\n]+)|[\r\n]+",
    re.S,
)
_SKIP = frozenset(
    b"fonttbl colortbl pict object themedata datastore latentstyles rsidtbl generator "
    b"xmlnstbl listtable listoverridetable pgdsctbl filetbl revtbl header headerl headerr "
    b"headerf footer footerl footerr footerf fldinst bkmkstart bkmkend author operator "
    b"company keywords comment doccomm subject category manager hlinkbase".split()
)
_BREAKS = {b"line": "\n", b"tab": "\t", b"cell": " | ", b"emdash": "—", b"endash": "–",
           b"bullet": "•", b"lquote": "‘", b"rquote": "’", b"ldblquote": "“", b"rdblquote": "”",
           b"emspace": " ", b"enspace": " ", b"qmspace": " "}  # fmt: skip
_SYMBOLS = {b"~": "\u00a0", b"_": "\u2011", b"-": "", b"\\": "\\", b"{": "{", b"}": "}"}
MAX_DEPTH = 1000


@dataclass
class _Group:
    skip: bool = False
    dest: str = ""  # "stylesheet", "title", "footnote" or ""
    uc: int = 1
    style: int = 0
    outline: int | None = None


@dataclass
class _Parser:
    codec: str = "cp1252"
    blocks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    styles: dict[int, str] = field(default_factory=dict)
    title: str = ""
    line: list[str] = field(default_factory=list)
    note: list[str] = field(default_factory=list)
    style_text: list[str] = field(default_factory=list)
    headings: int = 0

    def text(self, group: _Group, text: str) -> None:
        if group.skip:
            return
        if group.dest == "stylesheet":
            self.style_text.append(text)
            if ";" in text:
                name = "".join(self.style_text).split(";")[0].strip()
                self.styles.setdefault(group.style, name)
                self.style_text = []
        elif group.dest == "title":
            self.title += text
        elif group.dest == "footnote":
            self.note.append(text)
        else:
            self.line.append(text)

    def paragraph(self, group: _Group) -> None:
        if group.dest == "footnote":
            self.note.append(" ")
            return
        text = "\n".join(" ".join(part.split()) for part in "".join(self.line).split("\n"))
        text = text.strip()
        self.line = []
        if text:
            level = 0
            if group.outline is not None and 0 <= group.outline < 6:
                level = group.outline + 1
            else:
                match = HEADING_NAME.match(self.styles.get(group.style, ""))
                level = int(match.group(1)) if match else 0
            if level:
                self.headings += 1
                self.blocks.append(f"{'#' * level} {' '.join(text.split())}")
            else:
                self.blocks.append(text)
        self.blocks.extend(self.notes)
        self.notes = []

    def end_note(self) -> None:
        text = " ".join("".join(self.note).split())
        self.note = []
        if text:
            self.notes.append(f"[Footnote] {text}")


def _decode(data: bytes, codec: str) -> str:
    return data.decode(codec, "replace")


def parse_rtf(data: bytes) -> tuple[list[str], str, int]:
    """Blocks of Markdown-shaped text, the ``\\info`` title and the number of headings."""
    parser = _Parser()
    stack: list[_Group] = []
    group = _Group()
    skip_chars = 0
    pending = bytearray()  # \'hh bytes of one multi-byte character

    def flush() -> None:
        if pending:
            parser.text(group, _decode(bytes(pending), parser.codec))
            pending.clear()

    for match in _TOKEN.finditer(data):
        word, arg, hex_byte, symbol, brace, run = match.groups()
        if hex_byte is not None:
            if skip_chars:
                skip_chars -= 1
                continue
            pending.append(int(hex_byte, 16))
            continue
        flush()
        if run is not None:
            if skip_chars:
                cut = min(skip_chars, len(run))
                run, skip_chars = run[cut:], skip_chars - cut
            if run:
                parser.text(group, _decode(run, parser.codec))
        elif brace == b"{":
            if len(stack) >= MAX_DEPTH:
                raise ValueError("groups nested too deeply")
            stack.append(group)
            group = replace(group)
            skip_chars = 0
        elif brace == b"}":
            if group.dest == "footnote" and (not stack or stack[-1].dest != "footnote"):
                parser.end_note()
            group = stack.pop() if stack else _Group()
            skip_chars = 0
        elif symbol is not None:
            if symbol == b"*":
                group.skip = True  # an optional destination this reader does not know
            elif symbol in (b"\n", b"\r"):
                parser.paragraph(group)
            else:
                parser.text(group, _SYMBOLS.get(symbol, ""))
        elif word is not None:
            value = int(arg) if arg is not None else None
            skip_chars = _control(parser, group, word, value, skip_chars)
    flush()
    parser.paragraph(group)
    return parser.blocks, " ".join(parser.title.split()), parser.headings


def _control(parser: _Parser, group: _Group, word: bytes, value: int | None, skip: int) -> int:
    """Apply one control word; returns how many fallback characters to skip next."""
    if word in _SKIP:
        group.skip = True
    elif word == b"stylesheet":
        group.dest = "stylesheet"
    elif word == b"title":
        group.dest = "title"
    elif word == b"footnote":
        group.dest = "footnote"
    elif word == b"info":
        pass  # its \title is read; its other members are in _SKIP
    elif word == b"ansicpg" and value:
        try:
            codecs.lookup(f"cp{value}")
            parser.codec = f"cp{value}"
        except LookupError:
            pass
    elif word == b"uc" and value is not None:
        group.uc = max(0, value)
    elif word == b"u" and value is not None:
        parser.text(group, chr(value + 65536 if value < 0 else value))
        return group.uc
    elif word in (b"par", b"sect", b"page"):
        parser.paragraph(group)
    elif word == b"row":
        parser.line.append("\n")
    elif word == b"pard":
        group.style, group.outline = 0, None
    elif word == b"s" and value is not None:
        group.style = value
    elif word == b"outlinelevel" and value is not None:
        group.outline = value
    elif word in _BREAKS:
        parser.text(group, _BREAKS[word])
    return 0 if word != b"u" else skip


def read_rtf_file(path: Path) -> Document:
    """Read an ``.rtf`` file into an ``md`` Document (headings as ``#`` lines)."""
    data = path.read_bytes()
    try:
        blocks, title, headings = parse_rtf(data)
    except (ValueError, IndexError) as exc:
        raise CorruptDocumentError(
            f"is damaged ({exc}); save it again from the program that made it.", path
        ) from None
    warnings = []
    if data.count(b"{") != data.count(b"}"):
        warnings.append("The file's groups are not balanced; it may be truncated.")
    first = next((b[2:] for b in blocks if b.startswith("# ")), "")
    return Document(
        content="\n\n".join(blocks),
        title=title or first or path.stem,
        format="md",
        metadata={"warnings": warnings, "headings": headings},
    )
