"""Excel workbooks (.xlsx, .xlsm): every visible sheet's rows as records.

openpyxl is the maintained pure-Python reader of SpreadsheetML. It is used in
read-only mode, which streams each sheet's XML row by row instead of building the
cell model (a 1M-row sheet would need gigabytes otherwise), with ``data_only=True``
so formulas give the value Excel saved with the file, not their source. Macros in
``.xlsm`` files are never run or read. Hidden sheets are skipped and named in the
warnings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmaker.errors import CorruptDocumentError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.containers import open_office
from agentmaker.rag.readers.detect import require_zip_kind
from agentmaker.rag.readers.sheets import SheetWriter, cell_from_value

_REMOVE_PASSWORD = "in Excel: File > Info > Protect Workbook > Encrypt with Password"


def _load(path: Path, password: str | None) -> Any:
    source, names = open_office(path, "Excel workbook", _REMOVE_PASSWORD, password)
    require_zip_kind(names, path, "xlsx")
    import openpyxl

    try:
        return openpyxl.load_workbook(
            str(source) if isinstance(source, Path) else source,
            read_only=True,
            data_only=True,
            keep_links=False,
        )
    except Exception as exc:  # KeyError, XML errors, InvalidFileException...
        raise CorruptDocumentError(
            f"is damaged and cannot be opened as a workbook ({type(exc).__name__}: {exc}); "
            "save it again from Excel.",
            path,
        ) from None


def read_xlsx_file(path: Path, *, password: str | None = None) -> Document:
    """Read a workbook into a ``sheet`` Document (see ``sheets.SheetWriter``)."""
    workbook = _load(path, password)
    writer = SheetWriter()
    hidden: list[str] = []
    try:
        for sheet in workbook.worksheets:
            if getattr(sheet, "sheet_state", "visible") != "visible":
                hidden.append(sheet.title)
                continue
            writer.begin(sheet.title)
            # The stored <dimension> is often wrong (files written by other tools);
            # without it openpyxl reads the rows that are really there.
            if hasattr(sheet, "reset_dimensions"):
                sheet.reset_dimensions()
            for row in sheet.iter_rows():
                if writer.full:
                    break
                number = next((c.row for c in row if getattr(c, "row", None)), None)
                if number is None:
                    continue
                cells = [cell_from_value(getattr(c, "value", None)) for c in row]
                writer.row(number, _aligned(row, cells))
            writer.end()
            if writer.full:
                break
    except CorruptDocumentError:
        raise
    except Exception as exc:
        raise CorruptDocumentError(
            f"is damaged: a sheet could not be read ({type(exc).__name__}: {exc}); "
            "save it again from Excel.",
            path,
        ) from None
    finally:
        workbook.close()
    metadata = writer.metadata(hidden)
    try:
        title = (workbook.properties.title or "").strip() or path.stem
    except Exception:  # the title is a nicety
        title = path.stem
    return Document(content=writer.text(), title=title, format="sheet", metadata=metadata)


def _aligned(row: Any, cells: list[Any]) -> list[Any]:
    """Cells placed at their column (read-only rows may skip empty leading cells)."""
    columns = [getattr(c, "column", None) for c in row]
    if all(isinstance(col, int) for col in columns) and columns and columns[-1] != len(columns):
        out: list[Any] = [None] * int(columns[-1])  # type: ignore[arg-type]
        for col, cell in zip(columns, cells, strict=True):
            out[int(col) - 1] = cell  # type: ignore[arg-type]
        return out
    return cells
