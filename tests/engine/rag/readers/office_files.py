"""Real office files for the tests, made with the writing side of real libraries.

python-pptx and openpyxl write what their readers read; odfpy (an independent
implementation) writes the OpenDocument files our own parser reads; the standard
library writes the e-mail; msoffcrypto-tool encrypts a workbook as Office does.
"""

from __future__ import annotations

import io
import mailbox
import zipfile
from email.message import EmailMessage
from pathlib import Path


def png_bytes(text_color: str = "black") -> bytes:
    """A small PNG picture."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (120, 60), "white")
    ImageDraw.Draw(image).rectangle((10, 10, 110, 50), outline=text_color)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def make_pptx(path: Path) -> Path:
    """Three slides: bullets + speaker notes, a table, and a picture only."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.title = "Quarterly review"
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Office move"
    body = slide.placeholders[1].text_frame
    body.text = "The team moves to the Harbour building in May"
    sub = body.add_paragraph()
    sub.text = "Parking permits are handed out by Gemma"
    sub.level = 1
    slide.notes_slide.notes_text_frame.text = "Mention that the lift is out of order until June"

    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Costs"
    table = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for r, (a, b) in enumerate([("Item", "Cost"), ("Removal van", "2400"), ("New desks", "7100")]):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b

    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank: a picture only
    slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1), Inches(1))
    deck.save(str(path))
    return path


def make_xlsx(path: Path) -> Path:
    """Two visible sheets (one with a formula whose result was saved), one hidden."""
    import openpyxl

    workbook = openpyxl.Workbook()
    budget = workbook.active
    budget.title = "Budget"
    budget.append(["Item", "Amount", "Month"])
    for row in [("Rent", 1200, "March"), ("Electricity", 80.5, "March"), ("Internet", 45, "April")]:
        budget.append(row)
    budget["A5"] = "Total"
    budget["B5"] = "=SUM(B2:B4)"
    staff = workbook.create_sheet("Staff")
    staff["B2"], staff["C2"] = "Name", "Role"
    staff["B3"], staff["C3"] = "Ana Lima", "Head chef"
    staff["B4"], staff["C4"] = "Tom Berg", "Sommelier"
    secret = workbook.create_sheet("Salaries")
    secret["A1"] = "confidential salary table"
    secret.sheet_state = "hidden"
    buffer = io.BytesIO()
    workbook.save(buffer)
    # openpyxl writes formulas without a result; Excel saves the result beside the
    # formula. Put the result in, as Excel would have.
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<f>SUM(B2:B4)</f><v></v>", b"<f>SUM(B2:B4)</f><v>1325.5</v>")
                data = data.replace(b"<f>SUM(B2:B4)</f><v/>", b"<f>SUM(B2:B4)</f><v>1325.5</v>")
                assert b"<v>1325.5</v>" in data
            out.writestr(info, data)
    return path


def encrypt_office(plain: Path, path: Path, password: str) -> Path:
    """``plain`` encrypted with ``password`` the way Office does it (msoffcrypto-tool)."""
    from msoffcrypto.format.ooxml import OOXMLFile

    with plain.open("rb") as source, path.open("wb") as out:
        OOXMLFile(source).encrypt(password, out)
    return path


def make_ods(path: Path, *, empty_tail: bool = True) -> Path:
    """A spreadsheet with a header row, a hidden sheet and LibreOffice's empty tail."""
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.style import Style, TableProperties
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    hidden = Style(name="hiddentable", family="table")
    hidden.addElement(TableProperties(display="false"))
    doc.automaticstyles.addElement(hidden)
    sheets = [
        ("Inventory", [["Part", "Stock"], ["Hinge", 140], ["Bracket", 35]], None),
        ("Old", [["Part", "Stock"], ["Widget", 1]], "hiddentable"),
    ]
    for name, rows, style in sheets:
        table = Table(name=name, stylename=style) if style else Table(name=name)
        for values in rows:
            row = TableRow()
            for value in values:
                if isinstance(value, str):
                    cell = TableCell(valuetype="string")
                else:
                    cell = TableCell(valuetype="float", value=value)
                cell.addElement(P(text=str(value)))
                row.addElement(cell)
            table.addElement(row)
        if empty_tail:  # what LibreOffice writes for a sheet formatted to the end
            row = TableRow(numberrowsrepeated=1048000)
            row.addElement(TableCell(numbercolumnsrepeated=1024))
            table.addElement(row)
        doc.spreadsheet.addElement(table)
    doc.save(str(path))
    return path


