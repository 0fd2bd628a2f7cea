"""Hostile and damaged office files: refused with typed, plain-language errors."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest
from agentmaker.errors import (
    CorruptDocumentError,
    FileTooLargeError,
    FormatMismatchError,
    PasswordRequiredError,
)
from agentmaker.rag.readers import read_file

from .office_files import make_ods, make_odt, make_pptx, make_xlsx

OFFICE_MAKERS = {
    ".pptx": make_pptx,
    ".xlsx": make_xlsx,
    ".ods": make_ods,
    ".odt": make_odt,
}


@pytest.mark.parametrize("suffix", sorted(OFFICE_MAKERS))
def test_truncated_file_is_damaged(tmp_path: Path, suffix: str) -> None:
    whole = OFFICE_MAKERS[suffix](tmp_path / f"whole{suffix}").read_bytes()
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(CorruptDocumentError, match="damaged or incomplete"):
        read_file(cut)


def _rewrite(source: Path, target: Path, member: str, data: bytes) -> Path:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            new.writestr(info, data if info.filename == member else old.read(info))
    return target


@pytest.mark.parametrize(
    ("suffix", "member"),
    [
        (".xlsx", "xl/worksheets/sheet1.xml"),
        (".pptx", "ppt/slides/slide1.xml"),
        (".odt", "content.xml"),
        (".ods", "content.xml"),
    ],
)
def test_billion_laughs_refused_before_parsing(tmp_path: Path, suffix: str, member: str) -> None:
    laughs = (
        b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(
            f'<!ENTITY lol{n} "{("&lol" + str(n - 1) + ";") * 10}">'.encode() for n in range(1, 10)
        ).replace(b"&lol0;", b"&lol;")
        + b"]>\n<root>&lol9;</root>"
    )
    source = OFFICE_MAKERS[suffix](tmp_path / f"good{suffix}")
    bad = _rewrite(source, tmp_path / f"laughs{suffix}", member, laughs)
    with pytest.raises(CorruptDocumentError, match="billion laughs"):
        read_file(bad)


def test_zip_bomb_refused_before_any_library_opens_it(tmp_path: Path) -> None:
    source = make_xlsx(tmp_path / "good.xlsx")
    bomb = tmp_path / "bomb.xlsx"
    shutil.copy(source, bomb)
    with zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/padding.bin", b"\0" * (40 * 1024 * 1024))
    assert bomb.stat().st_size < 1024 * 1024
    with pytest.raises(FileTooLargeError, match="ZIP bomb") as caught:
        read_file(bomb)
    assert "xl/media/padding.bin" in str(caught.value)


def test_total_unpacked_size_limited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmaker.rag.readers import containers

    monkeypatch.setattr(containers, "MAX_UNPACKED_BYTES", 10_000)
    with pytest.raises(FileTooLargeError, match="unpacks to"):
        read_file(make_pptx(tmp_path / "deck.pptx"))


def test_renamed_office_files_get_the_mismatch_message(tmp_path: Path) -> None:
    deck = make_pptx(tmp_path / "deck.pptx")
    as_xlsx = shutil.copy(deck, tmp_path / "numbers.xlsx")
    with pytest.raises(
        FormatMismatchError, match=r"named \.xlsx but is actually a PowerPoint presentation"
    ):
        read_file(as_xlsx)
    sheet = make_ods(tmp_path / "stock.ods")
    as_odt = shutil.copy(sheet, tmp_path / "letter.odt")
    with pytest.raises(FormatMismatchError, match="actually an OpenDocument spreadsheet"):
        read_file(as_odt)
    png = tmp_path / "slides.pptx"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    with pytest.raises(FormatMismatchError, match="actually a PNG image"):
        read_file(png)
    rtf = tmp_path / "memo.rtf"
    rtf.write_bytes(b"%PDF-1.4\n" + b"x" * 64)
    with pytest.raises(FormatMismatchError, match="not an RTF document"):
        read_file(rtf)


def test_old_binary_office_files(tmp_path: Path) -> None:
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 500
    (tmp_path / "old.xlsx").write_bytes(ole)
    with pytest.raises(FormatMismatchError, match=r"old Excel 97-2003 \(\.xls\)"):
        read_file(tmp_path / "old.xlsx")
    (tmp_path / "old.pptx").write_bytes(ole)
    with pytest.raises(FormatMismatchError, match=r"\.ppt\)"):
        read_file(tmp_path / "old.pptx")


def test_encrypted_opendocument(tmp_path: Path) -> None:
    source = make_odt(tmp_path / "plain.odt")
    manifest = (
        b'<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
        b'"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry '
        b'manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry>'
        b"</manifest:manifest>"
    )
    locked = _rewrite(source, tmp_path / "locked.odt", "META-INF/manifest.xml", manifest)
    with pytest.raises(PasswordRequiredError, match="password-protected OpenDocument"):
        read_file(locked)


def test_damaged_xml_part(tmp_path: Path) -> None:
    source = make_xlsx(tmp_path / "good.xlsx")
    broken = _rewrite(source, tmp_path / "broken.xlsx", "xl/workbook.xml", b"<workbook><sheets>")
    with pytest.raises(CorruptDocumentError, match="damaged"):
        read_file(broken)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        archive.writestr("content.xml", b"<office:document-content")
    (tmp_path / "broken.odt").write_bytes(buffer.getvalue())
    with pytest.raises(CorruptDocumentError, match="damaged"):
        read_file(tmp_path / "broken.odt")
