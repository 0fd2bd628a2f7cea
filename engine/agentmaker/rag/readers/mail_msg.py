"""Outlook .msg messages through extract-msg (the maintained reader of the MSG format).

extract-msg reads the OLE2 compound file; here its message becomes the same
``Message`` the .eml and .mbox readers produce. An HTML-only body goes through the
HTML reader like any other. extract-msg is GPL-licensed, so it is an optional
dependency (the ``outlook`` extra): without it a .msg file gets a plain message
saying what to install.
"""

from __future__ import annotations

import email.utils
from datetime import datetime
from pathlib import Path
from typing import Any

from agentmaker.errors import (
    CorruptDocumentError,
    FormatMismatchError,
    PasswordRequiredError,
    UnsupportedFormatError,
)
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.html import html_to_markdown
from agentmaker.rag.readers.mail import Attachment, MailDocumentBuilder, Message
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines


def _addresses(value: Any) -> str:
    if not value:
        return ""
    pairs = email.utils.getaddresses([str(value).replace(";", ",")])
    return ", ".join(addr.lower() for _, addr in pairs if addr)


def _open(path: Path) -> Any:
    try:
        import extract_msg
        from extract_msg.exceptions import InvalidFileFormatError, UnrecognizedMSGTypeError
    except ImportError:
        raise UnsupportedFormatError(
            "is an Outlook message; reading .msg files needs the optional package "
            "extract-msg (pip install 'agentmaker-desk[outlook]'). Or save the message "
            "from Outlook as .eml.",
            path,
        ) from None

    try:
        return extract_msg.openMsg(str(path), strict=False)
    except (InvalidFileFormatError, UnrecognizedMSGTypeError) as exc:
        raise FormatMismatchError(
            f"is named .msg but is not an Outlook message ({exc}). Check that it is the "
            "right file; Outlook saves messages with File > Save As > Outlook Message Format.",
            path,
        ) from None
    except Exception as exc:  # olefile and extract-msg raise many kinds on damage
        if "encrypt" in str(exc).lower():
            raise PasswordRequiredError(
                "is an encrypted Outlook message; decrypt it in Outlook to index it.", path
            ) from None
        raise CorruptDocumentError(
            f"is damaged and cannot be read as an Outlook message ({type(exc).__name__}: "
            f"{exc}); save it again from Outlook.",
            path,
        ) from None


def message_from_msg(path: Path) -> Message:
    """A ``Message`` from an Outlook ``.msg`` file."""
    msg = _open(path)
    try:
        if not hasattr(msg, "body"):  # a contact, appointment or task, not a message
            raise FormatMismatchError(
                f"is an Outlook {type(msg).__name__} item, not an e-mail message.", path
            )
        body = normalize_newlines(msg.body or "")
        is_html = False
        if not body.strip():
            html = getattr(msg, "htmlBody", None)
            if html:
                body = html_to_markdown(decode_bytes(html).text)[0]
                is_html = True
        date = msg.date if isinstance(msg.date, datetime) else None
        attachments = []
        for attachment in msg.attachments:
            data = getattr(attachment, "data", None)
            name = attachment.longFilename or attachment.shortFilename or ""
            if isinstance(data, bytes) and data and name:
                attachments.append(Attachment(str(name), data))
        return Message(
            subject=" ".join((msg.subject or "").split()),
            sender=_addresses(msg.sender),
            to=_addresses(msg.to),
            cc=_addresses(msg.cc),
            date=date,
            body=body.strip(),
            html=is_html,
            attachments=attachments,
        )
    finally:
        msg.close()


def read_msg_file(path: Path) -> Document:
    """Read an Outlook ``.msg`` message (and its attachments)."""
    message = message_from_msg(path)
    builder = MailDocumentBuilder(path)
    builder.add(message)
    return builder.document(message.subject or path.stem)