def make_odt(path: Path) -> Path:
    """Headings at two levels, a footnote, a comment and a list."""
    from odf.dc import Creator
    from odf.office import Annotation
    from odf.opendocument import OpenDocumentText
    from odf.text import H, List, ListItem, Note, NoteBody, NoteCitation, P

    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Kitchen manual"))
    doc.text.addElement(P(text="How the kitchen runs."))
    doc.text.addElement(H(outlinelevel=2, text="Cleaning"))
    paragraph = P(text="The fryer oil is changed every Tuesday.")
    note = Note(noteclass="footnote", id="ftn1")
    note.addElement(NoteCitation(text="1"))
    note_body = NoteBody()
    note_body.addElement(P(text="Twice a week in summer."))
    note.addElement(note_body)
    paragraph.addElement(note)
    comment = Annotation()
    comment.addElement(Creator(text="Ana"))
    comment.addElement(P(text="Check with the supplier"))
    paragraph.addElement(comment)
    doc.text.addElement(paragraph)
    items = List()
    item = ListItem()
    item.addElement(P(text="Gloves are in the blue box"))
    items.addElement(item)
    doc.text.addElement(items)
    doc.text.addElement(H(outlinelevel=2, text="Opening hours"))
    doc.text.addElement(P(text="The kitchen opens at seven."))
    doc.save(str(path))
    return path


RTF = rb"""{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}
{\stylesheet{\s0 Normal;}{\s1\sbasedon0 heading 1;}{\s2\sbasedon0 heading 2;}}
{\info{\title Supplier notes}{\author Ana}}
{\header Confidential\par}
\pard\s1 Suppliers\par
\pard Fish comes from the caf\'e9 owner's brother; price \u8364? 14 per kilo.\par
\pard\s2 Bakery\par
\pard Bread is delivered at six.{\super\chftn}{\footnote\pard {\super\chftn} Except Sundays.}\par
\pard\outlinelevel1 Dairy\par
\pard Milk comes on Mondays.\par
}"""


def make_rtf(path: Path) -> Path:
    """An RTF file as Word writes it: a stylesheet with heading styles, a footnote."""
    path.write_bytes(RTF)
    return path


def budget_message(attachment: bytes | None = None) -> EmailMessage:
    """A message with plain and HTML bodies and (optionally) a workbook attached."""
    message = EmailMessage()
    message["Subject"] = "Budget for March"
    message["From"] = "Ana Lima <Ana@Example.org>"
    message["To"] = "bob@example.org, Cy <cy@example.org>"
    message["Date"] = "Mon, 02 Mar 2026 10:15:00 +0100"
    message.set_content("Hi all,\nthe catering deposit of 900 euros is due on Friday.\nAna")
    message.add_alternative(
        "<p>Hi all,</p><p>the catering deposit of <b>900 euros</b> is due on Friday.</p>",
        subtype="html",
    )
    if attachment is not None:
        message.add_attachment(
            attachment,
            maintype="application",
            subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            filename="budget.xlsx",
        )
    return message


def lunch_message() -> EmailMessage:
    """An HTML-only message whose body holds markup that must not survive."""
    message = EmailMessage()
    message["Subject"] = "Team lunch"
    message["From"] = "bob@example.org"
    message["To"] = "ana@example.org"
    message["Date"] = "Tue, 03 Mar 2026 12:00:00 +0000"
    message.add_alternative(
        "<html><body><h1>Lunch</h1><p>We meet at the <i>Blue Whale</i> pier restaurant "
        "&lt;noon&gt;.</p><script>alert('x')</script></body></html>",
        subtype="html",
    )
    return message


def make_mbox(path: Path, attachment: bytes | None = None) -> Path:
    """An mbox holding the budget message (with its attachment) and the lunch message."""
    path.unlink(missing_ok=True)  # mailbox.mbox appends to an existing file
    box = mailbox.mbox(str(path))
    try:
        box.add(budget_message(attachment))
        box.add(lunch_message())
        box.flush()
    finally:
        box.close()
    return path


def make_eml(path: Path) -> Path:
    """The lunch message as an .eml file."""
    path.write_bytes(lunch_message().as_bytes())
    return path


def make_docx_with_notes(path: Path) -> Path:
    """A Word file with a header, a footer, a footnote and a comment."""
    import docx

    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Harbour Kitchen internal"
    document.sections[0].footer.paragraphs[0].text = "Printed copies are not controlled"
    document.add_heading("Safety", level=1)
    paragraph = document.add_paragraph("Knives are sharpened on Fridays.")
    document.add_comment(paragraph.runs, text="Also on Mondays?", author="Gemma")
    document.save(str(path))
    _add_footnote(path)
    return path


_FOOTNOTES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b'<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
    b'<w:footnote w:id="1"><w:p><w:r><w:t>Use the whetstone, never the steel.</w:t></w:r></w:p>'
    b"</w:footnote></w:footnotes>"
)


def _add_footnote(path: Path) -> None:
    """python-docx cannot write footnotes: add the part and a reference as Word does."""
    buffer = io.BytesIO(path.read_bytes())
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "word/document.xml":
                data = data.replace(
                    b"<w:t>Knives are sharpened on Fridays.</w:t></w:r>",
                    b"<w:t>Knives are sharpened on Fridays.</w:t></w:r>"
                    b'<w:r><w:footnoteReference w:id="1"/></w:r>',
                )
            elif info.filename == "word/_rels/document.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdFn1" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>'
                    b"</Relationships>",
                )
            elif info.filename == "[Content_Types].xml":
                data = data.replace(
                    b"</Types>",
                    b'<Override PartName="/word/footnotes.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>',
                )
            out.writestr(info, data)
        out.writestr("word/footnotes.xml", _FOOTNOTES)
