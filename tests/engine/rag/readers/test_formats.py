"""The readers on small files made in the test: edge cases the corpus does not cover."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from agentmaker.errors import (
    CorruptDocumentError,
    DocumentError,
    EmptyDocumentError,
    FileTooLargeError,
    FormatMismatchError,
    PasswordRequiredError,
    UnsupportedFormatError,
)
from agentmaker.rag.readers import read_file, sniff_format
from agentmaker.rag.readers.markdown import first_h1, split_front_matter
from agentmaker.rag.readers.pdf_text import Dehyphenator, normalize_page_text
from agentmaker.rag.readers.text import decode_bytes


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


def pdf_bytes(pages: list[str | None]) -> bytes:
    """A minimal valid PDF with one Helvetica text line per page (None: blank page)."""
    bodies = {
        1: "<< /Type /Catalog /Pages 2 0 R >>",
        3: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    kids = []
    number = 4
    for text in pages:
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET" if text else ""
        bodies[number] = (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {number + 1} 0 R >>"
        )
        bodies[number + 1] = f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream"
        kids.append(f"{number} 0 R")
        number += 2
    bodies[2] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>"
    out = b"%PDF-1.4\n"
    offsets = {}
    for key in range(1, number):
        offsets[key] = len(out)
        out += f"{key} 0 obj\n{bodies[key]}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {number}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offsets[k]:010d} 00000 n \n".encode() for k in range(1, number))
    out += f"trailer\n<< /Size {number} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


# --- read_file's own checks -----------------------------------------------------------


def test_size_limit_is_checked_before_reading(tmp_path: Path) -> None:
    path = write(tmp_path, "big.txt", "x" * 2000)
    with pytest.raises(FileTooLargeError, match="more than the limit"):
        read_file(path, max_bytes=1000)
    assert read_file(path, max_bytes=2000).content == "x" * 2000


def test_missing_unsupported_and_folder(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="does not exist"):
        read_file(tmp_path / "gone.md")
    with pytest.raises(UnsupportedFormatError, match=r"\.numbers"):
        read_file(write(tmp_path, "sheet.numbers", b"PK\x03\x04"))
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(UnsupportedFormatError, match="not a regular file"):
        read_file(tmp_path / "folder.md")


@pytest.mark.parametrize("name", ["blank.md", "blank.txt", "blank.pdf", "blank.json"])
def test_whitespace_only_is_empty(tmp_path: Path, name: str) -> None:
    with pytest.raises(EmptyDocumentError):
        read_file(write(tmp_path, name, " \n\t\r\n  "))


def test_only_a_bom_is_empty(tmp_path: Path) -> None:
    with pytest.raises(EmptyDocumentError):
        read_file(write(tmp_path, "bom.txt", b"\xef\xbb\xbf \n"))


def test_binary_named_as_text(tmp_path: Path) -> None:
    with pytest.raises(FormatMismatchError, match="binary data"):
        read_file(write(tmp_path, "data.csv", bytes(range(256)) * 4))
    with pytest.raises(FormatMismatchError, match="PDF document"):
        read_file(write(tmp_path, "paper.txt", pdf_bytes(["Hello"])))
    with pytest.raises(FormatMismatchError, match="JPEG image"):
        read_file(write(tmp_path, "scan.pdf", b"\xff\xd8\xff\xe0" + b"\0" * 64))


def test_sniff_format_bytes() -> None:
    assert sniff_format(b"%PDF-1.7\n") == "pdf"
    assert sniff_format(b"\x89PNG\r\n\x1a\n....") == "png"
    assert sniff_format("héllo".encode("utf-16")) == "text"
    assert sniff_format(b"plain words\n") == "text"
    assert sniff_format(b"\x00\x01\x02\x03" * 10) == "binary"


# --- text decoding ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("\ufeffGrüße".encode(), "utf-8"),
        ("Grüße".encode("utf-16"), "utf-16-le"),
        (b"\xfe\xff" + "Grüße".encode("utf-16-be"), "utf-16-be"),
        ("Grüße".encode("utf-32"), "utf-32-le"),
        ("Grüße aus Köln".encode("utf-16-le"), "utf-16-le"),  # no BOM
        ("Grüße aus Köln, schön".encode("cp1252"), "cp1252"),
    ],
)
def test_decode_bytes(data: bytes, encoding: str) -> None:
    decoded = decode_bytes(data)
    assert decoded.encoding == encoding
    assert decoded.text.startswith("Grüße")


def test_decode_damaged_utf8_keeps_the_rest() -> None:
    data = ("Grüße — ünïcödé " * 10).encode() + b"\xff tail"
    decoded = decode_bytes(data)
    assert decoded.encoding == "utf-8"
    assert decoded.text.endswith("\ufffd tail") and "Grüße" in decoded.text
    assert "invalid byte" in decoded.warnings[0]


def test_declared_html_charset_is_used(tmp_path: Path) -> None:
    markup = '<html><head><meta charset="windows-1251"></head><body><p>Привет</p></body></html>'
    doc = read_file(write(tmp_path, "page.html", markup.encode("cp1251")))
    assert doc.content == "Привет"
    assert doc.metadata["encoding"] == "cp1251"


def test_crlf_becomes_lf(tmp_path: Path) -> None:
    assert read_file(write(tmp_path, "a.txt", "one\r\ntwo\rthree")).content == "one\ntwo\nthree"


# --- Markdown -------------------------------------------------------------------------


def test_front_matter_variants() -> None:
    text = "---\ntitle: 'Hi'\ntags:\n  - a\n  - b\nmenu:\n  docs:\n    weight: 3\n---\n# Body\n"
    front, body, offset = split_front_matter(text)
    assert front == {"title": "Hi", "tags": "a, b", "menu.docs.weight": "3"}
    assert body == "# Body\n" and text[offset:] == body
    toml = '+++\ntitle = "T"\n[params]\nx = 1\n+++\nbody'
    assert split_front_matter(toml)[:2] == ({"title": "T", "params.x": "1"}, "body")
    unclosed = "---\ntitle: x\nno end"
    assert split_front_matter(unclosed) == ({}, unclosed, 0)
    assert split_front_matter("--- \n")[2] == 0


def test_first_h1_skips_fences() -> None:
    text = "```bash\n# not a heading\n```\n~~~~\n# nor this\n~~~\n# still fenced\n~~~~\n# Real\n"
    assert first_h1(text) == "Real"


# --- JSON, JSON Lines, CSV ------------------------------------------------------------


def test_json_errors_have_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocumentError, match="a comma was expected at line 2 column 10"):
        read_file(write(tmp_path, "bad.json", '{"a": 1,\n "b": [1 2]}'))
    with pytest.raises(CorruptDocumentError, match="ends unexpectedly at line 1"):
        read_file(write(tmp_path, "cut.json", '{"a": [1, 2'))


def test_json_nested_100000_levels(tmp_path: Path) -> None:
    path = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(CorruptDocumentError, match="nested too deeply") as info:
        read_file(path)
    assert info.value.__cause__ is None


def test_json_lines_in_a_json_file(tmp_path: Path) -> None:
    doc = read_file(write(tmp_path, "log.json", '{"a": 1}\n{"a": 2}\n{"a": 3}\n'))
    assert doc.format == "jsonl" and doc.metadata["records"] == 3
    assert "JSON Lines" in doc.metadata["warnings"][0]


def test_jsonl_bad_lines(tmp_path: Path) -> None:
    doc = read_file(write(tmp_path, "a.jsonl", '{"a": 1}\nnot json\n\n{"a": 2}\n'))
    assert doc.metadata["records"] == 2 and doc.metadata["invalid_lines"] == [2]
    assert "line(s) 2" in doc.metadata["warnings"][0]
    cut = read_file(write(tmp_path, "b.jsonl", '{"a": 1}\n{"a": "unfinished'))
    assert "probably truncated" in cut.metadata["warnings"][0]
    with pytest.raises(CorruptDocumentError, match="none of its 2 line"):
        read_file(write(tmp_path, "c.jsonl", "nope\nnever\n"))


def test_csv_dialects(tmp_path: Path) -> None:
    semi = read_file(write(tmp_path, "a.csv", "a;b;c\n1;2;3\n4;5;6\n"))
    assert semi.metadata["csv_dialect"]["delimiter"] == ";" and semi.metadata["records"] == 2
    tsv = read_file(write(tmp_path, "a.tsv", "a\tb\n1\t2\n"))
    assert tsv.format == "csv" and tsv.metadata["csv_dialect"]["delimiter"] == "\t"
    assert tsv.metadata["source_format"] == "tsv"
    quoted = read_file(write(tmp_path, "q.csv", 'a,b\n"multi\nline",2\n"x",3\n'))
    assert quoted.metadata["records"] == 2 and quoted.metadata["warnings"] == []


# --- HTML -----------------------------------------------------------------------------


def test_html_structure(tmp_path: Path) -> None:
    markup = """<?xml version="1.0"?><!DOCTYPE html><html><head><title> My  Page </title>
    <style>p { color: red }</style><script>var x = "<h1>no</h1>";</script></head>
    <body><!-- a comment --><h1>Top\tTitle</h1><p>Some <b>bold</b>&nbsp;text<br>next line</p>
    <h2>Lists</h2><ul><li>one</li><li>two<ul><li>inner</li></ul></li></ul>
    <pre># not a heading
  indented</pre>
    <div style="display: none">hidden text</div><p hidden>also hidden</p>
    <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td><table><tr><td>n1</td></tr></table>
    b</td></tr></table><ix:header>hidden facts</ix:header>
    <p><ix:nonNumeric name="x">visible fact</ix:nonNumeric></p></body></html>"""
    doc = read_file(write(tmp_path, "page.html", markup))
    assert doc.title == "My Page" and doc.format == "md"
    blocks = doc.content.split("\n\n")
    assert blocks[0] == "# Top Title"
    assert blocks[1] == "Some bold text\nnext line"
    assert "## Lists" in blocks and "- one" in blocks and "  - inner" in blocks
    assert "```\n# not a heading\n  indented\n```" in blocks
    assert "| k | v |\n| --- | --- |\n| a | b |" in blocks and "| n1 |" in blocks
    assert "visible fact" in blocks
    for gone in ("color", "var x", "comment", "hidden", "<", "xml"):
        assert gone not in doc.content


def test_html_deep_nesting_does_not_crash(tmp_path: Path) -> None:
    doc = read_file(write(tmp_path, "deep.html", "<div>" * 20_000 + "core" + "</div>" * 20_000))
    assert doc.content == "core"


# --- DOCX -----------------------------------------------------------------------------


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = ""
    document.add_paragraph("Report\ttitle", style="Title")
    document.add_heading("1.\tFirst\t chapter ", level=1)
    document.add_paragraph("Body text with\ttab.")
    document.add_heading("Sub", level=2)
    table = document.add_table(rows=3, cols=3)
    for r in range(3):
        for c in range(3):
            table.cell(r, c).text = f"r{r}c{c}"
    table.cell(0, 0).merge(table.cell(0, 1))  # horizontal merge
    table.cell(1, 2).merge(table.cell(2, 2))  # vertical merge
    inner = table.cell(2, 0).add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "inner-a"
    inner.cell(0, 1).text = "inner-b"
    document.save(str(path))
    return path


def test_docx_headings_tables_merges(tmp_path: Path) -> None:
    doc = read_file(make_docx(tmp_path / "report.docx"))
    assert doc.format == "md" and doc.metadata["source_format"] == "docx"
    lines = doc.content.splitlines()
    assert lines[0] == "# Report title"
    assert "# 1. First chapter" in lines and "## Sub" in lines
    assert "Body text with tab." in lines
    assert doc.title == "Report title"
    for cell in ("r1c0", "r1c1", "r2c0", "r2c1", "inner-a", "inner-b"):
        assert doc.content.count(cell) == 1, cell
    # merged cells: python-docx puts both texts into the merged cell
    assert doc.content.count("r0c0") == 1 and doc.content.count("r1c2") == 1
    assert "| inner-a | inner-b |" in lines


def test_docx_encrypted_and_legacy(tmp_path: Path) -> None:
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 500
    with pytest.raises(PasswordRequiredError, match="password-protected Word"):
        read_file(write(tmp_path, "secret.docx", ole + "EncryptionInfo".encode("utf-16-le")))
    with pytest.raises(FormatMismatchError, match=r"\.doc"):
        read_file(write(tmp_path, "old.docx", ole))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(FormatMismatchError, match="Excel workbook"):
        read_file(write(tmp_path, "sheet.docx", buffer.getvalue()))


# --- EPUB -----------------------------------------------------------------------------


def make_epub(path: Path, *, drm: bool = False) -> Path:
    container = (
        '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf"/></rootfiles></container>'
    )
    opf = (
        '<package xmlns="http://www.idpf.org/2007/opf" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>The Book</dc:title>'
        '</metadata><manifest><item id="a" href="ch%201.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="b" href="ch2.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="css" href="s.css" media-type="text/css"/></manifest>'
        '<spine><itemref idref="b"/><itemref idref="a"/></spine></package>'
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr("META-INF/container.xml", container)
        archive.writestr("OEBPS/content.opf", opf)
        archive.writestr("OEBPS/ch 1.xhtml", "<html><body><h1>One</h1><p>first</p></body></html>")
        archive.writestr("OEBPS/ch2.xhtml", "<html><body><h1>Two</h1><p>second</p></body></html>")
        if drm:
            archive.writestr(
                "META-INF/encryption.xml",
                '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
                '<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
                '<enc:CipherData><enc:CipherReference URI="OEBPS/ch2.xhtml"/></enc:CipherData>'
                "</enc:EncryptedData></encryption>",
            )
    return path


def test_epub_spine_order(tmp_path: Path) -> None:
    doc = read_file(make_epub(tmp_path / "book.epub"))
    assert doc.title == "The Book" and doc.format == "md"
    assert doc.content == "# Two\n\nsecond\n\n# One\n\nfirst"
    spans = doc.metadata["section_spans"]
    assert [s[2] for s in spans] == ["OEBPS/ch2.xhtml", "OEBPS/ch 1.xhtml"]
    assert doc.content[spans[1][0] : spans[1][1]] == "# One\n\nfirst"


def test_epub_drm_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFormatError, match="DRM"):
        read_file(make_epub(tmp_path / "locked.epub", drm=True))


# --- PDF ------------------------------------------------------------------------------


def test_pdf_partially_scanned(tmp_path: Path) -> None:
    doc = read_file(write(tmp_path, "mixed.pdf", pdf_bytes(["Page one text", None, "Page three"])))
    assert doc.content == "Page one text\n\nPage three"
    assert doc.metadata["page_spans"] == [[0, 13, 1, "1"], [13, 13, 2, "2"], [15, 25, 3, "3"]]
    assert doc.metadata["pages_without_text"] == [2]
    assert any("need OCR" in w for w in doc.metadata["warnings"])


def test_pdf_encrypted_with_user_password(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["Secret words"]))))
    writer.set_page_label(0, 0, style="/r")
    writer.encrypt(user_password="s3cret", owner_password="owner", algorithm="AES-256")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    with pytest.raises(PasswordRequiredError, match="Enter its password"):
        read_file(path)
    with pytest.raises(PasswordRequiredError, match="not correct"):
        read_file(path, password="guess")
    doc = read_file(path, password="s3cret")
    assert doc.content == "Secret words"
    assert doc.metadata["page_spans"] == [[0, 12, 1, "i"]]


def test_pdf_garbage_after_header(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocumentError, match="damaged or incomplete") as info:
        read_file(write(tmp_path, "junk.pdf", b"%PDF-1.4\n" + b"garbage " * 100))
    assert info.value.__cause__ is None


def test_pdf_text_normalisation() -> None:
    assert normalize_page_text("ﬁle\t\tname  \r\n\r\n\r\n\r\nnext\x00\uf8f1") == "file name\n\nnext"
    fix = Dehyphenator(["ef\x02ficient dual\x02encoder", "dual-encoder and Lucene\x02BM25"])
    assert fix("ef\x02ficient dual\x02encoder Lucene\x02BM25") == (
        "efficient dual-encoder Lucene-BM25"
    )


def test_metadata_is_json_serialisable(tmp_path: Path) -> None:
    doc = read_file(write(tmp_path, "mixed.pdf", pdf_bytes(["a b c", None])))
    json.dumps(doc.metadata)
