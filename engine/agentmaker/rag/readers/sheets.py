"""Spreadsheets as records: one line per row, cited as "Sheet 'Budget', row 42".

Both spreadsheet readers (``xlsx``, ``ods``) stream rows into ``SheetWriter``, which
detects each sheet's header row, renders every data row as ``[row 42] Item: Rent;
Amount: 1200`` (the sheet's own row number, every value next to its column name) and
records where each sheet's rows lie (``metadata["sheet_spans"]``). The ``sheet``
splitter groups those lines into chunks without crossing a sheet. Only the text is
kept in memory, never a sheet's cell model, and a workbook whose text would exceed
``MAX_CHARS`` is cut there with a warning.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

#: Text kept per workbook (about 64 MB): a 1M-row sheet is read to here, then cut.
MAX_CHARS = 64 * 1024 * 1024
#: Cells per row kept; beyond this a row is cut (16,384 columns exist, are never filled).
MAX_COLUMNS = 1024

_NUMBER = re.compile(r"^[-+]?[\d.,\s%€$£¥]+$")

Cell = tuple[str, bool]
"""A cell's text and whether it is free text (False: a number, date, boolean)."""


def cell_from_value(value: Any) -> Cell | None:
    """A cell from a Python value (openpyxl); ``None`` for an empty cell."""
    if value is None:
        return None
    if isinstance(value, str):
        text = " ".join(value.split())
        return (text, True) if text else None
    if isinstance(value, bool):
        return ("TRUE" if value else "FALSE", False)
    if isinstance(value, float):
        return (repr(int(value)) if value.is_integer() else repr(value), False)
    if isinstance(value, dt.datetime):
        return (value.isoformat(sep=" ", timespec="minutes").removesuffix(" 00:00"), False)
    if isinstance(value, dt.date | dt.time):
        return (value.isoformat(), False)
    return (str(value), False)


def column_letter(index: int) -> str:
    """``0 -> A``, ``25 -> Z``, ``26 -> AA``."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _is_header(cells: list[Cell | None]) -> bool:
    values = [c for c in cells if c is not None]
    if not values or not all(is_text and not _NUMBER.match(text) for text, is_text in values):
        return False
    texts = [text for text, _ in values]
    return len(set(texts)) == len(texts)


@dataclass
class _Sheet:
    name: str
    start: int
    pending: list[tuple[int, list[Cell | None]]] = field(default_factory=list)
    header: list[str] | None = None
    decided: bool = False
    rows: int = 0


class SheetWriter:
    """Collects rows sheet by sheet and builds the ``sheet`` Document's text."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.spans: list[list[Any]] = []
        self.sheets: list[str] = []
        self.truncated_at: tuple[str, int] | None = None
        self.wide_rows = 0
        self._sheet: _Sheet | None = None

    @property
    def full(self) -> bool:
        """True once the text limit is reached: the caller stops reading."""
        return self.truncated_at is not None

    def _append(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def begin(self, name: str) -> None:
        """Start a sheet named ``name``."""
        self.end()
        if self.parts:
            self._append("\n\n")
        self._append(f"Sheet '{name}'\n")
        self._sheet = _Sheet(name, self.length)

    def row(self, number: int, cells: list[Cell | None]) -> None:
        """Add row ``number`` (1-based, as the spreadsheet shows it) of the current sheet."""
        sheet = self._sheet
        if sheet is None or self.full or not any(c is not None for c in cells):
            return
        if len(cells) > MAX_COLUMNS and any(c is not None for c in cells[MAX_COLUMNS:]):
            self.wide_rows += 1
        cells = cells[:MAX_COLUMNS]
        if not sheet.decided:
            sheet.pending.append((number, cells))
            if len(sheet.pending) < 2:
                return
            self._decide(sheet)
            return
        self._write(sheet, number, cells)

    def _decide(self, sheet: _Sheet) -> None:
        sheet.decided = True
        pending, sheet.pending = sheet.pending, []
        if len(pending) >= 2 and _is_header(pending[0][1]):
            sheet.header = [c[0] if c else "" for c in pending[0][1]]
            pending = pending[1:]
        for number, cells in pending:
            self._write(sheet, number, cells)

    def _write(self, sheet: _Sheet, number: int, cells: list[Cell | None]) -> None:
        header = sheet.header or []
        fields = []
        for index, cell in enumerate(cells):
            if cell is None:
                continue
            name = header[index] if index < len(header) and header[index] else ""
            fields.append(f"{name or column_letter(index)}: {cell[0]}")
        line = f"[row {number}] " + "; ".join(fields) + "\n"
        if self.length + len(line) > MAX_CHARS:
            self.truncated_at = (sheet.name, number)
            return
        self._append(line)
        sheet.rows += 1

    def end(self) -> None:
        """Finish the current sheet (a one-row sheet has no header)."""
        sheet = self._sheet
        if sheet is None:
            return
        if not sheet.decided:
            self._decide(sheet)
        self.spans.append([sheet.start, self.length, sheet.name, sheet.rows])
        self.sheets.append(sheet.name)
        self._sheet = None

    def text(self) -> str:
        """The Document's content (call ``end`` first)."""
        return "".join(self.parts)

    def warnings(self, hidden: list[str]) -> list[str]:
        """Plain-language notes on hidden sheets and a cut-off workbook."""
        notes = []
        if hidden:
            names = ", ".join(f"'{name}'" for name in hidden)
            notes.append(f"{len(hidden)} hidden sheet(s) were not indexed: {names}.")
        if self.truncated_at:
            name, number = self.truncated_at
            notes.append(
                f"The workbook holds more text than can be indexed ({MAX_CHARS // 1024**2} MB); "
                f"reading stopped at sheet '{name}', row {number}. Split it into smaller files."
            )
        if self.wide_rows:
            notes.append(
                f"{self.wide_rows} row(s) have values beyond column {MAX_COLUMNS}; "
                "those cells were not indexed."
            )
        empty = [span[2] for span in self.spans if not span[3]]
        if empty:
            notes.append(f"Empty sheet(s): {', '.join(repr(n) for n in empty)}.")
        return notes

    def metadata(self, hidden: list[str]) -> dict[str, Any]:
        """``sheet_spans`` (``[start, end, name, rows]``), sheet names, warnings."""
        return {
            "sheet_spans": self.spans,
            "sheets": self.sheets,
            "hidden_sheets": hidden,
            "records": sum(span[3] for span in self.spans),
            "warnings": self.warnings(hidden),
        }
