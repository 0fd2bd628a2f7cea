"""HTML pages to Markdown-shaped plain text.

What a browser would show: headings become ``#`` lines (so the Markdown splitter
keeps heading paths), table rows become pipe rows, list items ``-`` lines, ``<pre>``
blocks fenced (so ``# comment`` lines in code are not taken for headings). Scripts,
styles, comments, the XML prolog and hidden elements are dropped; inline XBRL
(``ix:*``) wraps visible facts in SEC filings, so its text is kept, except the
hidden ``ix:header``. The tree is walked with an explicit stack: deeply nested
markup must not hit Python's recursion limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, CData, NavigableString, PageElement, Tag

from agentmaker.rag.documents import Document
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines

_SKIP = frozenset(
    {"script", "style", "noscript", "template", "head", "title", "iframe", "object",
     "embed", "svg", "canvas", "ix:header", "datalist"}
)  # fmt: skip
_BLOCK = frozenset(
    {"address", "article", "aside", "blockquote", "body", "center", "dd", "details",
     "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
     "header", "hgroup", "hr", "html", "legend", "main", "nav", "ol", "p", "section",
     "summary", "ul", "tbody", "thead", "tfoot"}
)  # fmt: skip
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_SPACE = re.compile(r"\s+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)""", re.I)


def _collapse(text: str) -> str:
    return " ".join(text.split())


@dataclass
class _Table:
    rows: list[list[str]] = field(default_factory=list)
    row: list[str] | None = None
    cell: list[str] | None = None
    caption: str = ""
    pending: list[str] = field(default_factory=list)  # nested tables, rendered after

    def end_cell(self) -> None:
        if self.cell is not None:
            if self.row is None:
                self.row = []
            self.row.append(_collapse("".join(self.cell)))
            self.cell = None

    def end_row(self) -> None:
        self.end_cell()
        if self.row and any(self.row):
            self.rows.append(self.row)
        self.row = None

    def render(self) -> list[str]:
        self.end_row()
        lines = [f"| {' | '.join(row)} |" for row in self.rows]
        if len(lines) > 1:
            width = max(len(row) for row in self.rows)
            lines.insert(1, "|" + " --- |" * width)
        blocks = ([self.caption] if self.caption else []) + (["\n".join(lines)] if lines else [])
        return blocks + self.pending


