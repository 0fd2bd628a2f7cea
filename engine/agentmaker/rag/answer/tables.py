"""Markdown tables as a small model reads them: each cell with its column's name.

A sheet's rows, written ``city: Colorado Springs; state: CO``, a 1.5B model reads well;
a Markdown table's cell two lines under its header it often does not ("what stands
under Header Col 2?" of ``| Lorem ipsum | A link example |``). :func:`label_cells`
writes every data row of a Markdown table the sheet's way, ``| Header Col 1: Lorem ipsum
| Header Col 2: A link example |``, keeps the header row (its cells may be all a column
says) and drops the ``| --- |`` rule. Rows whose cells do not line up with the header's
(a merged cell) stay as they are. Measured in REPORT §10, session 11: of the two table
questions that had failed, the 10-K's identification number was then found (quoted), the
DOCX cell still not; no other answer of five question sets changed by it.
"""

from __future__ import annotations

from agentmaker.rag.answer.sentences import TABLE_RULE

__all__ = ["cells", "label_cells", "labelled_row", "table_rows"]


def cells(line: str) -> list[str]:
    """The cells of a table's row, stripped (empty ones too)."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def labelled_row(header: list[str], row: str) -> str:
    """``row`` with each cell after its column's name in ``header`` (``row`` itself when
    its cells do not line up with the header's)."""
    values = cells(row)
    if len(values) != len(header):
        return row
    said = [
        f"{name}: {cell}" if name else cell
        for name, cell in zip(header, values, strict=True)
        if cell
    ]
    return "| " + " | ".join(said) + " |"


def label_cells(text: str) -> str:
    """``text`` with each Markdown table's data cells labelled by their column's header."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    header: list[str] | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if header is not None and stripped.startswith("|"):
            if not TABLE_RULE.fullmatch(stripped):  # the rule under the header is no text
                out.append(labelled_row(header, stripped))
            continue
        header = _header(lines, index)
        out.append(line)
    return "\n".join(out)


def table_rows(text: str) -> tuple[dict[str, list[str]], set[str]]:
    """The Markdown tables of ``text``: each data row (its line, stripped) with its
    table's header cells, and the header rows of tables that have data rows, whether
    written under a ``| --- |`` rule or already labelled (:func:`label_cells`)."""
    rows: dict[str, list[str]] = {}
    headers: set[str] = set()
    lines = [line.strip() for line in text.split("\n")]
    header: list[str] | None = None
    header_line = ""
    for index, line in enumerate(lines):
        if header is not None and line.startswith("|"):
            if not TABLE_RULE.fullmatch(line):
                rows[line] = header
                headers.add(header_line)
            continue
        header, header_line = _header(lines, index), line
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if header is None and line.startswith("|") and _labelled_by(cells(line), following):
            headers.add(line)
    return rows, headers


def _labelled_by(header: list[str], row: str) -> bool:
    """Whether ``row`` is a data row :func:`label_cells` labelled with ``header``."""
    names = [f"{name}: " for name in header if name]
    values = [value for value in cells(row) if value] if row.startswith("|") else []
    return bool(names and values) and values[0].startswith(tuple(names))


def _header(lines: list[str], index: int) -> list[str] | None:
    """The header cells when ``lines[index]`` is a table's header row (the rule under it
    follows), else None."""
    stripped = lines[index].strip()
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    starts_table = stripped.startswith("|") and "|" in following
    return cells(stripped) if starts_table and TABLE_RULE.fullmatch(following) else None
