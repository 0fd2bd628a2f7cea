"""Word documents (.docx) to Markdown-shaped text.

Heading styles become ``#`` lines so the Markdown splitter keeps heading paths;
tables become pipe rows. python-docx opens the package (and reports a broken one),
but the body is walked directly on its XML: ``Document.paragraphs`` skips tables,
content controls and nested tables, and ``_Row.cells`` repeats a merged cell once
per grid column (and recurses once per row of a vertical merge). Here every
``w:tc`` element is rendered once; the grid positions it covers stay empty.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentmaker.errors import CorruptDocumentError, UnsupportedFormatError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.containers import OfficeSource, open_office
from agentmaker.rag.readers.detect import mismatch_error, zip_kind
from agentmaker.rag.readers.docx_notes import NoteIndex, header_footer_blocks
from agentmaker.rag.readers.docx_xml import HEADING_NAME as _HEADING_NAME
from agentmaker.rag.readers.docx_xml import TBL as _TBL
from agentmaker.rag.readers.docx_xml import TC as _TC
from agentmaker.rag.readers.docx_xml import TR as _TR
from agentmaker.rag.readers.docx_xml import WRAPPERS as _WRAPPERS
from agentmaker.rag.readers.docx_xml import P as _P
from agentmaker.rag.readers.docx_xml import W as _W
from agentmaker.rag.readers.docx_xml import child_val as _val
from agentmaker.rag.readers.docx_xml import paragraph_text


def _style_levels(document: Any) -> dict[str, int]:
    """Heading level per style id, from its name, outline level or ``basedOn`` chain."""
    raw: dict[str, tuple[str, str | None, str | None]] = {}
    for style in document.styles.element.findall(f"{_W}style"):
        style_id = style.get(f"{_W}styleId")
        if style_id:
            p_pr = style.find(f"{_W}pPr")
            raw[style_id] = (
                _val(style, "name") or "",
                _val(p_pr, "outlineLvl"),
                _val(style, "basedOn"),
            )
    levels: dict[str, int] = {}
    for style_id in raw:
        seen: set[str] = set()
        current: str | None = style_id
        while current and current in raw and current not in seen:
            seen.add(current)
            name, outline, based_on = raw[current]
            match = _HEADING_NAME.match(name)
            if match:
                levels[style_id] = int(match.group(1))
                break
            if name.lower() == "title":
                levels[style_id] = 1
                break
            if outline is not None and outline.isdigit() and int(outline) < 6:
                levels[style_id] = int(outline) + 1
                break
            current = based_on
    return levels


class _BodyWriter:
    """Turns body elements into Markdown-shaped blocks."""

    def __init__(self, levels: dict[str, int]) -> None:
        self.levels = levels
        self.blocks: list[str] = []
        self.headings: list[tuple[int, str]] = []
        self.tables = 0

    def paragraph(self, p: Any) -> None:
        text = paragraph_text(p)
        if not text:
            return
        p_pr = p.find(f"{_W}pPr")
        level = self.levels.get(_val(p_pr, "pStyle") or "", 0)
        outline = _val(p_pr, "outlineLvl")
        if outline is not None and outline.isdigit() and int(outline) < 6:
            level = int(outline) + 1
        if level:
            heading = " ".join(text.split())  # heading texts often hold TABs
            self.headings.append((level, heading))
            self.blocks.append(f"{'#' * level} {heading}")
        elif p_pr is not None and p_pr.find(f"{_W}numPr") is not None:
            self.blocks.append("- " + text.replace("\n", " "))
        else:
            self.blocks.append(text)

    def table(self, tbl: Any) -> None:
        """Render a table and, after it, its nested tables (breadth-first, no recursion)."""
        queue = [tbl]
        while queue:
            rows, nested = _table_rows(queue.pop(0))
            queue.extend(nested)
            self.tables += 1
            if not rows:
                continue
            lines = [f"| {' | '.join(row)} |" for row in rows]
            if len(lines) > 1:
                lines.insert(1, "|" + " --- |" * max(len(row) for row in rows))
            self.blocks.append("\n".join(lines))


def _children(element: Any, wanted: str) -> Iterator[Any]:
    """Children with tag ``wanted``, looking through content controls and customXml."""
    stack = list(reversed(element))
    while stack:
        child = stack.pop()
        if child.tag == wanted:
            yield child
        elif child.tag in _WRAPPERS:
            stack.extend(reversed(child))


def _table_rows(tbl: Any) -> tuple[list[list[str]], list[Any]]:
    """Rows of cell texts (each ``w:tc`` once) and the tables nested in the cells."""
    rows: list[list[str]] = []
    nested: list[Any] = []
    above: dict[int, bool] = {}  # grid column -> a cell exists above (for vMerge)
    for tr in _children(tbl, _TR):
        row: list[str] = []
        column = int(_val(tr.find(f"{_W}trPr"), "gridBefore") or 0)
        current: dict[int, bool] = {}
        for tc in _children(tr, _TC):
            tc_pr = tc.find(f"{_W}tcPr")
            span_val = _val(tc_pr, "gridSpan")
            span = int(span_val) if span_val and span_val.isdigit() else 1
            v_merge = tc_pr.find(f"{_W}vMerge") if tc_pr is not None else None
            continued = v_merge is not None and v_merge.get(f"{_W}val", "continue") == "continue"
            if continued and above.get(column):
                text = ""  # the merged cell's text was rendered in the row above
            else:
                texts: list[str] = []
                for block in tc:
                    if block.tag == _P:
                        texts.append(paragraph_text(block).replace("\n", " "))
                    elif block.tag == _TBL:
                        nested.append(block)
                    elif block.tag in _WRAPPERS:
                        texts.extend(paragraph_text(p) for p in _children(block, _P))
                        nested.extend(_children(block, _TBL))
                text = " ".join(t for t in texts if t)
            row.append(text)
            row.extend("" for _ in range(span - 1))  # a horizontal merge, rendered once
            for offset in range(span):
                current[column + offset] = True
            column += span
        above = current
        if any(row):
            rows.append(row)
    return rows, nested


_REMOVE_PASSWORD = "in Word: File > Info > Protect Document > Encrypt with Password"


def read_docx_file(path: Path, *, password: str | None = None) -> Document:
    """Read a ``.docx`` file into an ``md`` Document (headings as ``#`` lines).

    Headers and footers come first, marked ``[Header]`` / ``[Footer]``; footnotes,
    endnotes and comments follow the paragraph that refers to them, marked too.
    ``password`` opens a password-protected file.
    """
    source, names = open_office(path, "Word document", _REMOVE_PASSWORD, password)
    if "word/document.xml" not in names:
        raise mismatch_error(zip_kind(names), path.suffix.lower(), path)
    document = _open_package(source, path)
    warnings: list[str] = []
    try:
        levels = _style_levels(document)
    except Exception as exc:  # a damaged styles part costs the headings, not the text
        levels = {}
        warnings.append(f"The heading styles could not be read ({exc}); headings are plain text.")
    writer = _BodyWriter(levels)
    writer.blocks.extend(header_footer_blocks(document, warnings))
    notes = NoteIndex(document, warnings)
    body = document.element.body
    for child in _body_blocks(body) if body is not None else ():
        if child.tag == _P:
            writer.paragraph(child)
            writer.blocks.extend(notes.after(child))
        else:
            writer.table(child)
            for p in child.iter(_P):
                writer.blocks.extend(notes.after(p))

    try:
        core_title = (document.core_properties.title or "").strip()
    except Exception:  # the title is a nicety; a broken docProps/core.xml is not fatal
        core_title = ""
    first_heading = next((text for level, text in writer.headings if level == 1), None)
    title = core_title or first_heading or path.stem
    metadata: dict[str, object] = {
        "warnings": warnings,
        "headings": len(writer.headings),
        "tables": writer.tables,
        **{key: count for key, count in notes.counts.items() if count},
    }
    return Document(content="\n\n".join(writer.blocks), title=title, format="md", metadata=metadata)


def _open_package(source: OfficeSource, path: Path) -> Any:
    """Open with python-docx; its failures on damaged packages become typed errors."""
    import docx as python_docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import XMLSyntaxError

    try:
        return python_docx.Document(str(source) if isinstance(source, Path) else source)
    except PackageNotFoundError:
        raise CorruptDocumentError(
            "is damaged or incomplete (Word's package structure is missing); "
            "re-download it or save it again from Word.",
            path,
        ) from None
    except XMLSyntaxError as exc:
        raise CorruptDocumentError(
            f"is damaged: a part of the document is not valid XML ({exc}); "
            "re-download it or save it again from Word.",
            path,
        ) from None
    except ValueError as exc:
        if "content type" in str(exc):  # a macro-enabled file or a template
            raise UnsupportedFormatError(
                f"cannot be read as a Word document ({exc}). Save it as a normal .docx.",
                path,
            ) from None
        raise CorruptDocumentError(f"is damaged ({exc}); save it again from Word.", path) from None
    except (KeyError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise CorruptDocumentError(
            f"is damaged: a part of the document is missing or unreadable ({exc}); "
            "re-download it or save it again from Word.",
            path,
        ) from None
    except Exception as exc:
        # python-docx does not document what it raises on broken packages.
        raise CorruptDocumentError(
            f"is damaged and cannot be opened ({type(exc).__name__}: {exc}); "
            "save it again from Word.",
            path,
        ) from None


def _body_blocks(body: Any) -> Iterator[Any]:
    """Paragraphs and tables of the body in order, through content controls."""
    stack = list(reversed(body))
    while stack:
        child = stack.pop()
        if child.tag in (_P, _TBL):
            yield child
        elif child.tag in _WRAPPERS:
            stack.extend(reversed(child))
