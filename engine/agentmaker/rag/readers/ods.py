"""OpenDocument spreadsheets (.ods): every visible sheet's rows as records.

``content.xml`` is streamed with defusedxml's ``iterparse`` (the standard library's
parser with entity declarations forbidden): each row is rendered and dropped as soon
as it ends, so a large sheet is read in bounded memory. odfpy, the other choice,
builds the whole document tree first and has had no release since 2020. A cell's text
is what LibreOffice displays (its ``text:p``, formulas' saved results included);
``table:number-rows-repeated`` / ``-columns-repeated`` runs of empty cells (a sheet
formatted to its last row) are skipped without expanding them. Sheets whose table
style says ``table:display="false"`` are hidden: skipped and named in the warnings.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from agentmaker.errors import CorruptDocumentError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.containers import check_archive
from agentmaker.rag.readers.detect import odf_kind, require_zip_kind
from agentmaker.rag.readers.sheets import Cell, SheetWriter

_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_T = f"{{{_TABLE}}}"
_ROW, _CELL, _TBL = f"{_T}table-row", f"{_T}table-cell", f"{_T}table"
_COVERED = f"{_T}covered-table-cell"
_P = f"{{{_TEXT}}}p"
#: A non-empty row or cell repeated more than this is kept this many times.
MAX_REPEAT = 1000


def open_odf(path: Path, what: str, kind: str) -> zipfile.ZipFile:
    """Check an OpenDocument container (size, ratio, DOCTYPE, type) and open it."""
    names = check_archive(path, path, what)
    archive = zipfile.ZipFile(path)
    try:
        require_zip_kind(names, path, kind, odf_kind(archive))
        if "content.xml" not in names:
            raise CorruptDocumentError(
                f"is damaged: its content (content.xml) is missing; save the {what} again.",
                path,
            )
        if "META-INF/manifest.xml" in names:
            manifest = archive.read("META-INF/manifest.xml")
            if b"encryption-data" in manifest:
                from agentmaker.errors import PasswordRequiredError

                raise PasswordRequiredError(
                    f"is a password-protected {what}. Remove the password in LibreOffice "
                    "(File > Properties > Security, or save without 'Save with password') "
                    "to index it.",
                    path,
                )
    except BaseException:
        archive.close()
        raise
    return archive


def _cell_text(cell: Any) -> Cell | None:
    lines = []
    for p in cell.iter(_P):
        text = " ".join("".join(p.itertext()).split())
        if text:
            lines.append(text)
    value_type = cell.get(f"{{{_OFFICE}}}value-type") or "string"
    if not lines:
        for attribute in ("value", "date-value", "time-value", "boolean-value"):
            raw = cell.get(f"{{{_OFFICE}}}{attribute}")
            if raw:
                return raw, False
        return None
    return " ".join(lines), value_type == "string"


class _OdsStream:
    """Rows of ``content.xml`` to a ``SheetWriter``, element by element."""

    def __init__(self, writer: SheetWriter) -> None:
        self.writer = writer
        self.hidden_styles: set[str] = set()
        self.hidden: list[str] = []
        self.in_visible_table = False
        self.depth = 0  # nesting of tables (a sub-table inside a cell is not a sheet)
        self.row_number = 0

    def start(self, element: Any) -> None:
        if element.tag == _TBL:
            self.depth += 1
            if self.depth == 1:
                name = element.get(f"{_T}name") or f"Sheet {len(self.writer.sheets) + 1}"
                if element.get(f"{_T}style-name") in self.hidden_styles:
                    self.hidden.append(name)
                    self.in_visible_table = False
                else:
                    self.writer.begin(name)
                    self.in_visible_table = True
                self.row_number = 0

    def end(self, element: Any, parent: Any) -> None:
        tag = element.tag
        if tag == f"{{{_STYLE}}}style":
            props = element.find(f"{{{_STYLE}}}table-properties")
            if props is not None and props.get(f"{_T}display") == "false":
                self.hidden_styles.add(element.get(f"{{{_STYLE}}}name") or "")
        elif tag == _ROW and self.depth == 1:
            repeat = _int(element.get(f"{_T}number-rows-repeated"))
            cells = self._cells(element) if self.in_visible_table else []
            if any(c is not None for c in cells):
                for _ in range(min(repeat, MAX_REPEAT)):
                    self.row_number += 1
                    self.writer.row(self.row_number, cells)
                self.row_number += max(0, repeat - MAX_REPEAT)
            else:
                self.row_number += repeat
            if parent is not None:
                parent.remove(element)  # keep memory bounded: the row is done
        elif tag == _TBL:
            if self.depth == 1 and self.in_visible_table:
                self.writer.end()
                self.in_visible_table = False
            self.depth -= 1

    @staticmethod
    def _cells(row: Any) -> list[Cell | None]:
        cells: list[Cell | None] = []
        for cell in row:
            if cell.tag not in (_CELL, _COVERED):
                continue
            repeat = _int(cell.get(f"{_T}number-columns-repeated"))
            value = _cell_text(cell) if cell.tag == _CELL else None
            if value is None:
                cells.extend([None] * min(repeat, 16_384))
            else:
                cells.extend([value] * min(repeat, MAX_REPEAT))
        while cells and cells[-1] is None:
            cells.pop()
        return cells


def _int(raw: str | None) -> int:
    return int(raw) if raw and raw.isdigit() and int(raw) > 0 else 1


def read_ods_file(path: Path) -> Document:
    """Read an ``.ods`` spreadsheet into a ``sheet`` Document (see ``sheets``)."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    writer = SheetWriter()
    stream = _OdsStream(writer)
    with open_odf(path, "OpenDocument spreadsheet", "ods") as archive:
        try:
            with archive.open("content.xml") as content:
                parents: list[Any] = []
                for event, element in iterparse(content, events=("start", "end")):
                    if event == "start":
                        stream.start(element)
                        parents.append(element)
                        continue
                    parents.pop()
                    stream.end(element, parents[-1] if parents else None)
                    if writer.full:
                        break
        except DefusedXmlException as exc:
            raise CorruptDocumentError(
                f"contains XML the app refuses to expand ({exc}); it was not read.", path
            ) from None
        except Exception as exc:  # ParseError, zlib.error, BadZipFile on a damaged file
            raise CorruptDocumentError(
                f"is damaged: its content cannot be read ({type(exc).__name__}: {exc}); "
                "save it again from LibreOffice.",
                path,
            ) from None
    writer.end()
    return Document(
        content=writer.text(),
        title=path.stem,
        format="sheet",
        metadata=writer.metadata(stream.hidden),
    )
