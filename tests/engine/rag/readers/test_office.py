"""PowerPoint, Excel, OpenDocument, RTF and Word's notes: text, structure, locations."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentmaker.errors import NoTextLayerError, PasswordRequiredError
from agentmaker.rag import split_document
from agentmaker.rag.readers import read_file

from .office_files import (
    encrypt_office,
    make_docx_with_notes,
    make_ods,
    make_odt,
    make_pptx,
    make_rtf,
    make_xlsx,
)

# --- PowerPoint -----------------------------------------------------------------------


def test_pptx_slides_notes_table_and_picture_slide(tmp_path: Path) -> None:
    doc = read_file(make_pptx(tmp_path / "review.pptx"))
    assert doc.metadata["source_format"] == "pptx"
    assert doc.title == "Quarterly review"
    assert doc.metadata["page_unit"] == "slide"
    assert doc.metadata["page_titles"] == ["Office move", "Costs", ""]
    # slide 3 shows only a picture: it goes to OCR like a scanned page
    assert doc.metadata["pages_without_text"] == [3]
    assert any("slide 3" in w for w in doc.metadata["warnings"])
    spans = {number: doc.content[start:end] for start, end, number, _ in doc.metadata["page_spans"]}
    assert spans[1].startswith("Office move\n\nThe team moves to the Harbour building in May")
    assert "  - Parking permits are handed out by Gemma" in spans[1]
    assert spans[1].endswith("Speaker notes: Mention that the lift is out of order until June")
    assert "| Removal van | 2400 |" in spans[2] and "Speaker notes" not in spans[2]
    assert spans[3] == ""

    chunks = split_document(doc)
    by_slide = {c.metadata["slide"]: c for c in chunks}
    assert set(by_slide) == {1, 2}
    assert by_slide[1].metadata["location"] == "slide 1"
    assert by_slide[1].heading_path == "Office move"
    assert by_slide[2].metadata["location"] == "slide 2"
    assert by_slide[2].heading_path == "Costs"
    assert "New desks | 7100" in by_slide[2].content


def test_pptx_of_pictures_only_needs_ocr(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    from .office_files import png_bytes

    deck = Presentation()
    for _ in range(2):
        slide = deck.slides.add_slide(deck.slide_layouts[6])
        slide.shapes.add_picture(__import__("io").BytesIO(png_bytes()), Inches(1), Inches(1))
    path = tmp_path / "scans.pptx"
    deck.save(str(path))
    with pytest.raises(NoTextLayerError, match="only pictures"):
        read_file(path)


# --- Excel -----------------------------------------------------------------------------


def test_xlsx_rows_as_records_with_header_formula_and_hidden_sheet(tmp_path: Path) -> None:
    doc = read_file(make_xlsx(tmp_path / "budget.xlsx"))
    assert doc.format == "sheet" and doc.metadata["source_format"] == "xlsx"
    lines = doc.content.splitlines()
    assert "[row 2] Item: Rent; Amount: 1200; Month: March" in lines
    assert "[row 3] Item: Electricity; Amount: 80.5; Month: March" in lines
    # the formula gives the value Excel saved, not "=SUM(B2:B4)"
    assert "[row 5] Item: Total; Amount: 1325.5" in lines
    assert "SUM(" not in doc.content
    # a header that starts in column B keeps its columns aligned
    assert "[row 3] Name: Ana Lima; Role: Head chef" in lines
    assert doc.metadata["sheets"] == ["Budget", "Staff"]
    assert doc.metadata["hidden_sheets"] == ["Salaries"]
    assert "confidential" not in doc.content
    assert any("hidden sheet" in w and "'Salaries'" in w for w in doc.metadata["warnings"])

    chunks = split_document(doc)
    assert [c.heading_path for c in chunks] == ["Sheet 'Budget'", "Sheet 'Staff'"]
    assert chunks[0].metadata["location"] == "Sheet 'Budget', rows 2–5"
    assert chunks[1].metadata["location"] == "Sheet 'Staff', rows 3–4"
    assert chunks[1].metadata["sheet"] == "Staff"
    # small chunks: one row each, cited by its own row number
    small = split_document(doc, chunk_tokens=24, overlap_tokens=0)
    assert "Sheet 'Budget', row 3" in [c.metadata["location"] for c in small]
    row3 = next(c for c in small if c.metadata["location"] == "Sheet 'Budget', row 3")
    assert row3.content == "[row 3] Item: Electricity; Amount: 80.5; Month: March"
    assert doc.content[row3.metadata["start_char"] : row3.metadata["end_char"]] == row3.content


def test_xlsx_password(tmp_path: Path) -> None:
    locked = encrypt_office(make_xlsx(tmp_path / "plain.xlsx"), tmp_path / "locked.xlsx", "pw1")
    with pytest.raises(PasswordRequiredError, match="password-protected Excel workbook"):
        read_file(locked)
    with pytest.raises(PasswordRequiredError, match="not correct"):
        read_file(locked, password="nope")
    assert "[row 2] Item: Rent" in read_file(locked, password="pw1").content


def test_xlsx_large_sheet_streams(tmp_path: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Log")
    sheet.append(["Id", "Event"] + [f"c{k}" for k in range(200)])  # wide
    for n in range(20_000):
        sheet.append([n, f"event {n}"] + [None] * 199 + ["last"])
    workbook.save(tmp_path / "log.xlsx")
    doc = read_file(tmp_path / "log.xlsx")
    assert doc.metadata["records"] == 20_000
    assert "[row 20001] Id: 19999; Event: event 19999; c199: last" in doc.content


# --- OpenDocument and RTF -------------------------------------------------------------


def test_ods_rows_hidden_sheet_and_empty_tail(tmp_path: Path) -> None:
    doc = read_file(make_ods(tmp_path / "stock.ods"))
    assert doc.format == "sheet" and doc.metadata["source_format"] == "ods"
    assert doc.content.splitlines() == [
        "Sheet 'Inventory'",
        "[row 2] Part: Hinge; Stock: 140",
        "[row 3] Part: Bracket; Stock: 35",
    ]
    assert doc.metadata["hidden_sheets"] == ["Old"]
    chunk = split_document(doc)[0]
    assert chunk.metadata["location"] == "Sheet 'Inventory', rows 2–3"


def test_odt_headings_notes_comments(tmp_path: Path) -> None:
    doc = read_file(make_odt(tmp_path / "manual.odt"))
    assert doc.format == "md" and doc.title == "Kitchen manual"
    assert doc.content.split("\n\n") == [
        "# Kitchen manual",
        "How the kitchen runs.",
        "## Cleaning",
        "The fryer oil is changed every Tuesday.",
        "[Footnote 1] Twice a week in summer.",
        "[Comment by Ana] Check with the supplier",
        "- Gloves are in the blue box",
        "## Opening hours",
        "The kitchen opens at seven.",
    ]
    paths = {c.heading_path for c in split_document(doc, chunk_tokens=20, overlap_tokens=0)}
    assert "Kitchen manual > Cleaning" in paths and "Kitchen manual > Opening hours" in paths


def test_rtf_headings_encoding_footnote(tmp_path: Path) -> None:
    doc = read_file(make_rtf(tmp_path / "suppliers.rtf"))
    assert doc.title == "Supplier notes"
    assert doc.content.split("\n\n") == [
        "# Suppliers",
        "Fish comes from the café owner's brother; price € 14 per kilo.",
        "## Bakery",
        "Bread is delivered at six.",
        "[Footnote] Except Sundays.",
        "## Dairy",
        "Milk comes on Mondays.",
    ]
    chunks = split_document(doc, chunk_tokens=20, overlap_tokens=0)
    dairy = next(c for c in chunks if "Milk" in c.content)
    assert dairy.heading_path == "Suppliers > Dairy"


# --- Word ------------------------------------------------------------------------------


def test_docx_headers_footers_footnotes_comments(tmp_path: Path) -> None:
    doc = read_file(make_docx_with_notes(tmp_path / "safety.docx"))
    blocks = doc.content.split("\n\n")
    assert blocks[:2] == [
        "[Header] Harbour Kitchen internal",
        "[Footer] Printed copies are not controlled",
    ]
    knives = blocks.index("Knives are sharpened on Fridays.")
    assert blocks[knives + 1 : knives + 3] == [
        "[Footnote 1] Use the whetstone, never the steel.",
        "[Comment by Gemma] Also on Mondays?",
    ]
    assert doc.metadata["footnotes"] == 1 and doc.metadata["comments"] == 1
    note = next(c for c in split_document(doc) if "whetstone" in c.content)
    assert note.heading_path == "Safety"