class _Converter:
    """Collects blocks while the tree is walked; see ``html_to_markdown``."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.inline: list[str] = []
        self.heading = 0
        self.prefix = ""
        self.list_depth = 0
        self.pre_depth = 0
        self.tables: list[_Table] = []
        self.first_h1: str | None = None

    # --- where text goes -----------------------------------------------------
    def _cell(self) -> list[str] | None:
        return self.tables[-1].cell if self.tables else None

    def text(self, value: str) -> None:
        cell = self._cell()
        if cell is not None:
            cell.append(value)
        elif self.tables:
            if value.strip():  # stray text between rows: keep it after the table
                self.tables[-1].pending.append(_collapse(value))
        elif self.pre_depth:
            self.inline.append(value)
        else:
            self.inline.append(_SPACE.sub(" ", value))

    def emit(self, blocks: list[str]) -> None:
        # Inside a table, finished blocks (nested tables, stray text) follow the table.
        if self.tables:
            self.tables[-1].pending.extend(blocks)
        else:
            self.blocks.extend(blocks)

    def flush(self) -> None:
        cell = self._cell()
        if cell is not None:  # blocks inside a table cell run together on one line
            cell.append(" ")
            return
        raw = "".join(self.inline)
        self.inline = []
        if self.pre_depth:
            body = raw.strip("\n")
            if body.strip():
                self.emit([f"```\n{body}\n```"])
            return
        if self.heading:
            text = _collapse(raw)
            if text:
                if self.heading == 1 and self.first_h1 is None:
                    self.first_h1 = text
                self.emit([f"{'#' * self.heading} {text}"])
            return
        lines = [_collapse(line) for line in raw.split("\n")]
        text = "\n".join(line for line in lines if line)
        if text:
            self.emit([self.prefix + text])
            self.prefix = ""

    # --- tags ----------------------------------------------------------------
    def open(self, tag: Tag) -> None:
        name = tag.name
        if name in _HEADINGS:
            self.flush()
            self.heading = _HEADINGS[name]
        elif name == "br":
            cell = self._cell()
            if cell is not None:
                cell.append(" ")
            else:
                self.inline.append("\n")
        elif name == "li":
            self.flush()
            self.prefix = "  " * max(self.list_depth - 1, 0) + "- "
        elif name in ("ul", "ol"):
            self.flush()
            self.list_depth += 1
        elif name == "pre":
            self.flush()
            self.pre_depth += 1
        elif name == "table":
            if self._cell() is None:
                self.flush()
            self.tables.append(_Table())
        elif name == "tr" and self.tables:
            self.tables[-1].end_row()
            self.tables[-1].row = []
        elif name in ("td", "th") and self.tables:
            table = self.tables[-1]
            table.end_cell()
            table.cell = []
        elif name == "caption" and self.tables:
            self.tables[-1].end_cell()
            self.tables[-1].cell = []
        elif name in _BLOCK or name in ("td", "th", "tr", "caption"):
            self.flush()

    def close(self, tag: Tag) -> None:
        name = tag.name
        if name in _HEADINGS:
            self.flush()
            self.heading = 0
        elif name in ("ul", "ol"):
            self.flush()
            self.list_depth = max(self.list_depth - 1, 0)
        elif name == "pre":
            self.flush()
            self.pre_depth = max(self.pre_depth - 1, 0)
        elif name == "table" and self.tables:
            blocks = self.tables.pop().render()
            self.emit(blocks)
        elif name == "tr" and self.tables:
            self.tables[-1].end_row()
        elif name in ("td", "th") and self.tables:
            self.tables[-1].end_cell()
        elif name == "caption" and self.tables:
            table = self.tables[-1]
            if table.cell is not None:
                table.caption = _collapse("".join(table.cell))
                table.cell = None
        elif name in _BLOCK or name == "li":
            self.flush()

    def finish(self) -> str:
        while self.tables:
            self.emit(self.tables.pop().render())
        self.flush()
        return "\n\n".join(self.blocks)


def _hidden(tag: Tag) -> bool:
    if tag.name in _SKIP or tag.has_attr("hidden"):
        return True
    style = tag.get("style")
    return isinstance(style, str) and bool(_HIDDEN_STYLE.search(style))


def html_to_markdown(markup: str) -> tuple[str, str | None]:
    """Convert HTML to Markdown-shaped text; returns (text, title or first H1)."""
    soup = BeautifulSoup(markup, "html.parser")
    title_tag = soup.find("title")
    title = _collapse(title_tag.get_text()) if isinstance(title_tag, Tag) else ""
    converter = _Converter()
    # Explicit stack of (node, is_closing) instead of recursion.
    stack: list[tuple[PageElement, bool]] = [(soup, False)]
    while stack:
        node, closing = stack.pop()
        if isinstance(node, Tag):
            if closing:
                converter.close(node)
                continue
            if node is not soup and _hidden(node):
                continue
            converter.open(node)
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.contents))
        # Comments, doctype, <?xml ...?> are NavigableString subclasses too: skip them.
        elif type(node) is NavigableString or isinstance(node, CData):
            converter.text(str(node))
    return converter.finish(), title or converter.first_h1


def read_html_file(path: Path, data: bytes) -> Document:
    """Read an ``.html``/``.htm`` page into an ``md`` Document of its visible text."""
    declared = _META_CHARSET.search(data[:4096])
    decoded = decode_bytes(data, declared=declared.group(1).decode("ascii") if declared else None)
    text, title = html_to_markdown(normalize_newlines(decoded.text))
    metadata: dict[str, object] = {"encoding": decoded.encoding, "warnings": decoded.warnings}
    return Document(content=text, title=title or path.stem, format="md", metadata=metadata)
