"""E-mail: .eml, .mbox and .msg: subject, from/to/date, bodies, attachments, sections."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agentmaker.errors import FormatMismatchError
from agentmaker.rag import split_document
from agentmaker.rag.readers import read_file

from .office_files import encrypt_office, make_eml, make_mbox, make_xlsx


def test_mbox_messages_sections_and_attachment(tmp_path: Path) -> None:
    workbook = make_xlsx(tmp_path / "budget.xlsx").read_bytes()
    doc = read_file(make_mbox(tmp_path / "inbox.mbox", attachment=workbook))
    assert doc.format == "mail" and doc.metadata["messages"] == 2
    budget, lunch = doc.metadata["sections"]
    assert budget[2] == {
        "location": "“Budget for March” — 2026-03-02",
        "heading": "Budget for March",
        "mail_from": "ana@example.org",
        "mail_to": "bob@example.org, cy@example.org",
        "mail_date": "2026-03-02",
    }
    first = doc.content[budget[0] : budget[1]]
    assert first.splitlines()[:6] == [
        "# Budget for March",
        "From: ana@example.org",
        "To: bob@example.org, cy@example.org",
        "Date: 2026-03-02 10:15+01:00",
        "Attachments: budget.xlsx",
        "",
    ]
    assert "the catering deposit of 900 euros is due on Friday." in first
    second = doc.content[lunch[0] : lunch[1]]
    # the HTML-only body went through the HTML reader: text kept, markup and script gone;
    # its <h1> sits below the subject
    assert "## Lunch" in second
    assert "We meet at the Blue Whale pier restaurant <noon>." in second
    assert "alert" not in second and "<i>" not in second

    (attached,) = doc.attachments
    assert attached.format == "sheet"
    assert attached.title == "budget.xlsx (attached to “Budget for March” — 2026-03-02)"
    assert attached.metadata["message"] == "“Budget for March” — 2026-03-02"
    assert attached.metadata["mail_from"] == "ana@example.org"
    assert "[row 2] Item: Rent; Amount: 1200; Month: March" in attached.content

    chunks = split_document(doc)
    assert {c.metadata["location"] for c in chunks} == {
        "“Budget for March” — 2026-03-02",
        "“Team lunch” — 2026-03-03",
    }
    lunch_chunk = next(c for c in chunks if "Blue Whale" in c.content)
    assert lunch_chunk.heading_path == "Team lunch > Lunch"
    assert lunch_chunk.metadata["mail_from"] == "bob@example.org"
    assert lunch_chunk.metadata["mail_date"] == "2026-03-03"


def test_eml_one_message_is_filterable_as_a_whole(tmp_path: Path) -> None:
    doc = read_file(make_eml(tmp_path / "lunch.eml"))
    assert doc.title == "Team lunch"
    assert doc.metadata["mail_from"] == "bob@example.org"
    assert doc.metadata["mail_to"] == "ana@example.org"
    assert doc.metadata["mail_date"] == "2026-03-03"
    # some programs save one message with the mbox "From " line in front
    with_from = tmp_path / "from-line.eml"
    original = Path(doc.source).read_bytes()
    with_from.write_bytes(b"From bob@example.org Tue Mar  3 12:00:00 2026\n" + original)
    assert read_file(with_from).title == "Team lunch"


def test_not_mail_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.eml"
    notes.write_text("just some notes\nnothing more\n")
    with pytest.raises(FormatMismatchError, match="does not look like an e-mail"):
        read_file(notes)
    box = tmp_path / "box.mbox"
    box.write_text("Subject: hi\n\nno From_ line\n")
    with pytest.raises(FormatMismatchError, match="not a mailbox"):
        read_file(box)
    pdf_named_mbox = tmp_path / "box2.mbox"
    pdf_named_mbox.write_bytes(b"%PDF-1.7\n" + b"x" * 100)
    with pytest.raises(FormatMismatchError, match="actually a PDF document"):
        read_file(pdf_named_mbox)


def test_msg_content_checked(tmp_path: Path) -> None:
    # No library writes .msg files; what can be checked without Outlook is that a
    # file that is not one is refused in plain words.
    text = tmp_path / "mail.msg"
    text.write_text("Subject: hello\n\nbody\n")
    with pytest.raises(FormatMismatchError, match=r"named \.msg but is actually plain text"):
        read_file(text)
    other_ole = encrypt_office(make_xlsx(tmp_path / "b.xlsx"), tmp_path / "enc.xlsx", "pw")
    renamed = shutil.copy(other_ole, tmp_path / "enc.msg")
    with pytest.raises(FormatMismatchError, match="not an Outlook message"):
        read_file(renamed)


def test_forwarded_message_is_read_one_level_deep(tmp_path: Path) -> None:
    from .office_files import budget_message, lunch_message

    workbook = make_xlsx(tmp_path / "budget.xlsx").read_bytes()
    inner = budget_message(attachment=workbook)
    for _ in range(20):  # a message forwarded as an attachment, twenty times over
        outer = lunch_message()
        outer.add_attachment(inner)
        inner = outer
    path = tmp_path / "forwarded.eml"
    path.write_bytes(inner.as_bytes())
    doc = read_file(path)
    (attached,) = doc.attachments
    assert attached.metadata["source_format"] == "eml"
    assert attached.attachments == []  # its own attachment was not read
    assert "Blue Whale" in attached.content
