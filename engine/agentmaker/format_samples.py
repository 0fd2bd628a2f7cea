"""One small file of each office and e-mail format, written, indexed and found again.

The installer's self-test (``agentmaker self-test``) calls ``check_formats``: a frozen
app that lost python-pptx, openpyxl, msoffcrypto's or defusedxml's modules (or their
data files) fails here, on the build machine, instead of on a user's folder. The files
are written at run time with the same libraries (OpenDocument and RTF by hand, they
are small), so nothing binary is shipped for the test.
"""

from __future__ import annotations

import mailbox
import zipfile
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentmaker.library import Library

#: file name -> (a query, the text the best hit must hold, the location it must name)
EXPECTED: dict[str, tuple[str, str, str]] = {
    "deck.pptx": ("pelican mascot", "pelican mascot", "slide 1"),
    "sheet.xlsx": ("walnut cabinet", "walnut cabinet", "Sheet 'Stock', row 2"),
    "sheet.ods": ("copper kettle", "copper kettle", "Sheet 'Shelf', row 2"),
    "letter.odt": ("lighthouse keeper", "lighthouse keeper", ""),
    "memo.rtf": ("saffron delivery", "saffron delivery", ""),
    "notes.docx": ("harbour crane", "harbour crane", ""),
    "note.eml": ("glacier excursion", "glacier excursion", "“Excursion” — 2026-01-05"),
    "box.mbox": ("tandem bicycle", "tandem bicycle", "“Bicycles” — 2026-01-06"),
}

_ODF_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
    'manifest:version="1.2"><manifest:file-entry manifest:full-path="/" '
    'manifest:media-type="{mime}"/><manifest:file-entry manifest:full-path="content.xml" '
    'manifest:media-type="text/xml"/></manifest:manifest>'
)
_ODF_CONTENT = (
    '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.2">'
    "<office:body>{body}</office:body></office:document-content>"
)


def _odf(path: Path, mime: str, body: str) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", mime, compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", _ODF_MANIFEST.format(mime=mime))
        archive.writestr("content.xml", _ODF_CONTENT.format(body=body))


def _message(subject: str, date: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["Subject"], message["Date"] = subject, date
    message["From"], message["To"] = "desk@example.org", "you@example.org"
    message.set_content(body)
    return message


def write_samples(folder: Path) -> list[Path]:
    """Write one file of each format into ``folder``; return their paths."""
    import docx
    import openpyxl
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Mascot"
    slide.placeholders[1].text_frame.text = "Our pelican mascot greets visitors"
    slide.notes_slide.notes_text_frame.text = "Mention the pelican's name"
    deck.save(str(folder / "deck.pptx"))

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Stock"
    sheet.append(["Item", "Count"])
    sheet.append(["walnut cabinet", 3])
    workbook.save(folder / "sheet.xlsx")

    _odf(
        folder / "sheet.ods",
        "application/vnd.oasis.opendocument.spreadsheet",
        '<office:spreadsheet><table:table table:name="Shelf">'
        '<table:table-row><table:table-cell office:value-type="string"><text:p>Item</text:p>'
        "</table:table-cell></table:table-row><table:table-row>"
        '<table:table-cell office:value-type="string"><text:p>copper kettle</text:p>'
        "</table:table-cell></table:table-row></table:table></office:spreadsheet>",
    )
    _odf(
        folder / "letter.odt",
        "application/vnd.oasis.opendocument.text",
        '<office:text><text:h text:outline-level="1">Letter</text:h>'
        "<text:p>The lighthouse keeper writes every week.</text:p></office:text>",
    )
    (folder / "memo.rtf").write_bytes(
        rb"{\rtf1\ansi{\stylesheet{\s1 heading 1;}}\pard\s1 Memo\par"
        rb"\pard The saffron delivery is late.\par}"
    )
    document = docx.Document()
    document.add_heading("Notes", level=1)
    document.add_paragraph("The harbour crane is serviced in spring.")
    document.save(str(folder / "notes.docx"))

    (folder / "note.eml").write_bytes(
        _message(
            "Excursion", "Mon, 05 Jan 2026 09:00:00 +0000", "The glacier excursion starts at 8."
        ).as_bytes()
    )
    (folder / "box.mbox").unlink(missing_ok=True)  # mailbox.mbox appends
    box = mailbox.mbox(str(folder / "box.mbox"))
    try:
        box.add(_message("Bicycles", "Tue, 06 Jan 2026 09:00:00 +0000", "Rent a tandem bicycle."))
        box.flush()
    finally:
        box.close()
    return [folder / name for name in EXPECTED]


def check_formats(library: Library, folder: Path) -> list[str]:
    """Write the samples into ``folder``, index them and find each; return the problems."""
    problems: list[str] = []
    try:
        paths = write_samples(folder)
    except Exception as exc:  # a writer library missing from the bundle
        return [f"the format samples could not be written ({type(exc).__name__}: {exc})"]
    report = library.pipeline.ingest_paths(paths)
    for outcome in report.files:
        if outcome.status not in ("indexed", "unchanged"):
            problems.append(f"{Path(outcome.path).name} was not indexed: {outcome.error}")
    for name, (query, text, location) in EXPECTED.items():
        hits = library.rag.retrieve(query, top_k=3)
        hit = next((h for h in hits if Path(h.source).name == name), None)
        if hit is None or text not in hit.content:
            problems.append(f"{name}: search did not find '{text}'")
        elif location and hit.metadata.get("location") != location:
            problems.append(f"{name}: cited as {hit.metadata.get('location')!r}, not {location!r}")
    return problems
